#if canImport(Glibc)
import Glibc
#endif

/// Whether stderr is a terminal the live display can draw on, and how wide it is.
enum Terminal {
    /// Whether the live display can redraw itself on `fd`: a terminal whose `TERM` is not
    /// `dumb`. A dumb terminal (Emacs' shell, some CI consoles) cannot move the cursor, so
    /// every redraw would pile up as escape codes; it gets the plain log lines instead.
    static func canRedraw(fileDescriptor fd: Int32, environment: [String: String]) -> Bool {
        isatty(fd) == 1 && environment["TERM"] != "dumb"
    }

    /// Columns from the terminal, else `COLUMNS`, else 80.
    static func width(fileDescriptor fd: Int32) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
        return 80
    }
}
