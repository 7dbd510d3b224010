import Dispatch
import Foundation
import Synchronization
import XferBatch

/// SIGINT and SIGTERM: the first calls `stop` (the run winds down and reports); a second
/// SIGINT exits at once with 130.
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
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for (sig, source) in zip([SIGINT, SIGTERM], sources) {
            source.setEventHandler { [self] in
                let (exchanged, previous) = self.last.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing)
                if exchanged {
                    StandardStreams.writeError("\nxferbatch: stopping (\(sig == SIGINT ? "SIGINT" : "SIGTERM")): cancelling transfers; press Ctrl-C again to quit at once\n")
                    stop()
                } else if sig == SIGINT || previous == SIGINT {
                    _exit(ExitStatus.interrupted.rawValue)
                }
            }
            source.resume()
        }
    }
}
