internal import CCurl

/// The loop's side of bandwidth caps: transfers a callback paused because their cap's
/// budget was spent (`BandwidthGate`) are un-paused once it has refilled, and the loop
/// sleeps no longer than until then.
extension TransferEngine {
    /// Un-pauses the held transfers whose budget has refilled, those held longest first;
    /// returns the milliseconds until the next one still held may go on (nil: none is held).
    ///
    /// Un-pausing hands libcurl's kept chunk to the write callback at once, which may take
    /// the budget to zero again and hold the next one: the transfers under a cap take turns
    /// by the time they were held. A refused un-pause fails the transfer (at its next
    /// progress call, which libcurl makes at least once a second).
    func releaseHeld(in active: [UInt64: EasyTransfer]) -> Int32? {
        var held: [(since: UInt64, transfer: EasyTransfer)] = []
        for transfer in active.values {
            if let since = transfer.gate?.heldSince { held.append((since, transfer)) }
        }
        guard !held.isEmpty else { return nil }
        var wait: UInt64?
        for (_, transfer) in held.sorted(by: { $0.since < $1.since }) {
            guard let gate = transfer.gate, let handle = transfer.handle else { continue }
            // Read for each: the transfers released before this one took from the budget.
            let now = TokenBucket.now()
            let due = gate.nanosUntilReady(at: now)
            if due > 0 {
                wait = min(wait ?? due, due)
                continue
            }
            gate.release()
            do {
                try transfer.check(curl.pointee.curl_easy_pause(handle, XB_CURLPAUSE_CONT), "cannot go on after a pause for the bandwidth cap")
            } catch {
                transfer.localFailure = transfer.localFailure ?? error
            }
            if gate.heldSince != nil {  // held again by the chunk libcurl handed over
                let again = gate.nanosUntilReady(at: TokenBucket.now())
                wait = min(wait ?? again, again)
            }
        }
        return wait.map { Int32(clamping: max(1, ($0 + 999_999) / 1_000_000)) }
    }
}
