#if canImport(Glibc)
import Glibc
#endif

/// Whether stderr is a terminal, and how wide it is (for the live display).
enum Terminal {
    static func isTerminal(fileDescriptor fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Columns from the terminal, else `COLUMNS`, else 80.
    static func width(fileDescriptor fd: Int32) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
        return 80
    }
}
