internal import CCurl

extension TransferError {
    /// The one place where failures are classified. Each row says why.
    ///
    /// `ftpReply` is the last FTP/SFTP reply code, which refines FTP failures: 4xx replies
    /// are transient by RFC 959 ("transient negative completion"), 5xx permanent. `detail`
    /// is libcurl's message, which tells a TLS handshake cut short from one that failed.
    static func kind(of code: CURLcode, ftpReply: Int, detail: String = "") -> Kind {
        switch code {
        // Name resolution and connection set-up: the network or the server may recover.
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST: return .transient  // DNS hiccups are common and short
        case CURLE_COULDNT_CONNECT: return .transient  // refused: server restarting, or not up yet
        case CURLE_OPERATION_TIMEDOUT: return .transient  // connect/total timeout or stall (low-speed limit)
        case CURLE_GOT_NOTHING: return .transient  // connection closed before any reply
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR: return .transient  // connection reset mid-transfer
        case CURLE_PARTIAL_FILE: return .transient  // body shorter than announced: a resume can finish it
        case CURLE_WEIRD_SERVER_REPLY: return .transient  // garbled reply, often a proxy or overloaded server
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR: return .transient  // framing/stream resets
        case CURLE_PROXY: return .transient  // proxy handshake failed; proxies come and go
        case CURLE_AGAIN, CURLE_NO_CONNECTION_AVAILABLE, CURLE_SEND_FAIL_REWIND: return .transient  // retry-later conditions
        case CURLE_SSL_SHUTDOWN_FAILED: return .transient  // data arrived; only the close failed
        case CURLE_UNRECOVERABLE_POLL: return .transient  // a poll failure is not about the request
        case CURLE_SSH: return .transient  // generic SSH failure (session reset, channel closed)
        case CURLE_CHUNK_FAILED: return .transient  // wildcard chunk callback failure, not the data
        case CURLE_FTP_ACCEPT_FAILED, CURLE_FTP_ACCEPT_TIMEOUT, CURLE_FTP_WEIRD_PASV_REPLY, CURLE_FTP_WEIRD_227_FORMAT,
             CURLE_FTP_CANT_GET_HOST, CURLE_FTP_PORT_FAILED, CURLE_FTP_COULDNT_SET_TYPE:
            return .transient  // data-connection set-up problems
        // FTP command failures: decided by the reply code.
        case CURLE_FTP_COULDNT_RETR_FILE, CURLE_UPLOAD_FAILED, CURLE_QUOTE_ERROR, CURLE_REMOTE_ACCESS_DENIED:
            return (400..<500).contains(ftpReply) ? .transient : .permanent  // 4xx transient, 5xx permanent
        // Requests that would fail the same way again.
        case CURLE_UNSUPPORTED_PROTOCOL: return .permanent  // also: a redirect to a refused protocol
        case CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION,
             CURLE_SETOPT_OPTION_SYNTAX, CURLE_FAILED_INIT, CURLE_FUNCTION_NOT_FOUND, CURLE_RECURSIVE_API_CALL,
             CURLE_INTERFACE_FAILED:
            return .permanent  // malformed request or our own misuse: fix the manifest or the code
        case CURLE_TOO_MANY_REDIRECTS: return .permanent  // a redirect loop stays a loop
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR: return .permanent  // wrong credentials stay wrong
        case CURLE_REMOTE_FILE_NOT_FOUND, CURLE_FILE_COULDNT_READ_FILE: return .permanent  // nothing there
        case CURLE_REMOTE_FILE_EXISTS, CURLE_REMOTE_DISK_FULL: return .permanent  // the server refuses the upload
        case CURLE_RANGE_ERROR, CURLE_BAD_DOWNLOAD_RESUME, CURLE_FTP_COULDNT_USE_REST: return .permanent  // cannot resume: restart instead
        case CURLE_HTTP_RETURNED_ERROR, CURLE_HTTP_POST_ERROR: return .permanent  // classified by status where known
        case CURLE_FILESIZE_EXCEEDED, CURLE_BAD_CONTENT_ENCODING, CURLE_FTP_PRET_FAILED, CURLE_FTP_WEIRD_PASS_REPLY:
            return .permanent  // protocol-level refusals
        // TLS: certificates and handshakes do not fix themselves between attempts, except a
        // handshake the connection dropped under ("SSL_ERROR_SYSCALL", "reset by peer": an
        // overloaded server or load balancer; a well-known flake of CI fetches).
        case CURLE_SSL_CONNECT_ERROR: return droppedDuringHandshake(detail) ? .transient : .permanent
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CIPHER,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .permanent
        // This machine's problems.
        case CURLE_WRITE_ERROR, CURLE_READ_ERROR: return .local  // our file could not be written or read
        case CURLE_OUT_OF_MEMORY: return .local  // not the server's fault
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE: return .local  // the CA/CRL file named here is unusable
        case CURLE_SSL_CERTPROBLEM: return .local  // our client certificate or key is unusable (or its passphrase wrong)
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled  // only our own callbacks abort
        default: return .permanent  // unknown failures are not retried blindly
        }
    }

    /// Whether libcurl's message for a failed TLS handshake says the connection went away
    /// (OpenSSL's words), rather than that the two sides could not agree.
    static func droppedDuringHandshake(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return ["ssl_error_syscall", "reset by peer", "unexpected eof", "broken pipe", "recv failure", "send failure"].contains {
            text.contains($0)
        }
    }

    /// Classifies a final HTTP status of 300 or more.
    static func kind(ofHTTPStatus status: Int) -> Kind {
        switch status {
        case 408: .transient  // Request Timeout: the server gave up waiting; try again
        case 425: .transient  // Too Early: replay after the handshake completes
        case 429: .transient  // Too Many Requests: honour Retry-After and try again
        case 500, 502, 503, 504: .transient  // server error, bad gateway, unavailable, gateway timeout
        case 300..<400: .permanent  // a redirect we did not (or may not) follow
        case 400..<500: .permanent  // the request itself is wrong: auth, not found, gone...
        default: .permanent  // 501, 505, 507...: the server cannot do this
        }
    }

    /// A stable name for a CURLcode (`CURLE_COULDNT_CONNECT`-style when known).
    static func name(of code: CURLcode) -> String {
        let known: [(CURLcode, String)] = [
            (CURLE_COULDNT_RESOLVE_HOST, "CURLE_COULDNT_RESOLVE_HOST"), (CURLE_COULDNT_CONNECT, "CURLE_COULDNT_CONNECT"),
            (CURLE_OPERATION_TIMEDOUT, "CURLE_OPERATION_TIMEDOUT"), (CURLE_PARTIAL_FILE, "CURLE_PARTIAL_FILE"),
            (CURLE_RECV_ERROR, "CURLE_RECV_ERROR"), (CURLE_SEND_ERROR, "CURLE_SEND_ERROR"), (CURLE_GOT_NOTHING, "CURLE_GOT_NOTHING"),
            (CURLE_TOO_MANY_REDIRECTS, "CURLE_TOO_MANY_REDIRECTS"), (CURLE_UNSUPPORTED_PROTOCOL, "CURLE_UNSUPPORTED_PROTOCOL"),
            (CURLE_URL_MALFORMAT, "CURLE_URL_MALFORMAT"), (CURLE_WRITE_ERROR, "CURLE_WRITE_ERROR"), (CURLE_READ_ERROR, "CURLE_READ_ERROR"),
            (CURLE_PEER_FAILED_VERIFICATION, "CURLE_PEER_FAILED_VERIFICATION"), (CURLE_SSL_CONNECT_ERROR, "CURLE_SSL_CONNECT_ERROR"),
            (CURLE_LOGIN_DENIED, "CURLE_LOGIN_DENIED"), (CURLE_REMOTE_FILE_NOT_FOUND, "CURLE_REMOTE_FILE_NOT_FOUND"),
            (CURLE_FILE_COULDNT_READ_FILE, "CURLE_FILE_COULDNT_READ_FILE"), (CURLE_REMOTE_ACCESS_DENIED, "CURLE_REMOTE_ACCESS_DENIED"),
            (CURLE_FTP_COULDNT_RETR_FILE, "CURLE_FTP_COULDNT_RETR_FILE"), (CURLE_UPLOAD_FAILED, "CURLE_UPLOAD_FAILED"),
            (CURLE_SSH, "CURLE_SSH"), (CURLE_ABORTED_BY_CALLBACK, "CURLE_ABORTED_BY_CALLBACK"), (CURLE_RANGE_ERROR, "CURLE_RANGE_ERROR"),
            (CURLE_WEIRD_SERVER_REPLY, "CURLE_WEIRD_SERVER_REPLY"), (CURLE_SSL_CACERT_BADFILE, "CURLE_SSL_CACERT_BADFILE"),
            (CURLE_SEND_FAIL_REWIND, "CURLE_SEND_FAIL_REWIND"), (CURLE_BAD_DOWNLOAD_RESUME, "CURLE_BAD_DOWNLOAD_RESUME"),
            (CURLE_FTP_COULDNT_USE_REST, "CURLE_FTP_COULDNT_USE_REST"), (CURLE_USE_SSL_FAILED, "CURLE_USE_SSL_FAILED"),
            (CURLE_FAILED_INIT, "CURLE_FAILED_INIT"), (CURLE_SSL_CERTPROBLEM, "CURLE_SSL_CERTPROBLEM"),
            (CURLE_SSL_CLIENTCERT, "CURLE_SSL_CLIENTCERT"),
            // Every other code `kind(of:)` names: an FTP server's bad PASV reply read
            // `CURLcode 13`, which a report's reader cannot look up.
            (CURLE_COULDNT_RESOLVE_PROXY, "CURLE_COULDNT_RESOLVE_PROXY"), (CURLE_HTTP2, "CURLE_HTTP2"),
            (CURLE_HTTP2_STREAM, "CURLE_HTTP2_STREAM"), (CURLE_HTTP3, "CURLE_HTTP3"), (CURLE_QUIC_CONNECT_ERROR, "CURLE_QUIC_CONNECT_ERROR"),
            (CURLE_PROXY, "CURLE_PROXY"), (CURLE_AGAIN, "CURLE_AGAIN"), (CURLE_NO_CONNECTION_AVAILABLE, "CURLE_NO_CONNECTION_AVAILABLE"),
            (CURLE_SSL_SHUTDOWN_FAILED, "CURLE_SSL_SHUTDOWN_FAILED"), (CURLE_UNRECOVERABLE_POLL, "CURLE_UNRECOVERABLE_POLL"),
            (CURLE_CHUNK_FAILED, "CURLE_CHUNK_FAILED"), (CURLE_FTP_ACCEPT_FAILED, "CURLE_FTP_ACCEPT_FAILED"),
            (CURLE_FTP_ACCEPT_TIMEOUT, "CURLE_FTP_ACCEPT_TIMEOUT"), (CURLE_FTP_WEIRD_PASV_REPLY, "CURLE_FTP_WEIRD_PASV_REPLY"),
            (CURLE_FTP_WEIRD_227_FORMAT, "CURLE_FTP_WEIRD_227_FORMAT"), (CURLE_FTP_CANT_GET_HOST, "CURLE_FTP_CANT_GET_HOST"),
            (CURLE_FTP_PORT_FAILED, "CURLE_FTP_PORT_FAILED"), (CURLE_FTP_COULDNT_SET_TYPE, "CURLE_FTP_COULDNT_SET_TYPE"),
            (CURLE_QUOTE_ERROR, "CURLE_QUOTE_ERROR"), (CURLE_NOT_BUILT_IN, "CURLE_NOT_BUILT_IN"),
            (CURLE_BAD_FUNCTION_ARGUMENT, "CURLE_BAD_FUNCTION_ARGUMENT"), (CURLE_UNKNOWN_OPTION, "CURLE_UNKNOWN_OPTION"),
            (CURLE_SETOPT_OPTION_SYNTAX, "CURLE_SETOPT_OPTION_SYNTAX"), (CURLE_FUNCTION_NOT_FOUND, "CURLE_FUNCTION_NOT_FOUND"),
            (CURLE_RECURSIVE_API_CALL, "CURLE_RECURSIVE_API_CALL"), (CURLE_INTERFACE_FAILED, "CURLE_INTERFACE_FAILED"),
            (CURLE_AUTH_ERROR, "CURLE_AUTH_ERROR"), (CURLE_REMOTE_FILE_EXISTS, "CURLE_REMOTE_FILE_EXISTS"),
            (CURLE_REMOTE_DISK_FULL, "CURLE_REMOTE_DISK_FULL"), (CURLE_HTTP_RETURNED_ERROR, "CURLE_HTTP_RETURNED_ERROR"),
            (CURLE_HTTP_POST_ERROR, "CURLE_HTTP_POST_ERROR"), (CURLE_FILESIZE_EXCEEDED, "CURLE_FILESIZE_EXCEEDED"),
            (CURLE_BAD_CONTENT_ENCODING, "CURLE_BAD_CONTENT_ENCODING"), (CURLE_FTP_PRET_FAILED, "CURLE_FTP_PRET_FAILED"),
            (CURLE_FTP_WEIRD_PASS_REPLY, "CURLE_FTP_WEIRD_PASS_REPLY"), (CURLE_SSL_CIPHER, "CURLE_SSL_CIPHER"),
            (CURLE_SSL_ENGINE_NOTFOUND, "CURLE_SSL_ENGINE_NOTFOUND"), (CURLE_SSL_ENGINE_SETFAILED, "CURLE_SSL_ENGINE_SETFAILED"),
            (CURLE_SSL_ENGINE_INITFAILED, "CURLE_SSL_ENGINE_INITFAILED"), (CURLE_SSL_ISSUER_ERROR, "CURLE_SSL_ISSUER_ERROR"),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, "CURLE_SSL_PINNEDPUBKEYNOTMATCH"), (CURLE_SSL_INVALIDCERTSTATUS, "CURLE_SSL_INVALIDCERTSTATUS"),
            (CURLE_OUT_OF_MEMORY, "CURLE_OUT_OF_MEMORY"), (CURLE_SSL_CRL_BADFILE, "CURLE_SSL_CRL_BADFILE"),
        ]
        return known.first { $0.0 == code }?.1 ?? "CURLcode \(code.rawValue)"
    }

    /// Whether a failure with this code, libcurl message and HTTP status came before the
    /// request could reach the server, or as an answer refusing it whole: then sending it
    /// again cannot make the server act on it twice (what a POST's retry needs, see
    /// `JobRunner.notRetriedPOST`). Each row says why.
    public static func neverReachedServer(code: String, message: String, httpStatus: Int?) -> Bool {
        if let status = httpStatus {
            return status == 429 || status == 503  // "too many requests", "unavailable": refused, nothing done
        }
        switch code {
        case "CURLE_COULDNT_RESOLVE_HOST", "CURLE_COULDNT_RESOLVE_PROXY": return true  // no address to send to
        case "CURLE_COULDNT_CONNECT": return true  // no connection to send on
        case "CURLE_SSL_CONNECT_ERROR": return true  // the request follows the handshake, which failed
        case "CURLE_OPERATION_TIMEDOUT":
            // libcurl's words for a name or connection that took too long, not a transfer.
            return ["Connection timed out after", "Failed to connect to", "Resolving timed out after"].contains { message.hasPrefix($0) }
        default: return false  // a stall, a reset, a 5xx: the server may have the request
        }
    }
}
