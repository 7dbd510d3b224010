import Foundation
import Crypto

/// A file the fixture server serves, with its validators.
public struct FixtureFile: Sendable {
    public var bytes: [UInt8]
    public var etag: String
    public var lastModified: String
    /// Sent as `Content-Disposition` when set.
    public var contentDisposition: String?

    public init(bytes: [UInt8], version: Int = 1, contentDisposition: String? = nil) {
        self.bytes = bytes
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        self.etag = "\"\(digest.prefix(16))-\(version)\""
        // A fixed date per version keeps If-Modified-Since deterministic.
        self.lastModified = "Wed, 21 Oct 2015 07:\(String(format: "%02d", 28 + version % 30)):00 GMT"
        self.contentDisposition = contentDisposition
    }
}

/// An upload the server received, as tests check it.
public struct ReceivedUpload: Sendable, Equatable {
    public var method: String
    public var path: String
    public var bytes: Int
    public var sha256: String
    public var contentType: String?
    /// Multipart fields (name -> value) and files, when the body was multipart/form-data.
    public var fields: [String: String]
    public var files: [ReceivedFilePart]
}

public struct ReceivedFilePart: Sendable, Equatable {
    public var field: String
    public var filename: String?
    public var contentType: String?
    public var bytes: Int
    public var sha256: String

    public init(field: String, filename: String?, contentType: String?, bytes: Int, sha256: String) {
        self.field = field
        self.filename = filename
        self.contentType = contentType
        self.bytes = bytes
        self.sha256 = sha256
    }
}

/// One request as the server saw it.
public struct LoggedRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [(name: String, value: String)]
    /// Connections open to this server when the request arrived (this one included).
    public var openConnections: Int
    public var connectionID: Int
    /// The absolute URL of a request sent to this server as a forward proxy, if it was.
    public var proxiedURL: String?

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What a path requires of the request's credentials.
public enum FixtureAuth: Sendable {
    case basic(user: String, password: String)
    case bearer(token: String)
    /// Reject any request that carries an Authorization header (cloud blob stores).
    case noAuthorizationHeader
}
