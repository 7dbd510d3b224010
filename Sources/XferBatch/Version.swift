/// This build's version, shown by `--version` and sent as `User-Agent: xferbatch/<version>`.
public enum XferBatchVersion {
    public static let current = "0.1.0"
}
