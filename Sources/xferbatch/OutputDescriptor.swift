import Foundation
import Synchronization

/// A descriptor the run writes its output to (stdout, stderr, an `--events` file), each
/// call one `write(2)` where the kernel takes it whole, continued after a partial write
/// or `EINTR`; dropped after its first failed write.
///
/// A reader may go away before the run ends (`| head`, a FIFO's reader, a CI log
/// streamer) and a disk may fill: Foundation's `FileHandle.write` traps on the `EPIPE` or
/// `ENOSPC` that follows, ending the run mid-transfer without its state, report or exit
/// status. Here the run finishes; only the lines nobody could read are lost, and
/// `onFailure` (once) can say so.
final class OutputDescriptor: Sendable {
    let descriptor: Int32
    private let gone = Atomic<Bool>(false)
    private let onFailure: @Sendable (Int32) -> Void

    init(_ descriptor: Int32, onFailure: @escaping @Sendable (_ errno: Int32) -> Void = { _ in }) {
        self.descriptor = descriptor
        self.onFailure = onFailure
    }

    /// Opens `path` for writing as a shell's `>` does: created or truncated, through any
    /// symbolic link, and a device or FIFO (`/dev/stdout`, `/dev/null`) written as it is,
    /// never replaced by a file. Nil, with `errno` set, when it cannot be opened.
    static func open(_ path: String, onFailure: @escaping @Sendable (_ errno: Int32) -> Void) -> OutputDescriptor? {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        return fd < 0 ? nil : OutputDescriptor(fd, onFailure: onFailure)
    }

    /// Whether a write failed (and later ones were dropped).
    var failed: Bool { gone.load(ordering: .relaxed) }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !gone.load(ordering: .relaxed), var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let failure = written < 0 ? errno : ENOSPC
                if !gone.exchange(true, ordering: .relaxed) { onFailure(failure) }
                return
            }
            next += written
            left -= written
        }
    }
}
