import Dispatch
import Foundation
import Synchronization
import XferBatch

/// SIGINT, SIGTERM and SIGHUP: the first calls `stop` (the run winds down and reports); a
/// second SIGINT exits at once with 130.
///
/// SIGHUP (the terminal or SSH session closed) used to end a run on the spot, like a
/// `kill -9`: safe, but without its report. It is handled only when the run did not
/// inherit it ignored: under `nohup` it stays ignored and the run goes on.
///
/// At once means `_exit`, as a `kill -9` would: no exit handlers. `exit` would tear
/// OpenSSL down while the transfer thread may be inside it (a TLS or SSH transfer under
/// way), which crashes with signal 11 instead of the documented 130. Nothing is lost by
/// skipping them: output is unbuffered and the state database is safe against a kill.
///
/// @unchecked: the dispatch sources are set once in `init` and only kept alive after.
final class InterruptHandler: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let last = Atomic<Int32>(0)

    /// The first signal received, or 0.
    var received: Int32 { last.load(ordering: .acquiring) }

    init(stop: @escaping @Sendable () -> Void) {
        var handled: [Int32] = []
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            // `signal` answers the disposition it replaces: SIG_IGN (1) is nohup's.
            let inherited = signal(sig, SIG_IGN)
            if sig == SIGHUP, unsafeBitCast(inherited, to: Int.self) == 1 { continue }
            handled.append(sig)
            sources.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
        }
        self.sources = sources
        for (sig, source) in zip(handled, sources) {
            source.setEventHandler { [self] in
                let (exchanged, previous) = self.last.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing)
                if exchanged {
                    StandardStreams.writeError("\nxferbatch: stopping (\(Self.name(of: sig))): cancelling transfers; press Ctrl-C again to quit at once\n")
                    stop()
                } else if sig == SIGINT || previous == SIGINT {
                    _exit(ExitStatus.interrupted.rawValue)
                }
            }
            source.resume()
        }
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// The exit status of a run that `signal` stopped.
    static func exitStatus(for signal: Int32) -> ExitStatus {
        switch signal {
        case SIGTERM: .terminated
        case SIGHUP: .hungUp
        default: .interrupted
        }
    }
}
