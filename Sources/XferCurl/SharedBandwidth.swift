import Synchronization

/// A bandwidth cap that every transfer naming it shares, in each direction: the bytes all
/// of them receive together, and those they send together, each keep to it.
///
/// Each chunk a transfer receives or sends is taken from the cap's `TokenBucket` for its
/// direction; when the budget is spent, the transfer is paused (libcurl keeps the chunk)
/// and the engine's loop lets it go on once the budget refills (`BandwidthGate`). The cap
/// is thereby divided among the transfers running at each moment by what each can use: a
/// transfer its server holds back takes what it gets, the others share the rest, and a
/// large file left alone gets all of it (a share fixed over the run's slots held one to an
/// eighth of the cap). Paused transfers go on in the order they were paused, so that
/// those under the cap take turns.
///
/// `file:` transfers are local copies and are not held to it.
public final class SharedBandwidth: Sendable {
    /// The cap, in bytes per second in each direction; positive.
    public let bytesPerSecond: Int64
    private let buckets: Mutex<(receive: TokenBucket, send: TokenBucket)>

    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        let now = TokenBucket.now()
        buckets = Mutex((TokenBucket(rate: self.bytesPerSecond, at: now), TokenBucket(rate: self.bytesPerSecond, at: now)))
    }

    /// Takes a received chunk of `bytes`; false (nothing taken) while the budget is spent.
    func takeReceived(_ bytes: Int, at now: UInt64) -> Bool {
        buckets.withLock { $0.receive.take(bytes, at: now) }
    }

    /// Whether a transfer may send now (the chunk is charged once read: `chargeSent`).
    func maySend(at now: UInt64) -> Bool {
        buckets.withLock { $0.send.hasBytes(at: now) }
    }

    /// Charges `bytes` a transfer has just read to send.
    func chargeSent(_ bytes: Int) {
        buckets.withLock { $0.send.charge(bytes) }
    }

    /// Nanoseconds from `now` until a transfer paused in the given direction may go on.
    func nanosUntilReady(sending: Bool, at now: UInt64) -> UInt64 {
        buckets.withLock { sending ? $0.send.nanosUntilReady(at: now) : $0.receive.nanosUntilReady(at: now) }
    }
}
