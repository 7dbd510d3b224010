internal import CCurl

/// The remote file's modification time, standing in for `Last-Modified` where there are
/// no headers: FTP (MDTM), SFTP (stat) and file downloads.
///
/// Why: a partial download may only be continued when the server confirms it is still the
/// same file; HTTP has `If-Range` for that, FTP and SFTP have nothing. With the time a
/// caller can record a validator as it does for HTTP (`onResponse` sees a `last-modified`),
/// and a resumed transfer whose `ifRange` is not the file's time now fails with
/// `TransferError.remoteFileChanged` before its first byte is written: its bytes would
/// continue another file. A 1 GiB FTP download killed at 90 % was otherwise fetched again
/// from byte 0. Likewise a transfer whose `ifModifiedSince` is the file's time ends at its
/// first byte as a 304: a nightly FTP mirror with `refresh: conditional` fetches only what
/// changed (the file's time, not a newer one: a file put back to an older version changed).
extension EasyTransfer {
    /// Whether libcurl is asked for the file's time (CURLOPT_FILETIME; FTP: one more
    /// command, SFTP: one more stat): downloads into a file over the protocols without headers.
    var wantsRemoteFileTime: Bool {
        guard !isHTTP, case .file = request.destination, case .none = request.body else { return false }
        return true
    }

    /// The file's time as an HTTP date, when libcurl learned it.
    func remoteLastModified() -> String? {
        guard let handle else { return nil }
        var time: curl_off_t = -1
        guard xb_easy_getinfo_off(curl, handle, CURLINFO_FILETIME_T, &time) == CURLE_OK, time >= 0 else { return nil }
        return HTTPDate.format(Int64(time))
    }

    /// Nil when a resumed transfer continues the file its partial came from; else the failure.
    func remoteFileChange(_ headers: [String: String]) -> TransferError? {
        guard let expected = request.ifRange else { return nil }
        let now = headers["last-modified"]
        guard now != expected else { return nil }
        return TransferError(kind: .transient, code: TransferError.remoteFileChanged,
                             message: "the remote file changed since the partial was written (modified \(now ?? "at an unknown time"), not \(expected))")
    }
}
