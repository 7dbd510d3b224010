internal import CArchive

/// libarchive's functions, looked up the first time an archive is read or written.
///
/// Why the binary does not link libarchive: the library brings eleven of its own (libxml2
/// and ICU among them), which the dynamic loader mapped and relocated before `main` in
/// every command, archives or not. (A C program printing libcurl's version starts in
/// 9.4 ms, one linking libarchive as well in 13.1 ms, `perf stat -r 60`; a build linking
/// it took 1.05 to 1.09 times the wall time of short commands, `bench/start-up`.) Loaded
/// here on demand, a run without archive or extract jobs never pays that, and a machine
/// without libarchive still runs every other job (an archive job then fails, saying why).
///
/// The table's field types are libarchive's own declarations (`__typeof__` in `shim.h`),
/// so a call through it is checked as a direct call would be. Every function XferArchive
/// calls is listed there (`XB_ARCHIVE_FUNCTIONS`); a direct call would not link.
enum LibArchive {
    /// The file the loader looks for: the soname of libarchive 3 (the headers' version).
    static let soname = "libarchive.so.13"

    /// The loaded table, or why it could not be loaded. A global's initialiser runs once,
    /// on first use, whichever thread gets there first; the library then stays loaded and
    /// the table is never freed.
    private static let loaded: Result<xb_archive_functions, ArchiveError> = load(soname)

    /// libarchive's functions; the first call loads the library.
    static func functions() throws(ArchiveError) -> xb_archive_functions {
        try loaded.get()
    }

    /// Loads `soname` and looks up the table's functions.
    static func load(_ soname: String) -> Result<xb_archive_functions, ArchiveError> {
        var failure: UnsafePointer<CChar>?
        var missing: UnsafePointer<CChar>?
        guard let table = xb_archive_load(soname, &failure, &missing) else {
            let reason = missing.map { "it has no function \(String(cString: $0))" } ?? failure.map { String(cString: $0) } ?? "unknown reason"
            return .failure(ArchiveError(code: ArchiveError.fatal, message: "cannot load libarchive (\(soname)): \(reason)"))
        }
        return .success(table.pointee)
    }
}
