#if canImport(Glibc)
import Glibc
#endif

/// Runs libarchive work with the calling thread's character set as UTF-8, so that entry
/// names outside ASCII can be converted.
///
/// Why: a Swift program never calls `setlocale`, so its threads run in the "C" locale,
/// whose character set is ASCII, whatever `LANG` says. libarchive converts each entry's
/// name through that character set; `résumé.pdf` could not be converted, its tar writer
/// then read a name that was not there, and the run died of SIGSEGV (exit status 139, on
/// every run after, since the job never ended). `uselocale` changes the calling thread
/// only, for the duration of `body`; libarchive learns the character set when an archive
/// object first converts a name, so the whole life of the archive object goes inside.
enum UTF8Names {
    /// C.UTF-8: in glibc itself since 2.35, so present on any current Debian. Created once,
    /// never freed, never changed: safe to share between threads.
    nonisolated(unsafe) private static let locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// False where the C.UTF-8 locale is missing: names outside ASCII are then refused
    /// (see `ArchiveWriter`) rather than handed to libarchive.
    static var available: Bool { locale != nil }

    static func with<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let locale else { return try body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return try body()
    }
}
