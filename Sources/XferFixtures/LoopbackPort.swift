import Foundation

/// Ports on 127.0.0.1 for tests that start a server of their own or need one nobody
/// answers on.
public enum LoopbackPort {
    /// A port nobody listens on right now (bound, read, released): for a server about to
    /// start there. Not for a connection that must be refused: see `Refusing`.
    public static func free() throws -> Int {
        let (fd, port) = try bound()
        close(fd)
        return port
    }

    /// A port where a connection is certainly refused: bound, so that no server of a test
    /// running alongside can take it meanwhile, but never listening. (A port from `free()`
    /// was taken by one: "Connection reset by peer" instead of a refusal.)
    public final class Refusing: Sendable {
        public let port: Int
        private let socket: Int32

        public init() throws { (socket, port) = try bound() }

        deinit { close(socket) }
    }

    /// A TCP socket listening on an ephemeral port on 127.0.0.1, and the port: for a test's
    /// own small server (one that misbehaves in ways no HTTP server would).
    public static func listening(backlog: Int32 = 16) throws -> (socket: Int32, port: Int) {
        let (fd, port) = try bound()
        guard listen(fd, backlog) == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return (fd, port)
    }

    /// A TCP socket bound to an ephemeral port on 127.0.0.1, and the port.
    private static func bound() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
