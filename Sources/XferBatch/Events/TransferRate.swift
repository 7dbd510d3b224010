/// A speed as people want to read it: bytes per second over the last few seconds, from
/// samples of a byte count taken at each redraw.
///
/// Why a window and not a running average of each redraw's instant speed: data arrives in
/// bursts (a bandwidth cap lets a chunk through, then pauses; servers and TCP do the
/// same), and an average that forgot three tenths a redraw swung between 3.5 and 7.2 MiB/s
/// for a transfer held to 5, with its ETA swinging 5 s to 10 s. Over `window`, the bursts
/// even out; the speed still follows a real change within a few seconds.
struct TransferRate {
    /// How far back the speed looks.
    static let window: Duration = .seconds(3)

    /// Oldest first. The first sample is the newest one at least `window` old, once there
    /// is one: the speed then covers the whole window.
    private var samples: [(bytes: Int64, at: Duration)] = []

    /// Records the count `bytes` at `now`. A count that went down (an attempt that started
    /// again from zero) starts the samples afresh.
    mutating func record(_ bytes: Int64, at now: Duration) {
        if let last = samples.last, bytes < last.bytes || now < last.at { samples.removeAll() }
        samples.append((bytes, now))
        let cutoff = now - Self.window
        var drop = 0
        while drop + 1 < samples.count, samples[drop + 1].at <= cutoff { drop += 1 }
        samples.removeFirst(drop)
    }

    /// Bytes per second between the oldest sample kept and the newest; 0 until time has
    /// passed between two samples.
    var bytesPerSecond: Double {
        guard let first = samples.first, let last = samples.last, last.at > first.at else { return 0 }
        let (seconds, attoseconds) = (last.at - first.at).components
        return Double(last.bytes - first.bytes) / (Double(seconds) + Double(attoseconds) / 1e18)
    }
}
