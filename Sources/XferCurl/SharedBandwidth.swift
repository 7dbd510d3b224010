import Synchronization

/// A bandwidth cap that every transfer naming it shares: the engine divides it among those
/// running at the moment, again whenever one starts or ends, and each second by what each
/// one could use (see `BandwidthPools`).
///
/// Why at the moment and not over the run's transfer slots: a nightly sync whose small
/// files finish early leaves one large file running alone, and a fixed share (the cap over
/// eight slots) held it to an eighth of the cap for the rest of the run: 50 MB under
/// "5MiB/s" with two small files beside it took 28 s instead of 10.
///
/// The shares never add up to more than the cap. libcurl keeps each transfer to
/// its share in each direction (CURLOPT_MAX_RECV_SPEED_LARGE, CURLOPT_MAX_SEND_SPEED_LARGE)
/// on average, not byte by byte: a transfer's first moments run ahead (three 10 MB files
/// at a quarter of 5 MiB/s each went 5-15 % over it, fixed shares or not).
public final class SharedBandwidth: Sendable {
    /// The cap, in bytes per second in each direction; positive.
    public let bytesPerSecond: Int64
    private let split = Mutex<[Int64]>([])

    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// Each running transfer's share now, in bytes per second, largest first (empty while
    /// none runs): what the engine last applied.
    public var shares: [Int64] { split.withLock { $0 } }

    /// Called by the engine's thread only, as it divides the cap.
    func record(_ shares: [Int64]) {
        split.withLock { $0 = shares }
    }
}
