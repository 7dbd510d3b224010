internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

extension EasyTransfer {
    /// FTP, SFTP and `file:` uploads of a file, when `partialUploadSuffix` is set: points
    /// the handle at the stored name and adds the commands that rename it (see
    /// `PartialUpload`). A URL whose name cannot be stored so fails before anything is sent.
    func configurePartialUpload(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        guard let suffix = request.options.partialUploadSuffix, case .file = request.body,
              ["ftp", "ftps", "sftp", "file"].contains(scheme) else { return }
        guard let parsed = curl.pointee.curl_url() else {
            throw TransferError(kind: .local, code: "curl_url", message: "libcurl could not parse the upload's URL (out of memory)")
        }
        defer { curl.pointee.curl_url_cleanup(parsed) }
        guard curl.pointee.curl_url_set(parsed, CURLUPART_URL, request.url, 0) == CURLUE_OK,
              let path = urlPart(parsed, CURLUPART_PATH) else {
            throw TransferError(kind: .permanent, code: TransferError.name(of: CURLE_URL_MALFORMAT),
                                message: "libcurl cannot read the upload's URL \(URLText.redacted(request.url))")
        }
        let plan: PartialUpload
        do {
            plan = try PartialUpload.plan(encodedPath: path, scheme: scheme, suffix: suffix)
        } catch {
            throw TransferError(kind: .permanent, code: TransferError.unsendableText,
                                message: "\(URLText.redacted(request.url)) cannot be stored under a temporary name: \(error.message)")
        }
        guard curl.pointee.curl_url_set(parsed, CURLUPART_PATH, plan.storedURLPath, 0) == CURLUE_OK,
              let storedURL = urlPart(parsed, CURLUPART_URL) else {
            throw TransferError(kind: .permanent, code: TransferError.name(of: CURLE_URL_MALFORMAT),
                                message: "libcurl cannot build the temporary name of \(URLText.redacted(request.url))")
        }
        try set(easy, CURLOPT_URL, storedURL)
        if !plan.commands.isEmpty {
            // Bytes, not text: a file name need not be UTF-8. Freed by `close()`.
            postQuote = try setList(easy, CURLOPT_POSTQUOTE, plan.commands, "the rename commands") { command, append in
                (command + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { append($0.baseAddress!) } }
            }
        }
        partialUpload = plan
    }

    /// A stored upload's last step, once libcurl reports it done: `file:` renames the copy
    /// to its final name here. nil when nothing is left to do or it went well.
    func finishPartialUpload() -> TransferError? {
        guard let rename = partialUpload?.localRename else { return nil }
        let renamed = (rename.from + [0]).withUnsafeBufferPointer { from in
            (rename.to + [0]).withUnsafeBufferPointer { to in
                from.withMemoryRebound(to: CChar.self) { f in to.withMemoryRebound(to: CChar.self) { Glibc.rename(f.baseAddress!, $0.baseAddress!) } }
            }
        }
        guard renamed != 0 else { return nil }
        return Self.localError(errno, "renaming the copy \(String(decoding: rename.from, as: UTF8.self)) into place")
    }

    /// libcurl's message for a refused rename, with what is left on the server.
    func partialUploadRenameFailure(_ message: String) -> String {
        let name = URLText.redacted(request.url)
        return "the file was stored as \(name)\(request.options.partialUploadSuffix ?? ""), but the server refused to give it its final name (\(message))"
    }
}
