#if canImport(Glibc)
import Glibc
#endif

/// A byte budget that refills at a steady rate: what keeps transfers under a bandwidth cap.
///
/// Bytes are taken as they arrive or leave, a chunk at a time. A chunk is taken whole
/// while the budget is above zero, even if it leaves the budget in debt; then nothing more
/// is taken until the refill has paid the debt back. Over any span of time, then, what
/// goes through is at most `rate` times the span, plus `capacity`, plus one chunk per
/// transfer: a cap of a few MB/s holds to the percent over a few seconds, small files
/// included (each one's first chunk counts like any other).
///
/// Why not libcurl's own limit (CURLOPT_MAX_RECV_SPEED_LARGE): it paces each transfer
/// from its own start and lets its first pass over the socket through unpaced, up to 100
/// reads of the receive buffer. A 7.6 MiB download limited to 2 MB/s took 3.31 s instead
/// of 4, and 2,000 files of 16 KiB "limited" to 4 MB/s together went at 121 MB/s.
///
/// Times are monotonic nanoseconds (`now()`), passed in so that tests choose them.
struct TokenBucket {
    /// Bytes per second; positive.
    let rate: Int64
    /// The most the budget holds, in bytes: how far ahead of the rate a quiet cap may let
    /// the next bytes through at once.
    let capacity: Int64
    /// The budget now, in bytes; negative while in debt.
    private(set) var tokens: Double
    private var updated: UInt64

    /// A cap's budget: a twentieth of a second's worth (50 ms), at least one 16 KiB chunk.
    init(rate: Int64, at now: UInt64) {
        self.rate = max(1, rate)
        self.capacity = max(Self.leastCapacity, self.rate / 20)
        self.tokens = Double(capacity)
        self.updated = now
    }

    /// The smallest budget, in bytes: the smallest chunk of a capped transfer.
    static let leastCapacity: Int64 = 16 * 1024

    /// Takes `bytes` if the budget is above zero (true), else takes nothing (false).
    mutating func take(_ bytes: Int, at now: UInt64) -> Bool {
        guard hasBytes(at: now) else { return false }
        tokens -= Double(bytes)
        return true
    }

    /// Whether the budget is above zero, after the refill due at `now`.
    mutating func hasBytes(at now: UInt64) -> Bool {
        refill(at: now)
        return tokens > 0
    }

    /// Takes `bytes` that already went through (a read sized by what the file gave).
    mutating func charge(_ bytes: Int) {
        tokens -= Double(bytes)
    }

    /// Nanoseconds from `now` until the budget is above zero again; 0 when it is already.
    /// A `now` before the last take (read earlier on the same thread) counts as no time.
    func nanosUntilReady(at now: UInt64) -> UInt64 {
        let elapsed = now > updated ? Double(now - updated) / 1e9 : 0
        let due = tokens + elapsed * Double(rate)
        guard due <= 0 else { return 0 }
        return UInt64((-due / Double(rate) * 1e9).rounded(.up)) + 1
    }

    private mutating func refill(at now: UInt64) {
        guard now > updated else { return }
        tokens = min(Double(capacity), tokens + Double(now - updated) / 1e9 * Double(rate))
        updated = now
    }

    /// Monotonic nanoseconds (CLOCK_MONOTONIC).
    static func now() -> UInt64 {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        return UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
    }
}
