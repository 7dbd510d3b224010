/// One transfer's way through its `SharedBandwidth`: the write callback (and an upload's
/// read callback) asks it before taking a chunk, and a chunk the cap cannot take now
/// pauses the transfer until the engine's loop releases it (`TransferEngine+Bandwidth`).
///
/// Thread confinement: the engine's loop thread (callbacks run there), as its transfer.
final class BandwidthGate {
    let cap: SharedBandwidth
    /// Paused for the cap, and since when (monotonic nanoseconds): the loop releases
    /// those paused longest first. nil while the transfer runs.
    private(set) var heldSince: UInt64?
    /// Which budget it waits for.
    private(set) var heldForSending = false

    init(cap: SharedBandwidth) {
        self.cap = cap
    }

    /// Whether a received chunk of `bytes` may be taken now; if not, the transfer is held
    /// and the write callback answers CURL_WRITEFUNC_PAUSE (libcurl delivers the chunk
    /// again once released).
    func admitsReceived(_ bytes: Int) -> Bool {
        let now = TokenBucket.now()
        if cap.takeReceived(bytes, at: now) { return true }
        hold(at: now, sending: false)
        return false
    }

    /// Whether the read callback may read a chunk to send now; if not, the transfer is
    /// held and the callback answers CURL_READFUNC_PAUSE. What it reads is then charged
    /// with `sent`.
    func admitsSending() -> Bool {
        let now = TokenBucket.now()
        if cap.maySend(at: now) { return true }
        hold(at: now, sending: true)
        return false
    }

    func sent(_ bytes: Int) { cap.chargeSent(bytes) }

    /// Nanoseconds until a held transfer may go on (0: now).
    func nanosUntilReady(at now: UInt64) -> UInt64 {
        cap.nanosUntilReady(sending: heldForSending, at: now)
    }

    /// The loop un-paused it.
    func release() { heldSince = nil }

    private func hold(at now: UInt64, sending: Bool) {
        if heldSince == nil { heldSince = now }
        heldForSending = sending
    }
}
