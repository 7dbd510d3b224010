internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Redirects of a transfer carrying headers bound to its URL's origin
/// (`TransferRequest.originBoundHeaders`), followed by the engine instead of libcurl.
///
/// libcurl follows a redirect without asking, and sends every custom header except
/// `Authorization` and `Cookie` to whatever host it names: a token in `PRIVATE-TOKEN`
/// would reach the object store a CI artifact URL redirects to. So such a transfer tells
/// libcurl not to follow (CURLOPT_FOLLOWLOCATION 0), and when a response is a redirect the
/// engine re-arms the same handle for the next URL (`follow(to:)`): the bound headers and
/// the `auth` credentials go along only while the URL keeps the first one's scheme, host
/// and port, as libcurl does for `auth` (once another origin is reached they are not
/// sent again in this transfer). libcurl's limits hold: `maxRedirects`, and an https URL
/// leading only to https unless allowed. An upload is not followed at all (its body would
/// have to be read again): its redirect is an error that says so.
extension EasyTransfer {
    /// Whether redirects are followed here rather than by libcurl.
    var followsRedirectsItself: Bool { isHTTP && !request.originBoundHeaders.isEmpty }

    /// The schemes a redirect may lead to (libcurl's CURLOPT_REDIR_PROTOCOLS_STR too).
    var redirectSchemes: [String] {
        scheme == "https" && !request.options.allowInsecureRedirects ? ["https"] : ["http", "https"]
    }

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// After libcurl finished a response with `code`: the URL to follow next, a failure
    /// (too many redirects, a forbidden scheme), or nil when the response is the outcome.
    func redirectTarget(after code: CURLcode) -> Result<String, TransferError>? {
        guard followsRedirectsItself, code == CURLE_OK, localFailure == nil, case .none = request.body,
              Self.redirectStatuses.contains(responseCode()), let handle else { return nil }
        var pointer: UnsafeMutablePointer<CChar>? = nil
        guard xb_easy_getinfo_string(curl, handle, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK, let pointer else { return nil }
        let target = String(cString: pointer)
        guard redirectsFollowed < request.options.maxRedirects else {
            return .failure(TransferError(kind: TransferError.kind(of: CURLE_TOO_MANY_REDIRECTS, ftpReply: 0),
                                          code: TransferError.name(of: CURLE_TOO_MANY_REDIRECTS),
                                          message: "Maximum (\(request.options.maxRedirects)) redirects followed"))
        }
        let targetScheme = Self.scheme(of: target)
        guard redirectSchemes.contains(targetScheme) else {
            return .failure(TransferError(kind: .permanent, code: TransferError.name(of: CURLE_UNSUPPORTED_PROTOCOL),
                                          message: "refused to follow a redirect to another protocol (\(targetScheme)); an https URL may not lead to http unless allowed"))
        }
        return .success(target)
    }

    /// Re-arms the handle, out of the multi handle, to ask `target` the same question:
    /// the response state starts afresh, and on leaving the first URL's origin the bound
    /// headers and the credentials are taken off.
    func follow(to target: String) throws(TransferError) {
        guard let handle else { return }
        redirectsFollowed += 1
        responseHeaders.removeAll(keepingCapacity: true)
        captured.removeAll(keepingCapacity: true)
        bodyStarted = false
        writesToFile = false
        sawFirstChunk = false
        resumed = false
        lastMovedBytes = -1
        try set(handle, CURLOPT_URL, target)
        guard !leftOrigin, origin(of: target) != origin(of: request.url) else { return }
        leftOrigin = true
        try configureHeaders(handle)
        for option in [CURLOPT_USERNAME, CURLOPT_PASSWORD, CURLOPT_XOAUTH2_BEARER] {
            try check(xb_easy_setopt_string(curl, handle, option, nil), "clearing credentials for another host")
        }
    }

    /// `scheme://host:port` as libcurl parses `url` (default ports filled in), or nil when
    /// it cannot: never equal to another, so an unparsable URL counts as another origin.
    func origin(of url: String) -> String? {
        guard let parsed = curl.pointee.curl_url() else { return nil }
        defer { curl.pointee.curl_url_cleanup(parsed) }
        guard curl.pointee.curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        guard let scheme = urlPart(parsed, CURLUPART_SCHEME), let host = urlPart(parsed, CURLUPART_HOST),
              let port = urlPart(parsed, CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)) else { return nil }
        return "\(scheme.lowercased())://\(host.lowercased()):\(port)"
    }

    /// One part of a URL libcurl parsed (`curl_url_get`), or nil when it has none or
    /// cannot give it.
    func urlPart(_ parsed: OpaquePointer, _ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>? = nil
        guard curl.pointee.curl_url_get(parsed, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl.pointee.curl_free(value) }
        return String(cString: value)
    }
}
