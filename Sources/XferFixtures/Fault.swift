/// A scripted misbehaviour for one request to a path (see `FixtureServer.script`).
public enum Fault: Sendable, Equatable {
    /// Answer with this status (and `Retry-After`, and `Date`: the server's clock, if given)
    /// and a short body.
    case status(Int, retryAfter: String? = nil, date: String? = nil)
    /// Answer with this status, Content-Type and body (an API's error document).
    case answer(Int, contentType: String, body: [UInt8])
    /// Send the headers (full Content-Length) and this many body bytes, then close.
    case closeAfter(bytes: Int)
    /// Send this many body bytes, then send nothing for `seconds` (connection kept open).
    case stall(afterBytes: Int, seconds: Double)
    /// Send the body at this many bytes per second.
    case drip(bytesPerSecond: Int)
    /// Announce `extra` more bytes than the body has, send the body, then close.
    case wrongContentLength(extra: Int)
    /// Send the body chunked, without Content-Length, as servers do for generated content.
    case chunked
    /// As `chunked`, ending the body with these trailer fields (RFC 9112, 7.1.2).
    case chunkedWithTrailers([String: String])
    /// Answer a Range request with 200 and the whole body.
    case ignoreRange
    /// Answer a Range request with 206 and the whole body, labelled `bytes 0-…` (a proxy
    /// that mishandles ranges).
    case misplacedRange
    /// Read the whole request, then wait this long before answering as usual (a server
    /// that stores or hashes an upload before it answers).
    case delayAnswer(seconds: Double)
    /// Replace the file's content (new ETag and Last-Modified) before answering.
    case changeContent([UInt8])
    /// Answer with this status, these headers and this body, then close: a server whose
    /// headers promise another body (a Content-Length past 64 bits' reach).
    case untrueHeaders(Int, headers: [String: String], body: [UInt8])
}
