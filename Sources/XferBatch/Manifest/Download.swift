/// Fetch one URL to a file.
public struct Download: Sendable {
    public var url: TransferURL
    /// Destination as written; ending in `/` means "this folder, name decided at run time".
    public var to: String
    /// Expected SHA-256 (64 lower-case hex digits), checked before the file is renamed into place.
    public var sha256: String?
    /// Expected size in bytes; checked on completion and used for the disk-space check.
    public var size: Int64?
    public var refresh: RefreshMode
    /// Job-level transfer settings; they override `defaults` key by key.
    public var transfer: TransferSettings {
        get { transferStorage?.value ?? TransferSettings() }
        set { transferStorage = newValue == TransferSettings() ? nil : SharedBox(newValue) }
    }

    /// nil for the common case of no job-level settings (see `SharedBox`).
    private var transferStorage: SharedBox<TransferSettings>?

    /// True when the job sets any transfer setting of its own.
    public var hasOwnTransferSettings: Bool { transferStorage != nil }

    public init(url: TransferURL, to: String, sha256: String? = nil, size: Int64? = nil,
                refresh: RefreshMode = .never, transfer: TransferSettings? = nil) {
        self.url = url
        self.to = to
        self.sha256 = sha256
        self.size = size
        self.refresh = refresh
        // Set only when given: the setter compares with the defaults, costly for every job.
        if let transfer { self.transfer = transfer }
    }

    /// True when the destination is a folder and the file name comes from the response.
    public var namesFileAtRunTime: Bool { Self.namesFileAtRunTime(to: to) }

    /// True when a download to `to` names its file from the response.
    public static func namesFileAtRunTime(to: String) -> Bool { to.isEmpty || to.hasSuffix("/") }

    /// Where the bytes go until the file is verified and renamed into place: beside the
    /// destination, in the same folder (so the rename is atomic). A folder destination has
    /// no name yet, so its partial is named after the job. A name too long for an added
    /// suffix is shortened (`PathText.sibling`).
    public func partialPath(jobID: String) -> String {
        PathText.sibling(of: namesFileAtRunTime ? to + ".\(jobID)" : to, suffix: PathText.partialSuffix)
    }
}

/// What a re-run does with a download that already finished.
public enum RefreshMode: String, Sendable, CaseIterable {
    /// Keep the finished file (default).
    case never
    /// Ask the server with `If-None-Match` / `If-Modified-Since`; 304 keeps the file.
    case conditional
    /// Download again every run.
    case always
}
