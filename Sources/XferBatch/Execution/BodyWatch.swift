import Synchronization
import XferCurl

/// How a download's body is followed as it arrives, so that neither hashing nor
/// checkpointing needs a second pass: hashed as it is written (a small body from byte 0)
/// or by a follower reading the partial on a thread of its own (a large one), and, once
/// the response shows it resumable, recorded with its validators and flushed periodically.
///
/// Made for one attempt, before its request; the response handler (on the engine's
/// thread) fills the slots, the attempt's task reads them once the transfer ended.
///
/// The slots are `Mutex`es of concrete types, not a generic box class: such a class's
/// deinit looks its field's metadata up at run time, about 1,200 instructions a slot, three
/// slots for each download.
final class BodyWatch: Sendable {
    /// The chunks the engine has written, which a follower hashes behind it.
    let written = WrittenChunks()
    /// SHA-256 of a body written from byte 0, until a follower takes over (`stop()`).
    let inline: FileDigest.Inline?
    let follower = Mutex<FileDigest.Follower?>(nil)
    /// The record saved at the response of a resumable body, which the flusher updates.
    let resumable = Mutex<JobCheckpoint?>(nil)
    /// Flushes a resumable partial every `durableInterval` (`flushPeriodically`); the
    /// attempt stops it (`JobRunner.stop`) before it closes the partial.
    let flusher = Mutex<Task<Void, Never>?>(nil)

    init(fromByteZero: Bool) {
        inline = fromByteZero ? FileDigest.Inline() : nil
    }
}
