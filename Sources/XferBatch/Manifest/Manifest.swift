/// A batch of transfers as the user wrote it (manifest format version 1), after decoding.
///
/// Strings are already `${VAR}`-expanded and URLs normalised; paths are still as
/// written (relative to the manifest's folder or `outputDir`): the `Planner` resolves them.
/// Secrets never appear here, only the names of the environment variables holding them.
public struct Manifest: Sendable {
    /// The only format version this build understands.
    public static let supportedVersion = 1

    public var version: Int
    public var name: String?
    /// Where downloads land, relative to the manifest's folder unless absolute. Default `.`.
    public var outputDir: String
    /// Transfer settings every job inherits, key by key.
    public var defaults: TransferSettings
    public var limits: Limits
    public var jobs: [Job]

    public init(version: Int = Manifest.supportedVersion, name: String? = nil, outputDir: String = ".",
                defaults: TransferSettings = TransferSettings(), limits: Limits = Limits(), jobs: [Job] = []) {
        self.version = version
        self.name = name
        self.outputDir = outputDir
        self.defaults = defaults
        self.limits = limits
        self.jobs = jobs
    }
}
