/// Send a local file (raw body) or a multipart form to a URL.
public struct Upload: Sendable {
    public var url: TransferURL
    public var method: UploadMethod
    public var body: UploadBody
    /// Content type of a raw body; guessed from the extension when absent.
    public var contentType: String?
    /// For FTP/SFTP: create missing remote folders.
    public var createMissingDirectories: Bool
    /// For FTP, SFTP and `file:`: store straight under the final name (`"inPlace": true`),
    /// for a server that refuses renames. By default the file is stored as
    /// `NAME.xferpart` and renamed once whole, so the final name never holds part of it.
    public var inPlace: Bool
    /// For a POST: the endpoint may receive the same request twice without harm, so a
    /// failure after the request may have reached it is retried too (see
    /// `JobRunner.notRetriedPOST`). A PUT, or a store by FTP/SFTP, replaces what it sent
    /// and is retried anyway.
    public var idempotent: Bool
    /// Job-level transfer settings; they override `defaults` key by key.
    public var transfer: TransferSettings {
        get { transferStorage?.value ?? TransferSettings() }
        set { transferStorage = newValue == TransferSettings() ? nil : SharedBox(newValue) }
    }

    /// nil for the common case of no job-level settings (see `SharedBox`).
    private var transferStorage: SharedBox<TransferSettings>?

    /// True when the job sets any transfer setting of its own.
    public var hasOwnTransferSettings: Bool { transferStorage != nil }

    public init(url: TransferURL, method: UploadMethod = .put, body: UploadBody, contentType: String? = nil,
                createMissingDirectories: Bool = false, inPlace: Bool = false, idempotent: Bool = false, transfer: TransferSettings? = nil) {
        self.url = url
        self.method = method
        self.body = body
        self.contentType = contentType
        self.createMissingDirectories = createMissingDirectories
        self.inPlace = inPlace
        self.idempotent = idempotent
        // Set only when given: the setter compares with the defaults, costly for every job.
        if let transfer { self.transfer = transfer }
    }

    /// Whether a failure after the request may have reached the server ends the job
    /// instead of a retry: an HTTP POST not marked `idempotent` (see
    /// `JobRunner.notRetriedPOST`; `plan` says so too).
    public var isSentOnce: Bool { method == .post && !idempotent && url.scheme.hasPrefix("http") }

    /// Whether the body is stored as `NAME.xferpart` first and renamed once whole: a file
    /// sent by FTP, SFTP or to a `file:` URL, unless `inPlace`. An HTTP server decides for
    /// itself where a body goes until it is whole.
    public var storesUnderTemporaryName: Bool {
        guard !inPlace, case .file = body else { return false }
        return url.isFTPOrSFTP || url.scheme == "file"
    }

    /// The name the file is stored under until it is whole (`NAME.xferpart`, as the URL
    /// writes it), or nil when it goes straight to its final name; for `plan`.
    public var storedName: String? {
        storesUnderTemporaryName ? PathText.lastComponent(url.redacted) + PathText.partialSuffix : nil
    }

    /// Every local path this upload reads, as written.
    public var sourcePaths: [String] {
        switch body {
        case .file(let path): [path]
        case .multipart(let form): form.files.map(\.path)
        }
    }
}

/// HTTP method of an upload (FTP and SFTP always store).
public enum UploadMethod: String, Sendable, CaseIterable {
    case put = "PUT"
    case post = "POST"
}

/// The body of an upload, streamed from disk.
public enum UploadBody: Sendable {
    /// The file's bytes are the body.
    case file(String)
    /// `multipart/form-data` with fields and files.
    case multipart(MultipartForm)
}

/// The fields and files of a `multipart/form-data` upload, in manifest order.
public struct MultipartForm: Sendable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        /// The value took text from a variable whose name says it holds a secret
        /// (`"token": "${API_TOKEN}"`): never shown, scrubbed from what a server echoes, and
        /// a rotated value is not an edited job (as for a header from such a variable).
        public var secret = false

        /// The value as plans show it: `REDACTED` when it is secret, or when the field's
        /// name says it holds one (`api_key`, `x-amz-signature`), as for URL query values.
        public var shown: String { secret || EnvironmentExpander.looksSecret(name) ? "REDACTED" : value }
    }

    public struct File: Sendable, Equatable {
        /// Form field name; several files may share one (`userfile[]`).
        public var field: String
        /// Local path as written, relative to the manifest's folder.
        public var path: String
        /// Filename sent to the server; defaults to the path's last component.
        public var filename: String?
        public var contentType: String?
    }

    public var fields: [Field]
    public var files: [File]
}
