internal import CCurl

extension EasyTransfer {
    /// The result of a transfer libcurl reported done with `code`.
    func result(for code: CURLcode) -> Result<TransferOutcome, TransferError> {
        if let failure = localFailure ?? uploadSources.lazy.compactMap(\.failure).first { return .failure(failure) }
        if notModified {
            return .success(TransferOutcome(status: 304, headers: responseHeaders, bytesTransferred: 0, effectiveURL: request.url, timings: timings()))
        }
        let status = responseCode()
        if code != CURLE_OK {
            var message = errorText(code)
            if code == CURLE_UNSUPPORTED_PROTOCOL, redirectCount() > 0 {
                message = "refused to follow a redirect to another protocol (\(message)); an https URL may not lead to http unless allowed"
            }
            if code == CURLE_LOGIN_DENIED, let sshLogin { message += " (\(sshLogin))" }
            if code == CURLE_QUOTE_ERROR, partialUpload != nil { message = partialUploadRenameFailure(message) }
            if let hint = keyExchangeHint(code, message) { message += hint }
            if code == CURLE_OPERATION_TIMEDOUT, !isHTTP, status == 421 {
                return .failure(TransferError(kind: TransferError.kind(of: code, ftpReply: status), code: TransferError.tooManyConnections,
                                              message: "the server refused the connection (421: too many connections from this address, or closing down)"))
            }
            return .failure(TransferError(kind: TransferError.kind(of: code, ftpReply: status, detail: message),
                                          code: TransferError.name(of: code), message: message, httpStatus: isHTTP && status > 0 ? status : nil))
        }
        if !isHTTP, !bodyStarted, let from = request.resumeFrom, from > 0 {
            // Resumed at the file's end (a kill between the last byte and the rename): no
            // byte came, so the check at the first byte never ran. It runs here, and the
            // partial is the whole file only if the file kept its time.
            if let changed = remoteFileChange(headersForResponse()) { return .failure(changed) }
            resumed = true
        }
        if isHTTP && status == 416 && partialIsComplete() {
            return .success(TransferOutcome(status: status, headers: responseHeaders, bytesTransferred: 0, effectiveURL: effectiveURL(),
                                            timings: timings(), resumed: true))
        }
        if isHTTP && status >= 300 && status != 304 {
            let retryAfter = responseHeaders["retry-after"].flatMap { RetryAfter.parse($0, serverDate: responseHeaders["date"]) }
            let upload = if case .none = request.body { "" } else { ": an upload with a header from the environment is not redirected, as the header would go along" }
            let reason = status < 400
                ? "redirect not followed (\(responseHeaders["location"].map { "to \(URLText.redacted($0))" } ?? "no Location"))\(followsRedirectsItself ? upload : "")"
                : "the server answered \(status)" + (ErrorBodyExcerpt.line(captured, contentType: responseHeaders["content-type"],
                                                                    status: status, secrets: request.secretValues).map { ": \($0)" } ?? "")
            return .failure(TransferError(kind: TransferError.kind(ofHTTPStatus: status), code: "HTTP \(status)", message: reason,
                                          httpStatus: status, retryAfter: retryAfter, responseBody: captured))
        }
        if partialUpload != nil, let failure = finishPartialUpload() { return .failure(failure) }
        if writesToFile, let (end, length) = partEndsShort {
            return .failure(TransferError(kind: .transient, code: TransferError.partOfTheFile,
                                          message: "the server sent the file only up to byte \(end) of \(length) (206 Partial Content)"))
        }
        return .success(TransferOutcome(status: status, headers: isHTTP ? responseHeaders : headersForResponse(), bytesTransferred: transferredBytes(),
                                        effectiveURL: effectiveURL(), timings: timings(), resumed: resumed,
                                        body: writesToFile ? [] : captured))
    }

    /// A 416 to `Range: bytes=N-` with `If-Range`, saying the entity is N bytes long
    /// (`Content-Range: bytes */N`): the partial file already holds all of it. A server
    /// evaluates the range only when the If-Range validator matches (it sends the whole
    /// entity otherwise), so these are the same entity's bytes, and nothing is missing.
    /// Without If-Range, or for any other length, a 416 stays an error.
    private func partialIsComplete() -> Bool {
        guard let from = request.resumeFrom, from > 0, request.ifRange != nil,
              let range = responseHeaders["content-range"] else { return false }
        return ContentRange.completeLength(of: range) == from
    }

    private func transferredBytes() -> Int64 {
        if case .none = request.body {
            if writesToFile { return bytesWritten }
            return Int64(captured.count)
        }
        var sent: curl_off_t = 0
        if let handle { _ = xb_easy_getinfo_off(curl, handle, CURLINFO_SIZE_UPLOAD_T, &sent) }
        return Int64(sent)
    }

    /// The URL libcurl ended at; for an upload stored under a temporary name, the final one.
    private func effectiveURL() -> String {
        guard let handle, partialUpload == nil else { return request.url }
        var pointer: UnsafeMutablePointer<CChar>? = nil
        guard xb_easy_getinfo_string(curl, handle, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else { return request.url }
        return String(cString: pointer)
    }

    private func redirectCount() -> Int {
        guard let handle else { return 0 }
        var count = 0
        _ = xb_easy_getinfo_long(curl, handle, CURLINFO_REDIRECT_COUNT, &count)
        return count
    }

    private func timings() -> TransferOutcome.Timings {
        var t = TransferOutcome.Timings()
        guard let handle else { return t }
        func micro(_ info: CURLINFO) -> Duration {
            var v: curl_off_t = 0
            _ = xb_easy_getinfo_off(curl, handle, info, &v)
            return .microseconds(Int64(v))
        }
        t.nameLookup = micro(CURLINFO_NAMELOOKUP_TIME_T)
        t.connect = micro(CURLINFO_CONNECT_TIME_T)
        t.tlsHandshake = micro(CURLINFO_APPCONNECT_TIME_T)
        t.firstByte = micro(CURLINFO_STARTTRANSFER_TIME_T)
        t.total = micro(CURLINFO_TOTAL_TIME_T)
        return t
    }
}

/// The parts of a URL the engine reads as text, and redaction of URLs in engine messages:
/// no userinfo, no query (signatures live there).
enum URLText {
    static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let q = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<q] }
        if let info = userinfo(of: text) { text = text[..<info.startIndex] + text[text.index(after: info.endIndex)...] }
        return String(text)
    }

    /// `user:password@host:port`: after `://`, up to the path, query or fragment.
    static func authority<S: StringProtocol>(of url: S) -> S.SubSequence where S.SubSequence == Substring {
        guard let start = url.range(of: "://")?.upperBound else { return url[...] }
        return url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    /// `user:password` of the authority (the `@` after it excluded), or nil.
    static func userinfo<S: StringProtocol>(of url: S) -> Substring? where S.SubSequence == Substring {
        let authority = authority(of: url)
        return authority.lastIndex(of: "@").map { authority[..<$0] }
    }
}
