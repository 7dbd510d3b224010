internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// libcurl's callbacks. They run on the engine's loop thread inside
/// `curl_multi_perform`; each finds its transfer through the opaque pointer it was given.
extension EasyTransfer {
    static let writeCallback: curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
        // The digest's reader holds every spare buffer: wait for it (before the cap, which
        // would otherwise charge the chunk twice).
        if transfer.waitsForReader(size * count) { return Int(XB_CURL_WRITEFUNC_PAUSE) }
        // Under a bandwidth cap whose budget is spent: nothing taken, libcurl keeps the
        // chunk and delivers it again when the loop releases the transfer.
        if let gate = transfer.gate, !gate.admitsReceived(size * count) { return Int(XB_CURL_WRITEFUNC_PAUSE) }
        return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let headerCallback: curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
        transfer.headerBytes += Int64(size * count)
        transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }

    /// Closes a connection's socket so that the peer sees it end at once: `shutdown(2)`
    /// sends the FIN even while a process forked at that moment still holds a copy of the
    /// descriptor until it execs, which `close(2)` alone waits for (a test saw a pooled
    /// connection still open after `TransferEngine.shutdown` returned, on a loaded machine
    /// where another test was starting a process). libcurl keeps this in each connection,
    /// so it needs no context pointer.
    static let closeSocketCallback: curl_closesocket_callback = { _, socket in
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
        return Glibc.close(socket)
    }

    /// Counters only: atomics, no allocation. Also the stall watchdog: libcurl calls this
    /// at least once a second even when nothing moves, and its own low-speed check
    /// averages over several seconds, which notices a stall late.
    static let progressCallback: curl_xferinfo_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
        guard let context else { return 0 }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
        if uploadTotal > 0 || uploaded > 0 {
            transfer.progress.update(done: Int64(uploaded), expected: uploadTotal > 0 ? Int64(uploadTotal) : nil)
        } else {
            transfer.progress.update(done: Int64(downloaded), expected: downloadTotal > 0 ? Int64(downloadTotal) : nil)
        }
        // A failure recorded outside a callback (see `TransferEngine+Bandwidth`) ends the transfer here.
        if transfer.localFailure != nil { return 1 }
        let moved = Int64(downloaded) + Int64(uploaded) + transfer.headerBytes
        return transfer.checkStall(moved: moved, bodySent: uploadTotal > 0 && uploaded >= uploadTotal) ? 1 : 0
    }

    /// True (abort) when no byte has moved for the stall timeout, or, once an upload's body
    /// is all sent (`bodySent`) and no byte of answer has come, for the answer timeout: a
    /// server may take its time to store or hash what it received, and giving up there
    /// would send the whole body again. Time paused for the bandwidth cap, or for the
    /// digest's reader, is not a stall.
    func checkStall(moved: Int64, bodySent: Bool) -> Bool {
        if bodySent, headerBytesWhenSent == nil { headerBytesWhenSent = headerBytes }
        let awaitingAnswer = answerLimit != nil && headerBytesWhenSent == headerBytes
        guard let limit = awaitingAnswer ? answerLimit : stallLimit else { return false }
        let nanos = TokenBucket.now()
        if moved != lastMovedBytes || isHeld {
            lastMovedBytes = moved
            lastMovedAt = nanos
            return false
        }
        guard nanos - lastMovedAt > limit else { return false }
        let seconds = limit / 1_000_000_000
        localFailure = awaitingAnswer
            ? TransferError(kind: .transient, code: TransferError.unanswered,
                            message: "the whole body was sent, then no answer came for \(seconds) s (the answer timeout)")
            : TransferError(kind: .transient, code: TransferError.stalled, message: "no data moved for \(seconds) s (the stall timeout)")
        return true
    }

    /// Decides on the first body byte where the body goes: error responses (HTTP >= 300)
    /// are kept in memory, bounded, and never reach the destination file.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        if !bodyStarted {
            bodyStarted = true
            guard startBody() else { return 0 }
        }
        guard writesToFile, case .file(let fd, _) = request.destination else {
            let room = request.options.maxCapturedBody - captured.count
            if room > 0 { captured.append(contentsOf: chunk.prefix(room)) }
            return chunk.count
        }
        if let limit = request.maxFileSize, writeOffset + Int64(pendingCount) + Int64(chunk.count) > limit {
            localFailure = TransferError(kind: .permanent, code: TransferError.sizeMismatch,
                                         message: "the server sends more than the \(limit) bytes the file should have; stopped there")
            return 0
        }
        return write(chunk, to: fd) ? chunk.count : 0  // 0 makes libcurl stop; our error wins
    }

    /// Returns false (and records why) when the body must not be accepted at all.
    private func startBody() -> Bool {
        let status = responseCode()
        if isHTTP && !(200..<300).contains(status) { return true }  // captured, not written
        guard case .file(let fd, _) = request.destination else { return true }
        let headers = headersForResponse()
        if !isHTTP, let since = request.ifModifiedSince, headers["last-modified"] == since {
            notModified = true  // no If-Modified-Since here: the file's time stands in for it
            return false
        }
        if let from = request.resumeFrom, from > 0, !isHTTP, let changed = remoteFileChange(headers) {
            localFailure = changed  // nor If-Range
            return false
        }
        if let refusal = request.onResponse?(status, headers) {
            localFailure = refusal
            return false
        }
        writesToFile = true
        guard let from = request.resumeFrom, from > 0 else {
            // A part to a request for the whole file (a cache or proxy that mishandles ranges).
            return isHTTP && status == 206 ? acceptPart(startingAt: 0) : true
        }
        if !isHTTP {
            resumed = true  // FTP REST / SFTP seek / file offset: libcurl fails if it cannot
            return true
        }
        if status == 206 {
            guard acceptPart(startingAt: from) else { return false }
            resumed = true
            return true
        }
        // 200: the server ignored the range or the entity changed (If-Range): start over.
        if ftruncate(fd, 0) != 0 {
            localFailure = EasyTransfer.localError(errno, "cannot truncate the partial file")
            return false
        }
        writeOffset = 0
        return true
    }

    /// Whether a 206's body may be written at `offset`: only bytes that start exactly there
    /// (another start would splice two parts of the file at the wrong place), and only as
    /// many as the range says. A part that ends before the file does is written, and
    /// noted (`partEndsShort`): it was recorded as the whole file, done, when nginx answered
    /// a manifest's own `Range` header, or a server sent a resumed file's rest in pieces.
    private func acceptPart(startingAt offset: Int64) -> Bool {
        let range = responseHeaders["content-range"]
        let length = responseHeaders["content-length"].flatMap { Int64($0) }
        // Compared without `+ 1`: LAST may be Int64.max, where adding one would trap.
        guard let range, ContentRange.start(of: range) == offset, let end = ContentRange.end(of: range), end >= offset,
              length.map({ $0 > 0 && $0 - 1 == end - offset }) ?? true else {
            let asked = offset > 0 ? "asked for bytes from \(offset)" : "asked for the whole file"
            let got = range.map { "got \($0)" + (length.map { " with a Content-Length of \($0)" } ?? "") } ?? "got no Content-Range"
            localFailure = TransferError(kind: .permanent, code: TransferError.badContentRange, message: "\(asked), \(got)")
            return false
        }
        if let whole = ContentRange.completeLength(of: range), end != whole - 1 {
            guard end < whole - 1 else {
                localFailure = TransferError(kind: .permanent, code: TransferError.badContentRange,
                                             message: "got \(range), which ends past the file's length")
                return false
            }
            partEndsShort = (end + 1, whole)
        }
        return true
    }

    /// Headers a `TransferOutcome` reports (lower-case); others are not kept. (`date`, the
    /// server's clock, measures a `Retry-After` date.)
    static let keptHeaders: [String] = [
        "etag", "last-modified", "content-length", "content-range", "content-disposition", "retry-after", "location",
        "content-type", "content-encoding", "date",
    ]
    private static let keptHeaderBytes: [[UInt8]] = keptHeaders.map { Array($0.utf8) }

    /// Keeps the selected headers of the final response: a new status line (after a
    /// redirect or a 100 Continue) starts a new set. Names are matched on the bytes, so a
    /// header we do not keep (most of them) costs no String, hash or allocation: this runs
    /// for every header line of every transfer, on the loop thread.
    func receiveHeader(_ line: UnsafeRawBufferPointer) {
        let bytes = line.bindMemory(to: UInt8.self)
        if bytes.count >= 5, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[4] == UInt8(ascii: "/") {
            if !responseHeaders.isEmpty { responseHeaders.removeAll(keepingCapacity: true) }
            headerSectionEnded = false
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            // The blank line ends the header section. What comes after it, until the next
            // status line, are a chunked body's trailers: RFC 9110 (6.5.1) forbids merging
            // them into the headers unless a field's definition allows it, and ETag's and
            // Last-Modified's do not (one replaced the ETag kept at the first byte).
            if bytes.first == 0x0D || bytes.first == 0x0A { headerSectionEnded = true }
            return
        }
        guard let kept = Self.keptHeaderBytes.firstIndex(where: { Self.equalIgnoringCase(bytes[..<colon], $0) }),
              !headerSectionEnded else { return }
        var start = colon + 1, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D || bytes[end - 1] == 0x20 { end -= 1 }
        // Room for every kept header at once: growing from empty rehashed three times (a
        // server sends four of them to a plain GET), half of this function's instructions.
        if responseHeaders.capacity == 0 { responseHeaders.reserveCapacity(Self.keptHeaders.count) }
        responseHeaders[Self.keptHeaders[kept]] = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// ASCII case-insensitive equality of a header name with a lower-case name.
    private static func equalIgnoringCase(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ lower: [UInt8]) -> Bool {
        guard name.count == lower.count else { return false }
        var i = name.startIndex
        for expected in lower {
            let byte = name[i]
            guard asciiLowercased(byte) == expected else { return false }
            i += 1
        }
        return true
    }

    /// The kept headers; for FTP, SFTP and file transfers, which have none, what libcurl
    /// learned otherwise, so that a caller sees the same whatever the protocol:
    /// - `content-length`, the size (SIZE, stat), to weigh the body before it lands. Not
    ///   for a resumed one: libcurl's figure is then what is left, not the file's size;
    /// - `last-modified`, the file's time (see `EasyTransfer+RemoteFileTime`).
    func headersForResponse() -> [String: String] {
        guard !isHTTP, let handle else { return responseHeaders }
        var headers = responseHeaders
        var length: curl_off_t = -1
        if headers["content-length"] == nil, (request.resumeFrom ?? 0) == 0,
           xb_easy_getinfo_off(curl, handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length >= 0 {
            headers["content-length"] = String(length)
        }
        if headers["last-modified"] == nil, let time = remoteLastModified() { headers["last-modified"] = time }
        return headers
    }

    func responseCode() -> Int {
        guard let handle else { return 0 }
        var code = 0
        _ = xb_easy_getinfo_long(curl, handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }
}

extension StringProtocol {
    /// `self` without leading and trailing characters from `set`.
    func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
