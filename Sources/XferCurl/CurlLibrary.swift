internal import CCurl

/// Process-wide facts about the libcurl this binary links, and its one-time initialisation.
///
/// `curl_global_init` is not thread-safe and must run exactly once before any handle
/// exists; a `static let` gives exactly-once semantics under Swift's lazy globals.
public enum CurlLibrary {
    /// libcurl's version string, e.g. `7.88.1`.
    public static var version: String {
        guard let info = xb_version_info(), let v = info.pointee.version else {
            return "unknown"
        }
        return String(cString: v)
    }

    /// The full `curl_version()` line: libcurl, its TLS backend and compression libraries.
    public static var details: String {
        guard let line = curl_version() else { return "unknown" }
        return String(cString: line)
    }

    /// Protocols this libcurl was built with (lower case, e.g. `https`, `sftp`).
    public static var protocols: [String] {
        guard let info = xb_version_info(), var p = info.pointee.protocols else { return [] }
        var names: [String] = []
        while let name = p.pointee {
            names.append(String(cString: name))
            p += 1
        }
        return names
    }

    /// Initialises libcurl once per process; every later call returns the first result.
    /// The heap is set up for its receive buffers first (see `ReceiveBufferMemory`).
    static let initialisation: CURLcode = {
        ReceiveBufferMemory.keepInHeap()
        return curl_global_init(Int(CURL_GLOBAL_ALL))
    }()
}
