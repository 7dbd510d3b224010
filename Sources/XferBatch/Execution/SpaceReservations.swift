import Foundation
import Synchronization

/// The disk space downloads under way still need, so that several large downloads started
/// together cannot promise one disk more than it has.
///
/// Each one checked alone, four 10 GiB downloads onto a disk with 25 GiB free would all
/// start, fill it and fail with ENOSPC, keeping partials that leave it full. Here a
/// download of known size (the manifest's `size`, or the response's Content-Length) is
/// admitted only if the free space, less what the others admitted on that file system
/// still have to write, holds what it has to write; otherwise it fails at once.
///
/// What a download still has to write is its size less its partial file's length now, so
/// the bytes it has written (already gone from the free space) are not counted twice.
final class SpaceReservations: Sendable {
    private struct Entry {
        var device: UInt64
        var partial: String
        /// The finished file's size in bytes.
        var total: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// How many there are, read without the lock: most downloads (small, of unknown size)
    /// admit nothing, and their release then costs one atomic load.
    private let count = Atomic<Int>(0)

    /// Admits `job`, whose partial `partial` in `folder` will hold `total` bytes when done
    /// (replacing any earlier admission of it); returns why not, in words, when the disk
    /// cannot hold it beside the others. `written`: the bytes on the disk for it already
    /// (its partial's length, or the space emptying it will free).
    func admit(_ job: String, partial: String, total: Int64, written: Int64, folder: String, for destination: String) -> String? {
        guard let (device, free) = DiskSpace.fileSystem(of: folder) else { return nil }
        let needs = total - written
        return entries.withLock { entries in
            var promised: Int64 = 0
            for (id, e) in entries where id != job && e.device == device {
                promised += max(0, e.total - (DownloadStart.size(of: e.partial) ?? 0))
            }
            if needs > 0, free - promised < needs {
                let others = promised > 0 ? " (\(ByteSize.format(promised)) of it promised to downloads under way)" : ""
                let (needed, available) = ByteSize.format(needs, beside: free)
                return "\(destination) needs \(needed) more, but only \(available) is free there\(others)"
            }
            if entries.updateValue(Entry(device: device, partial: partial, total: total), forKey: job) == nil {
                count.add(1, ordering: .relaxed)
            }
            return nil
        }
    }

    /// Forgets `job`'s admission: it ended, its bytes are on the disk or gone.
    func release(_ job: String) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        entries.withLock { entries in
            if entries.removeValue(forKey: job) != nil { count.subtract(1, ordering: .relaxed) }
        }
    }
}
