import Foundation
import Testing
import XferFixtures

/// A real server (nginx, vsftpd, sshd) started from Debian's package with a config of
/// our own, on a free loopback port, in a scratch folder; stopped by `stop()`.
///
/// When the program is missing, the tests skip with a message naming the package on a
/// developer machine, and fail in CI (`CI` set), where `scripts/setup.sh` installs it.
final class RealServer: @unchecked Sendable {
    let name: String
    let port: Int
    let folder: URL
    private let process: RunningProgram

    private init(name: String, port: Int, folder: URL, process: RunningProgram) {
        self.name = name
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// The program's path, or nil (with the package to install) when absent.
    static func program(_ path: String, package: String) throws -> String? {
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(path) is missing; scripts/setup.sh --for-tests installs \(package)")
        }
        return nil
    }

    /// Runs `program` to its end and returns its exit status (-1 when it could not be
    /// started or did not end within 10 s); see `ChildProcess`. `environment` nil passes
    /// this process's own.
    static func runToEnd(_ program: String, _ arguments: [String], environment: [String: String]? = nil) -> Int32 {
        ChildProcess.run(program, arguments, environment: environment, limit: .seconds(10)).status
    }

    /// A set-up command that failed (`mustRun`).
    struct CommandFailed: Error, CustomStringConvertible {
        let command: [String]
        let status: Int32
        var description: String { "\(command.joined(separator: " ")) ended with status \(status)" }
    }

    /// `runToEnd`, throwing `CommandFailed` unless the command succeeds.
    static func mustRun(_ program: String, _ arguments: [String]) throws {
        let status = runToEnd(program, arguments)
        if status != 0 { throw CommandFailed(command: [program] + arguments, status: status) }
    }

    /// Starts `arguments` (config written by `configure` into the folder) and waits,
    /// bounded, until the port accepts connections.
    static func start(name: String, program: String, arguments: (URL, Int) -> [String],
                      configure: (URL, Int) throws -> Void) throws -> RealServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try LoopbackPort.free()
        try configure(folder, port)
        let log = folder.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = try RunningProgram(program, arguments(folder, port), directory: folder.path, stdout: .discard, stderr: .file(log.path))
        let server = RealServer(name: name, port: port, folder: folder, process: process)
        for _ in 0..<100 {
            if server.accepts() { return server }
            usleep(50_000)
        }
        server.stop()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw POSIXError(.ECONNREFUSED, userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(text)"])
    }

    private func accepts() -> Bool {
        guard let fd = connection() else { return false }
        close(fd)
        return true
    }

    /// A TCP connection to the server (the caller closes it), or nil when refused.
    func connection() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return fd }
        close(fd)
        return nil
    }

    /// SIGKILL, then a bounded wait: a child of the test runner may inherit a signal mask
    /// that blocks SIGTERM (nginx then never stops), and `waitUntilExit` spins.
    func stop() {
        process.signal(SIGKILL)
        _ = process.wait(upTo: .seconds(2))
        try? FileManager.default.removeItem(at: folder)
    }

    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

    /// What the server wrote to stderr so far (sshd logs each login there).
    func log() -> String { (try? String(contentsOfFile: path("server.log"), encoding: .utf8)) ?? "" }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}

extension RealServer {
    /// nginx in the foreground, one process, everything under its scratch folder, with
    /// `server` as its only server block (`PORT` and `DIR` are filled in).
    private static func startNginx(name: String, server: String, prepare: (String) throws -> Void = { _ in }) throws -> RealServer? {
        guard let program = try program("/usr/sbin/nginx", package: "nginx-core") else { return nil }
        return try start(name: name, program: program, arguments: { folder, _ in ["-c", folder.path + "/nginx.conf", "-p", folder.path] }) { folder, port in
            let d = folder.path
            for sub in ["www/dav", "tmp"] { try FileManager.default.createDirectory(atPath: d + "/" + sub, withIntermediateDirectories: true) }
            try prepare(d)
            let block = server.replacingOccurrences(of: "PORT", with: "\(port)").replacingOccurrences(of: "DIR", with: d)
            try """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log;
            events { worker_connections 1024; }
            http {
              access_log off;
              keepalive_requests 100000;
              client_body_temp_path \(d)/tmp/body; proxy_temp_path \(d)/tmp/proxy; fastcgi_temp_path \(d)/tmp/fcgi;
              uwsgi_temp_path \(d)/tmp/uwsgi; scgi_temp_path \(d)/tmp/scgi;
              \(block)
            }
            """.write(toFile: d + "/nginx.conf", atomically: true, encoding: .utf8)
        }
    }

    /// nginx serving `www/` with PUT (its DAV module) under `/dav/`.
    static func nginx() throws -> RealServer? {
        try startNginx(name: "nginx", server: """
            server {
                listen 127.0.0.1:PORT;
                root DIR/www;
                location /dav/ { dav_methods PUT; create_full_put_path on; client_max_body_size 0; }
              }
            """)
    }

    /// nginx over TLS with a self-signed certificate for 127.0.0.1 (`cert.pem`), serving
    /// `www/`; `/to-http` redirects to a plain-http URL.
    static func nginxTLS() throws -> RealServer? {
        try startNginxTLS(name: "nginx-tls", directives: "location = /to-http { return 302 http://127.0.0.1:1/plain.txt; }")
    }

    /// nginx over TLS (as `nginxTLS`) that requires a client certificate signed by its own
    /// CA (`client-ca.pem`). For clients: `client.pem` and `client.key`, the same key
    /// encrypted with the passphrase "open sesame" (`client-encrypted.key`), and certificate
    /// and key in one file (`client-both.pem`).
    static func nginxMutualTLS() throws -> RealServer? {
        try startNginxTLS(name: "nginx-mtls", directives: "ssl_client_certificate DIR/client-ca.pem; ssl_verify_client on;") { d, openssl in
            try mustRun(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/client-ca.key", "-out", d + "/client-ca.pem",
                                  "-days", "2", "-subj", "/CN=xferbatch test client CA"])
            try mustRun(openssl, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/client.key", "-out", d + "/client.csr",
                                  "-subj", "/CN=xferbatch test client"])
            try mustRun(openssl, ["x509", "-req", "-in", d + "/client.csr", "-CA", d + "/client-ca.pem", "-CAkey", d + "/client-ca.key",
                                  "-CAcreateserial", "-days", "2", "-out", d + "/client.pem"])
            try mustRun(openssl, ["pkey", "-in", d + "/client.key", "-aes256", "-passout", "pass:open sesame", "-out", d + "/client-encrypted.key"])
            let both = try String(contentsOfFile: d + "/client.pem", encoding: .utf8) + String(contentsOfFile: d + "/client.key", encoding: .utf8)
            try both.write(toFile: d + "/client-both.pem", atomically: true, encoding: .utf8)
        }
    }

    /// nginx over TLS with `cert.pem` for 127.0.0.1, serving `www/`, with `directives`
    /// added to its server block; `prepare` makes further files in its folder first.
    private static func startNginxTLS(name: String, directives: String,
                                      prepare: (String, String) throws -> Void = { _, _ in }) throws -> RealServer? {
        guard let openssl = try program("/usr/bin/openssl", package: "openssl") else { return nil }
        return try startNginx(name: name, server: """
            server {
                listen 127.0.0.1:PORT ssl;
                ssl_certificate DIR/cert.pem;
                ssl_certificate_key DIR/key.pem;
                root DIR/www;
                \(directives)
              }
            """) { d in
            try selfSignedCertificate(in: d, openssl: openssl)
            try prepare(d, openssl)
        }
    }

    /// `cert.pem` and `key.pem` for 127.0.0.1 in `d`.
    static func selfSignedCertificate(in d: String, openssl: String) throws {
        try mustRun(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/key.pem", "-out", d + "/cert.pem",
                              "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
    }

    /// How an FTP server uses TLS.
    enum FTPTLS {
        case none
        /// FTPS: TLS from the first byte (`ftps://`).
        case implicit
        /// FTPES: plain connection, then AUTH TLS, required before login and data.
        case explicit
    }

    /// vsftpd with anonymous access to `ftp/`, uploads allowed under `ftp/pub/`; with
    /// `tls`, control and data over TLS with a self-signed certificate for 127.0.0.1
    /// (`cert.pem`).
    static func vsftpd(tls mode: FTPTLS = .none, maxPerIP: Int = 0) throws -> RealServer? {
        guard let program = try program("/usr/sbin/vsftpd", package: "vsftpd") else { return nil }
        let openssl = mode == .none ? nil : try Self.program("/usr/bin/openssl", package: "openssl")
        if mode != .none, openssl == nil { return nil }
        return try start(name: "vsftpd-\(mode)", program: program, arguments: { folder, _ in [folder.path + "/vsftpd.conf"] }) { folder, port in
            let d = folder.path
            var tls = ""
            if let openssl {
                try selfSignedCertificate(in: d, openssl: openssl)
                tls = """
                ssl_enable=YES
                implicit_ssl=\(mode == .implicit ? "YES" : "NO")
                allow_anon_ssl=YES
                force_anon_logins_ssl=YES
                force_anon_data_ssl=YES
                require_ssl_reuse=NO
                rsa_cert_file=\(d)/cert.pem
                rsa_private_key_file=\(d)/key.pem

                """
            }
            try FileManager.default.createDirectory(atPath: d + "/ftp/pub", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: d + "/empty", withIntermediateDirectories: true)
            chmod(d + "/ftp", 0o555)
            chmod(d + "/ftp/pub", 0o777)
            let passive = 40000 + (port % 1000) * 10
            try """
            listen=YES
            listen_ipv6=NO
            listen_address=127.0.0.1
            listen_port=\(port)
            background=NO
            run_as_launching_user=YES
            anonymous_enable=YES
            no_anon_password=YES
            anon_root=\(d)/ftp
            write_enable=YES
            anon_upload_enable=YES
            anon_mkdir_write_enable=YES
            anon_other_write_enable=YES
            local_enable=NO
            pasv_enable=YES
            pasv_address=127.0.0.1
            pasv_min_port=\(passive)
            pasv_max_port=\(passive + 9)
            secure_chroot_dir=\(d)/empty
            seccomp_sandbox=NO
            userlist_enable=NO
            connect_from_port_20=NO
            xferlog_enable=NO
            max_per_ip=\(maxPerIP)
            \(tls)
            """.write(toFile: d + "/vsftpd.conf", atomically: true, encoding: .utf8)
        }
    }

    /// OpenSSH's sshd with its own host keys (ed25519 and RSA), accepting two client keys
    /// for any user: `client_key`, and `client_key_pw`, whose passphrase is `passphrase`.
    /// `known_hosts` lists both host keys as `ssh-keyscan` writes them, RSA first;
    /// `known_hosts_rsa` the RSA key alone.
    static func sshd() throws -> RealServer? {
        guard let program = try program("/usr/sbin/sshd", package: "openssh-server"),
              let keygen = try self.program("/usr/bin/ssh-keygen", package: "openssh-client") else { return nil }
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        return try start(name: "sshd", program: program, arguments: { folder, _ in ["-D", "-e", "-f", folder.path + "/sshd_config"] }) { folder, port in
            let d = folder.path
            for (key, passphrase) in [("host_key", ""), ("client_key", ""), ("client_key_pw", "passphrase")] {
                try mustRun(keygen, ["-q", "-t", "ed25519", "-N", passphrase, "-f", d + "/" + key])
            }
            let clientKeys = try ["client_key.pub", "client_key_pw.pub"].map { try String(contentsOfFile: d + "/" + $0, encoding: .utf8) }
            try clientKeys.joined().write(toFile: d + "/authorized_keys", atomically: true, encoding: .utf8)
            try mustRun(keygen, ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", d + "/host_rsa"])
            let (hostKey, rsaKey) = try (publicKey(d + "/host_key.pub"), publicKey(d + "/host_rsa.pub"))
            try "[127.0.0.1]:\(port) \(rsaKey)\n[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: d + "/known_hosts", atomically: true, encoding: .utf8)
            try "[127.0.0.1]:\(port) \(rsaKey)\n".write(toFile: d + "/known_hosts_rsa", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: d + "/sftp", withIntermediateDirectories: true)
            try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(d)/host_key
            HostKey \(d)/host_rsa
            PidFile \(d)/sshd.pid
            AuthorizedKeysFile \(d)/authorized_keys
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PubkeyAuthentication yes
            StrictModes no
            UsePAM no
            PermitRootLogin yes
            Subsystem sftp internal-sftp

            """.write(toFile: d + "/sshd_config", atomically: true, encoding: .utf8)
        }
    }

    /// "type base64" of an OpenSSH public key file, as known_hosts lists it.
    private static func publicKey(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
    }
}
