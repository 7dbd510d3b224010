#if canImport(Glibc)
import Glibc
#endif

/// The transfers running under each shared cap (see `SharedBandwidth`), and how each cap
/// is divided among them. Used by the engine's loop thread only.
///
/// The division fills like water: a transfer that used well under its share over the last
/// second (its server or its network is slower) is given what it used and half as much
/// again, and the rest of the cap is split evenly among the others. Without that, one slow
/// host kept its even share unused while a fast one was held to the same share: the run
/// went at a fraction of its cap. Shares never add up to more than the cap.
struct BandwidthPools {
    /// How often the shares are measured and divided again, in nanoseconds.
    static let lookInterval: UInt64 = 1_000_000_000
    /// A transfer using less than this part of its share is limited by something else.
    static let underUse = 0.75
    /// What such a transfer is given, as a multiple of what it used: room to speed up.
    static let headroom = 1.5
    /// The least a limited transfer is given, in bytes per second.
    static let leastShare: Int64 = 16 * 1024

    private struct Member {
        let transfer: EasyTransfer
        var share: Int64 = 0
        /// What it used at the last look, when that was under its share; nil: it may take more.
        var limitedTo: Int64?
        var bytesAtLastLook: Int64 = 0
        /// Whether it was running at the last look: only then does the next look measure it.
        var seenAtLastLook = false
    }

    private struct Pool {
        let bandwidth: SharedBandwidth
        var members: [UInt64: Member] = [:]
    }

    private var pools: [ObjectIdentifier: Pool] = [:]
    private var lastLook: UInt64 = 0

    /// Counts `transfer` under its cap, if it has one, and divides the cap again.
    mutating func join(_ transfer: EasyTransfer) {
        guard let bandwidth = transfer.request.options.bandwidth else { return }
        let key = ObjectIdentifier(bandwidth)
        pools[key, default: Pool(bandwidth: bandwidth)].members[transfer.id] = Member(transfer: transfer)
        divide(key)
    }

    /// Stops counting `transfer` (ended, failed or cancelled) and gives its share to the
    /// others under its cap.
    mutating func leave(_ transfer: EasyTransfer) {
        guard let bandwidth = transfer.request.options.bandwidth else { return }
        let key = ObjectIdentifier(bandwidth)
        guard pools[key]?.members.removeValue(forKey: transfer.id) != nil else { return }
        divide(key)
        if pools[key]?.members.isEmpty == true { pools.removeValue(forKey: key) }
    }

    /// Measures what each transfer used since the last look and divides the caps again;
    /// does nothing until `lookInterval` has passed. Called on each pass of the loop.
    mutating func look() {
        guard !pools.isEmpty else { return }
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let now = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
        let elapsed = now &- lastLook
        guard elapsed >= Self.lookInterval else { return }
        let fullInterval = lastLook != 0 && elapsed < 2 * Self.lookInterval  // else a pause in the loop: measure again
        lastLook = now
        for key in Array(pools.keys) {
            for (id, member) in pools[key]?.members ?? [:] {
                let bytes = member.transfer.progress.bytesDone
                var updated = member
                updated.bytesAtLastLook = bytes
                updated.seenAtLastLook = true
                if fullInterval, member.seenAtLastLook, member.share > 0, bytes >= member.bytesAtLastLook {
                    let used = Double(bytes - member.bytesAtLastLook) * 1e9 / Double(elapsed)
                    updated.limitedTo = used < Self.underUse * Double(member.share)
                        ? max(Self.leastShare, Int64(used * Self.headroom)) : nil
                }
                pools[key]?.members[id] = updated
            }
            divide(key)
        }
    }

    /// Divides a pool's cap (see the type's comment) and hands each transfer its share. A
    /// transfer whose new rate libcurl refuses must not go on at its old share: the failure
    /// is recorded and its next progress call ends it with that failure.
    private mutating func divide(_ key: ObjectIdentifier) {
        guard var pool = pools[key] else { return }
        let shares = Self.waterFill(pool.bandwidth.bytesPerSecond, limits: pool.members.mapValues(\.limitedTo))
        for (id, share) in shares {
            guard var member = pool.members[id], member.share != share else { continue }
            member.share = share
            pool.members[id] = member
            do {
                try member.transfer.limitRate(to: share)
            } catch {
                member.transfer.localFailure = member.transfer.localFailure ?? error
            }
        }
        pools[key] = pool
        pool.bandwidth.record(shares.values.sorted(by: >))
    }

    /// Each transfer's share of `cap`: those with a limit get it when it is less than an
    /// even split of what is left, the others split the rest evenly; what no one can use
    /// is split evenly over all. Each share is at least 1; they add up to at most `cap`.
    static func waterFill(_ cap: Int64, limits: [UInt64: Int64?]) -> [UInt64: Int64] {
        guard !limits.isEmpty else { return [:] }
        var shares: [UInt64: Int64] = [:]
        var left = cap, open = limits.count
        for (id, limit) in limits.compactMap({ id, limit in limit.map { (id, $0) } }).sorted(by: { $0.1 < $1.1 }) {
            guard limit < left / Int64(open) else { break }
            shares[id] = max(1, limit)  // 0 would tell libcurl "no limit"
            left -= max(1, limit)
            open -= 1
        }
        if open > 0 {
            for id in limits.keys where shares[id] == nil { shares[id] = max(1, left / Int64(open)) }
        } else {
            let spare = left / Int64(limits.count)
            for id in limits.keys { shares[id, default: 0] += spare }
        }
        return shares
    }
}
