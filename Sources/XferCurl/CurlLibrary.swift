internal import CCurl
import XferThreads

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

    /// Starts libcurl's one-time initialisation on a thread of its own and returns at once.
    ///
    /// Why: `curl_global_init` sets up the TLS library (OpenSSL reads its configuration
    /// file), about 1.5 ms before the first transfer. A command calls this first, so that the
    /// work is done on the second processor while the main thread reads the manifest; the
    /// first `TransferEngine` then finds it done, or waits for it (`initialisation` is a
    /// `static let`: run once, and every other reader blocks until it is). Safe beside the
    /// reading because nothing else in the process uses libcurl or OpenSSL until then.
    ///
    /// The caller must call `finishInitialisation()` before the process can exit: OpenSSL's
    /// exit handler, run by `exit`, would otherwise free its state beside the thread still
    /// setting it up (a manifest error found in the first millisecond exits that soon).
    public static func initialiseInBackground() {
        NamedThread.start("xb-curl-init") { _ = initialisation }
    }

    /// Returns once libcurl's one-time initialisation is done (running it here if nothing
    /// started it).
    public static func finishInitialisation() {
        _ = initialisation
    }

    /// Initialises libcurl once per process; every later call returns the first result.
    /// The heap is set up for its receive buffers first (see `ReceiveBufferMemory`).
    static let initialisation: CURLcode = {
        ReceiveBufferMemory.keepInHeap()
        return curl_global_init(Int(CURL_GLOBAL_ALL))
    }()
}
