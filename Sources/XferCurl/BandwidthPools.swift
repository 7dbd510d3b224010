/// The transfers running under each shared cap (see `SharedBandwidth`), and the split of
/// each cap over them. Used by the engine's loop thread only.
struct BandwidthPools {
    private var members: [ObjectIdentifier: [UInt64: EasyTransfer]] = [:]

    /// Counts `transfer` under its cap, if it has one, and splits the cap again.
    mutating func join(_ transfer: EasyTransfer) {
        guard let bandwidth = transfer.request.options.bandwidth else { return }
        members[ObjectIdentifier(bandwidth), default: [:]][transfer.id] = transfer
        resplit(bandwidth)
    }

    /// Stops counting `transfer` (ended, failed or cancelled) and gives its share to the
    /// others under its cap.
    mutating func leave(_ transfer: EasyTransfer) {
        guard let bandwidth = transfer.request.options.bandwidth,
              members[ObjectIdentifier(bandwidth)]?.removeValue(forKey: transfer.id) != nil else { return }
        resplit(bandwidth)
    }

    /// A transfer whose new rate libcurl refuses must not go on at its old, larger share:
    /// the failure is recorded and its next progress call ends it with that failure.
    private mutating func resplit(_ bandwidth: SharedBandwidth) {
        let key = ObjectIdentifier(bandwidth)
        let running = members[key] ?? [:]
        if running.isEmpty { members.removeValue(forKey: key) }
        let share = bandwidth.share(among: running.count)
        for transfer in running.values {
            do {
                try transfer.limitRate(to: share)
            } catch {
                transfer.localFailure = transfer.localFailure ?? error
            }
        }
    }
}
