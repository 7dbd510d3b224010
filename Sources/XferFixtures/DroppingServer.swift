import Foundation

/// A server on 127.0.0.1 that accepts each connection, reads what the client sends first
/// (a TLS ClientHello), and closes it: a handshake cut short, as an overloaded server or a
/// load balancer does. `reset` closes with a TCP reset ("Connection reset by peer"), else
/// with an orderly close (OpenSSL's `SSL_ERROR_SYSCALL`, unexpected end of file).
public final class DroppingServer: Sendable {
    public let port: Int
    private let listener: Int32

    public init(reset: Bool) throws {
        let (fd, port) = try LoopbackPort.listening()
        listener = fd
        self.port = port
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }  // the listener was shut down
                _ = read(client, &buffer, buffer.count)
                if reset {
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                    setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                }
                close(client)
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the accept loop, which then ends
        close(listener)
    }
}
