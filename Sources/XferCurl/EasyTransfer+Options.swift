internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

extension EasyTransfer {
    /// Protocols a transfer may use, and those a redirect may lead to.
    static let allowedProtocols = "http,https,ftp,ftps,sftp,file"

    func configure(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        let r = request
        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(easy, CURLOPT_PRIVATE, pointer: me)
        try set(easy, CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(easy, CURLOPT_URL, r.url)
        try set(easy, CURLOPT_PROTOCOLS_STR, Self.allowedProtocols)
        try set(easy, CURLOPT_NOSIGNAL, 1)
        try set(easy, CURLOPT_USERAGENT, r.options.userAgent)

        // Redirects: followed up to a limit; https may not lead to http unless allowed.
        // Credentials set through USERNAME/XOAUTH2 are not sent to another host
        // (CURLOPT_UNRESTRICTED_AUTH stays 0), and libcurl drops a custom Authorization
        // header on a host change; headers bound to the origin need the engine to follow
        // (see `EasyTransfer+Redirects`).
        try set(easy, CURLOPT_FOLLOWLOCATION, followsRedirectsItself ? 0 : 1)
        try set(easy, CURLOPT_MAXREDIRS, r.options.maxRedirects)
        try set(easy, CURLOPT_REDIR_PROTOCOLS_STR, redirectSchemes.joined(separator: ","))
        // A POST answered 301 or 302 is sent again, body and all, to the new location (as
        // `curl --post301 --post302`): libcurl's default, a GET there, ended the upload job
        // "done" with the body never delivered (an http:// API moved to https://, say). A
        // 303 still becomes a GET: it says the POST was taken and where to see the result.
        if request.method == .post { try set(easy, CURLOPT_POSTREDIR, XB_CURL_REDIR_POST_301_302) }

        // Timeouts. Stalls are watched in the progress callback (see `checkStall`).
        if let t = r.options.connectTimeout { try set(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(t)) }
        if let t = r.options.totalTimeout { try set(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(t)) }

        // TLS and proxy.
        if let ca = r.options.caFile { try set(easy, CURLOPT_CAINFO, ca) }
        if r.options.insecure {
            try set(easy, CURLOPT_SSL_VERIFYPEER, 0)
            try set(easy, CURLOPT_SSL_VERIFYHOST, 0)
        }
        // A client certificate is presented to whichever server asks for one, as `curl
        // --cert` does: it says who we are, and proves it without giving the key away.
        if let certificate = r.options.clientCertificate {
            try set(easy, CURLOPT_SSLCERT, certificate)
            if let key = r.options.clientKey { try set(easy, CURLOPT_SSLKEY, key) }
            // SFTP sets CURLOPT_KEYPASSWD for its own key (`configureSSH`).
            if let passphrase = r.options.clientKeyPassphrase, scheme != "sftp" { try set(easy, CURLOPT_KEYPASSWD, passphrase) }
        }
        if let proxy = r.options.proxy { try set(easy, CURLOPT_PROXY, proxy) }
        if r.options.requireFTPTLS, scheme == "ftp" { try set(easy, CURLOPT_USE_SSL, Int(XB_CURLUSESSL_ALL)) }

        if scheme == "sftp" { try configureSSH(easy) }
        try configureAuth(easy)
        try configureHeaders(easy)
        try configureBody(easy)
        try configurePartialUpload(easy)
        try configureDownload(easy)

        // Receive buffer: each pass of the loop reads at most this much per transfer, so it
        // sets how often the loop thread polls, wakes and calls into libcurl for a large
        // body. 512 KiB instead of 64 KiB took a 512 MiB download from 0.74 s to 0.54 s of
        // CPU time (bench/big-cpu, with hashing switched off in a scratch build); 2,000 small
        // files cost the same either way (bench/run-cpu). A small body touches only the
        // pages it fills, so the memory is virtual until a large body uses it, and the next
        // transfer reuses those pages (`ReceiveBufferMemory`).
        //
        // Under a bandwidth cap, a chunk is sized to the cap (`bufferSize(underCap:)`).
        try set(easy, CURLOPT_BUFFERSIZE, gate.map { Self.bufferSize(underCap: $0.cap.bytesPerSecond) } ?? Self.receiveBufferSize)
        try set(easy, CURLOPT_NOPROGRESS, 0)
        try check(xb_easy_setopt_xferinfo_function(curl, easy, EasyTransfer.progressCallback), "CURLOPT_XFERINFOFUNCTION")
        try check(xb_easy_setopt_closesocket_function(curl, easy, EasyTransfer.closeSocketCallback), "CURLOPT_CLOSESOCKETFUNCTION")
        try set(easy, CURLOPT_XFERINFODATA, pointer: me)
        try check(xb_easy_setopt_write_function(curl, easy, CURLOPT_WRITEFUNCTION, EasyTransfer.writeCallback), "CURLOPT_WRITEFUNCTION")
        try set(easy, CURLOPT_WRITEDATA, pointer: me)
        try check(xb_easy_setopt_write_function(curl, easy, CURLOPT_HEADERFUNCTION, EasyTransfer.headerCallback), "CURLOPT_HEADERFUNCTION")
        try set(easy, CURLOPT_HEADERDATA, pointer: me)
    }

    private func configureAuth(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        switch request.auth {
        case .none:
            break
        case .basic(let user, let password):
            // An FTP login goes as lines of text (`USER`, `PASS`), which libcurl writes as
            // given: a password ending in `\r\nDELE x` sent the server that command. The
            // manifest's layer names the variable (`SecretResolver`); this is the guarantee.
            if scheme == "ftp" || scheme == "ftps", !HeaderText.canCarry(user) || !HeaderText.canCarry(password) {
                throw TransferError(kind: .permanent, code: TransferError.unsendableText,
                                    message: "the FTP login holds a line break or another control character, which would end its line early; not sent")
            }
            try set(easy, CURLOPT_USERNAME, user)
            try set(easy, CURLOPT_PASSWORD, password)
            if isHTTP { try set(easy, CURLOPT_HTTPAUTH, Int(XB_CURLAUTH_BASIC)) }
        case .bearer(let token):
            try set(easy, CURLOPT_XOAUTH2_BEARER, token)
            try set(easy, CURLOPT_HTTPAUTH, Int(XB_CURLAUTH_BEARER))
        case .netrc(let file):
            try set(easy, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            if let file { try set(easy, CURLOPT_NETRC_FILE, file) }
        }
    }

    /// Sets the request's headers; after a redirect to another origin (`leftOrigin`), those
    /// bound to the first one are left out. Replaces a list set before.
    func configureHeaders(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        var lines: [String] = []
        for header in request.headers where !leftOrigin || !request.originBoundHeaders.contains(header.name.lowercased()) {
            lines.append("\(header.name): \(header.value)")
        }
        if let ifRange = request.ifRange, request.resumeFrom ?? 0 > 0 { lines.append("If-Range: \(ifRange)") }
        if let etag = request.ifNoneMatch { lines.append("If-None-Match: \(etag)") }
        if let date = request.ifModifiedSince { lines.append("If-Modified-Since: \(date)") }
        if case .file(_, let type) = request.body {
            lines.append("Content-Type: \(type ?? ContentType.guess(forPath: pathOfBody ?? ""))")
        }
        // No `Expect: 100-continue` for any body: servers that want it answer anyway, and one
        // that does not know it (Python's http.server, many small services) made libcurl wait
        // a second before each body over 1 MiB.
        if case .none = request.body {} else { lines.append("Expect:") }
        guard isHTTP, !lines.isEmpty || headerList != nil else { return }
        // libcurl sends each line as given: a line break in a value (a header's, a content
        // type's) ends it early and starts a header of its own. The layers above refuse
        // such text where it comes from, naming it; this is the guarantee, for every line.
        if let bad = lines.first(where: { !HeaderText.canCarry($0) }) {
            throw TransferError(kind: .permanent, code: TransferError.unsendableText,
                                message: "the \(bad.prefix { $0 != ":" }) header holds a line break or another control character, which would end it early; not sent")
        }
        let built = try setList(easy, CURLOPT_HTTPHEADER, lines, "headers") { line, append in line.withCString(append) }
        // libcurl keeps the pointer: the old list is freed only once it is replaced.
        if let headerList { curl.pointee.curl_slist_free_all(headerList) }
        headerList = built
    }

    /// Sets `option` to a libcurl list of `lines`, each given to libcurl as a C string by
    /// `cString`, and returns the list. libcurl keeps the pointer without copying the
    /// list: the caller frees it (`curl_slist_free_all`) once it is replaced or the transfer
    /// is over. On failure nothing is left allocated.
    func setList<Line>(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ lines: [Line], _ what: String,
                       cString: (Line, (UnsafePointer<CChar>) -> UnsafeMutablePointer<curl_slist>?) -> UnsafeMutablePointer<curl_slist>?)
        throws(TransferError) -> UnsafeMutablePointer<curl_slist>? {
        var built: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let list = cString(line, { curl.pointee.curl_slist_append(built, $0) }) else {
                curl.pointee.curl_slist_free_all(built)
                throw TransferError(kind: .local, code: "curl_slist_append", message: "out of memory building \(what)")
            }
            built = list
        }
        let code = xb_easy_setopt_slist(curl, easy, option, built)
        guard code == CURLE_OK else {
            curl.pointee.curl_slist_free_all(built)
            try check(code, "option \(option.rawValue) (\(what))")
            return nil
        }
        return built
    }

    private var pathOfBody: String? {
        if case .file(let path, _) = request.body { return path }
        return nil
    }

    private func configureBody(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        switch request.body {
        case .none:
            if request.method == .head { try set(easy, CURLOPT_NOBODY, 1) }
            if request.method == .post { try set(easy, CURLOPT_POSTFIELDSIZE, 0); try set(easy, CURLOPT_POST, 1) }
        case .file(let path, _):
            let source = try UploadSource(path: path, gate: gate)
            uploadSources = [source]
            try check(xb_easy_setopt_read_function(curl, easy, UploadSource.readCallback), "CURLOPT_READFUNCTION")
            try set(easy, CURLOPT_READDATA, pointer: source.context)
            try check(xb_easy_setopt_seek_function(curl, easy, UploadSource.seekCallback), "CURLOPT_SEEKFUNCTION")
            try set(easy, CURLOPT_SEEKDATA, pointer: source.context)
            if request.method == .post && isHTTP {
                try set(easy, CURLOPT_POST, 1)
                try set(easy, CURLOPT_POSTFIELDSIZE_LARGE, offset: source.size)
            } else {
                try set(easy, CURLOPT_UPLOAD, 1)
                try set(easy, CURLOPT_INFILESIZE_LARGE, offset: source.size)
            }
            if request.options.createMissingDirectories { try set(easy, CURLOPT_FTP_CREATE_MISSING_DIRS, 1) }
        case .multipart(let fields, let files):
            guard let form = curl.pointee.curl_mime_init(easy) else {
                throw TransferError(kind: .local, code: "curl_mime_init", message: "libcurl could not create a form")
            }
            mime = form
            for field in fields {
                guard let part = curl.pointee.curl_mime_addpart(form) else { throw Self.mimeError("adding field \(field.name)") }
                try check(curl.pointee.curl_mime_name(part, field.name), "form field name")
                try check(curl.pointee.curl_mime_data(part, field.value, field.value.utf8.count), "form field \(field.name)")
            }
            for file in files {
                let source = try UploadSource(path: file.path, gate: gate)
                uploadSources.append(source)
                guard let part = curl.pointee.curl_mime_addpart(form) else { throw Self.mimeError("adding file \(file.path)") }
                try check(curl.pointee.curl_mime_name(part, file.field), "form file field")
                // The file is read as the part is sent, never loaded whole.
                try check(curl.pointee.curl_mime_data_cb(part, curl_off_t(source.size), UploadSource.readCallback, UploadSource.seekCallback, nil, source.context),
                          "form file \(file.path)")
                try check(curl.pointee.curl_mime_filename(part, file.filename ?? source.fileName), "form file name")
                try check(curl.pointee.curl_mime_type(part, file.contentType ?? ContentType.guess(forPath: file.path)), "form file type")
            }
            try check(xb_easy_setopt_mime(curl, easy, form), "CURLOPT_MIMEPOST")
            if request.method == .put { try set(easy, CURLOPT_CUSTOMREQUEST, "PUT") }
        }
    }

    private func configureDownload(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        if case .file(_, let offset) = request.destination { writeOffset = offset }
        if wantsRemoteFileTime { try set(easy, CURLOPT_FILETIME, 1) }
        guard let from = request.resumeFrom, from > 0 else { return }
        if isHTTP {
            // A plain Range (not RESUME_FROM): libcurl would fail a 200 answer, but a 200
            // is a valid "the entity changed, here it is whole", which we handle.
            try set(easy, CURLOPT_RANGE, "\(from)-")
        } else {
            try set(easy, CURLOPT_RESUME_FROM_LARGE, offset: from)
        }
    }

    // MARK: setopt with every result checked

    /// `what` is built only on failure: this runs some 25 times per transfer.
    func check(_ code: CURLcode, _ what: @autoclosure () -> String) throws(TransferError) {
        guard code != CURLE_OK else { return }
        throw TransferError(kind: TransferError.kind(of: code, ftpReply: 0), code: TransferError.name(of: code),
                            message: "\(what()): \(curl.pointee.curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)")")
    }

    func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(TransferError) {
        try check(xb_easy_setopt_long(curl, easy, option, value), "option \(option.rawValue)")
    }

    func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, offset value: Int64) throws(TransferError) {
        try check(xb_easy_setopt_off(curl, easy, option, curl_off_t(value)), "option \(option.rawValue)")
    }

    /// libcurl copies string options, so a temporary C string is enough.
    func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(TransferError) {
        let code = value.withCString { xb_easy_setopt_string(curl, easy, option, $0) }
        try check(code, "option \(option.rawValue)")
    }

    func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(TransferError) {
        try check(xb_easy_setopt_pointer(curl, easy, option, pointer), "option \(option.rawValue)")
    }

    /// `d` in milliseconds for libcurl's `_MS` options, from `nanoseconds(_:)`: at least 0,
    /// and at most 584 years, which an overlong timeout means.
    static func milliseconds(_ d: Duration) -> Int {
        Int(nanoseconds(d) / 1_000_000)
    }

    static func localError(_ err: Int32, _ what: String) -> TransferError {
        TransferError(kind: .local, code: ErrnoName.name(err), message: "\(what): \(String(cString: strerror(err)))")
    }

    static func mimeError(_ what: String) -> TransferError {
        TransferError(kind: .local, code: "curl_mime", message: "libcurl could not build the form (\(what))")
    }
}
