import Crypto

extension FileDigest {
    /// SHA-256 of a download's body computed as the engine writes it
    /// (`TransferRequest.onBodyWritten`), for bodies too small for a `Follower`.
    ///
    /// Reading a small file back to hash it costs more than the hashing: an open, two
    /// reads, a close and a copy per file. Measured in a scratch build of the engine
    /// bench, reading back and hashing 2,000 files of 16 KiB added 66 ms of CPU; hashing
    /// those 31 MiB alone takes about 21 ms at the rate bench/big-cpu shows. Large bodies
    /// are hashed on the follower's thread instead, to keep the shared loop free: `stop()`
    /// turns this off.
    ///
    /// Only for a download from byte 0. `finish(length:)` gives a digest only when
    /// exactly `length` bytes were hashed; otherwise the caller reads the file.
    final class Inline: @unchecked Sendable {
        // @unchecked: `update` and `stop` run on the engine's loop thread, one after the
        // other, while the transfer runs; `finish` runs in the awaiting task after
        // `perform` returned, which the continuation orders after them.
        private var hasher = SHA256()
        private var hashed: Int64 = 0
        private var stopped = false

        func update(_ bytes: UnsafeRawBufferPointer) {
            guard !stopped else { return }
            hasher.update(bufferPointer: bytes)
            hashed += Int64(bytes.count)
        }

        func stop() { stopped = true }

        func finish(length: Int64) -> String? {
            stopped || hashed != length ? nil : hex(hasher.finalize())
        }
    }
}
