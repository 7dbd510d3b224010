import Foundation
import NIOHTTP1

/// Serves one file: validators, conditional requests, a single byte range, and the
/// body-level faults (drop, stall, drip, wrong or no length, ignored or misplaced range).
struct FileResponder {
    let state: FixtureState
    let writer: ResponseWriter

    func serve(name: String, head: HTTPRequestHead, fault: Fault?) async throws -> Bool {
        guard let file = lookup(name) else {
            try await writer.simple(404, "no such file: \(name)\n")
            return true
        }
        var headers: [(String, String)] = [("ETag", file.etag), ("Last-Modified", file.lastModified), ("Accept-Ranges", "bytes"),
                                           ("Content-Type", "application/octet-stream")]
        if let cd = file.contentDisposition { headers.append(("Content-Disposition", cd)) }
        let h = head.headers
        if let tag = h.first(name: "if-none-match"), tag == file.etag || tag == "*" {
            try await writer.head(304, headers + [("Content-Length", "0")])
            try await writer.end()
            return true
        }
        if h.first(name: "if-none-match") == nil, let since = h.first(name: "if-modified-since"), since == file.lastModified {
            try await writer.head(304, headers + [("Content-Length", "0")])
            try await writer.end()
            return true
        }
        let total = file.bytes.count
        var slice = file.bytes[...]
        var status = 200
        if h.first(name: "range") != nil, fault == .misplacedRange {
            status = 206
            headers.append(("Content-Range", "bytes 0-\(total - 1)/\(total)"))
        } else if let range = h.first(name: "range"), fault != .ignoreRange, ifRangeHolds(h.first(name: "if-range"), file) {
            guard let (start, end) = Self.parseRange(range, total: total) else {
                try await writer.head(416, [("Content-Range", "bytes */\(total)"), ("Content-Length", "0")])
                try await writer.end()
                return true
            }
            slice = file.bytes[start...end]
            status = 206
            headers.append(("Content-Range", "bytes \(start)-\(end)/\(total)"))
        }
        var announced = slice.count
        if case .wrongContentLength(let extra) = fault { announced += extra }
        // Without a length, NIO's encoder sends the body chunked.
        var trailers: [String: String] = [:]
        if case .chunkedWithTrailers(let fields)? = fault { trailers = fields }
        let chunked = fault == .chunked || !trailers.isEmpty
        try await writer.head(status, chunked ? headers : headers + [("Content-Length", "\(announced)")])
        switch fault {
        case .closeAfter(let n)?:
            try await writer.body(slice.prefix(n))
            return false
        case .wrongContentLength?:
            try await writer.body(slice)
            return false
        case .stall(let n, let seconds)?:
            try await writer.body(slice.prefix(n))
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return false
        case .drip(let rate)?:
            let step = max(1, rate / 10)
            var rest = slice
            while !rest.isEmpty {
                try await writer.body(rest.prefix(step))
                state.contents.withLock { $0.dripped[name, default: 0] += min(step, rest.count) }
                rest = rest.dropFirst(step)
                if !rest.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            }
        default:
            var rest = slice
            while !rest.isEmpty {
                try await writer.body(rest.prefix(256 * 1024))
                rest = rest.dropFirst(256 * 1024)
            }
        }
        try await writer.end(trailers: trailers)
        return true
    }

    private func lookup(_ name: String) -> FixtureFile? {
        let (file, root) = state.contents.withLock { ($0.files[name], $0.rootFolder) }
        if let file { return file }
        guard let root, !name.split(separator: "/").contains(".."),
              let data = FileManager.default.contents(atPath: root + "/" + name) else { return nil }
        return FixtureFile(bytes: [UInt8](data))
    }

    /// If-Range holds when absent or equal to the current ETag or Last-Modified.
    private func ifRangeHolds(_ value: String?, _ file: FixtureFile) -> Bool {
        guard let value else { return true }
        return value == file.etag || value == file.lastModified
    }

    /// `bytes=N-` or `bytes=N-M` (one range), clamped; nil when unsatisfiable.
    static func parseRange(_ header: String, total: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2, let start = Int(spec[0]), start < total else { return nil }
        let end = spec[1].isEmpty ? total - 1 : min(total - 1, Int(spec[1]) ?? -1)
        return end >= start ? (start, end) : nil
    }
}
