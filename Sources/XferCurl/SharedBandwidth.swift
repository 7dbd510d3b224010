import Synchronization

/// A bandwidth cap that every transfer naming it shares: the engine splits it evenly over
/// those running at the moment, and splits it again whenever one starts or ends.
///
/// Why at the moment and not over the run's transfer slots: a nightly sync whose small
/// files finish early leaves one large file running alone, and a fixed share (the cap over
/// eight slots) held it to an eighth of the cap for the rest of the run: 50 MB under
/// "5MiB/s" with two small files beside it took 28 s instead of 10.
///
/// The shares never add up to more than the cap (each is `bytesPerSecond / running`,
/// rounded down, at least 1). An even split is not a fair one: a transfer its server holds
/// below its share leaves the rest of that share unused. libcurl keeps each transfer to
/// its share in each direction (CURLOPT_MAX_RECV_SPEED_LARGE, CURLOPT_MAX_SEND_SPEED_LARGE)
/// on average, not byte by byte: a transfer's first moments run ahead (three 10 MB files
/// at a quarter of 5 MiB/s each went 5-15 % over it, fixed shares or not).
public final class SharedBandwidth: Sendable {
    /// The cap, in bytes per second in each direction; positive.
    public let bytesPerSecond: Int64
    private let split = Mutex(Split(running: 0, share: 0))

    /// How the cap is divided now: transfers sharing it, and each one's bytes per second
    /// (0 while none runs).
    public struct Split: Sendable, Equatable {
        public var running: Int
        public var share: Int64

        public init(running: Int, share: Int64) {
            self.running = running
            self.share = share
        }
    }

    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// The split as the engine last applied it.
    public var current: Split { split.withLock { $0 } }

    /// Each of `running` transfers' share; recorded as the current split. Called by the
    /// engine's thread only, as transfers start and end.
    func share(among running: Int) -> Int64 {
        let share = running > 0 ? max(1, bytesPerSecond / Int64(running)) : 0
        split.withLock { $0 = Split(running: running, share: share) }
        return share
    }
}
