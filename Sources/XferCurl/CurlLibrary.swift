internal import CCurl
import XferThreads

/// libcurl, loaded and initialised once per process, and facts about it.
///
/// Loaded at run time, not linked: libcurl brings some thirty libraries (OpenSSL, GnuTLS
/// through librtmp, Kerberos, LDAP, libssh2...), which the dynamic loader used to map and
/// relocate before `main` in every command: a C program printing libcurl's version starts
/// in 9.4 ms here, a Swift program printing a line in 3.2 (`perf stat -r 60`). Now a
/// command that transfers nothing (`validate`, `status`, `plan` without `--probe`) never
/// loads it, and `run` loads it on a thread of its own while the main thread reads the
/// manifest (`initialiseInBackground`).
///
/// The functions are looked up once into a table (`xb_curl_functions` in `shim.h`) whose
/// field types are libcurl's own declarations, so each call through it is type-checked as
/// a direct call would be. `curl_global_init` is not thread-safe and must run exactly once
/// before any handle exists; a `static let` gives exactly-once semantics under Swift's lazy
/// globals.
public enum CurlLibrary {
    /// The file the loader looks for: the soname of libcurl 7 and 8 (the headers' ABI).
    static let soname = "libcurl.so.4"

    /// libcurl's version string, e.g. `7.88.1` (loading libcurl), or why it cannot be loaded.
    public static var version: String {
        switch initialisation {
        case .failure(let error): return "not loaded: \(error.message)"
        case .success(let lib):
            guard let info = xb_version_info(lib.table), let v = info.pointee.version else { return "unknown" }
            return String(cString: v)
        }
    }

    /// Starts libcurl's one-time initialisation on a thread of its own and returns at once.
    ///
    /// Why: loading libcurl and its libraries takes about 6 ms, and `curl_global_init` sets
    /// up the TLS library (OpenSSL reads its configuration file), about 1.5 ms more. A
    /// command calls this first, so that the work is done on the second processor while the
    /// main thread reads the manifest; the first `TransferEngine` then finds it done, or
    /// waits for it (`initialisation` is a `static let`: run once, and every other reader
    /// blocks until it is). Safe beside the reading because nothing else in the process
    /// uses libcurl or OpenSSL until then.
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

    /// Loads and initialises libcurl once per process; every later call returns the first
    /// result. The heap is set up for its receive buffers first (see `ReceiveBufferMemory`).
    static let initialisation: Result<CurlFunctions, TransferError> = {
        let lib: CurlFunctions
        switch CurlFunctions.load(soname) {
        case .failure(let error): return .failure(error)
        case .success(let loaded): lib = loaded
        }
        ReceiveBufferMemory.keepInHeap()
        let code = lib.table.pointee.curl_global_init(Int(CURL_GLOBAL_ALL))
        guard code == CURLE_OK else {
            return .failure(TransferError(kind: .local, code: TransferError.name(of: code), message: "curl_global_init failed"))
        }
        return .success(lib)
    }()
}
