internal import CCurl

/// Keeps the memory of libcurl's receive buffers in the process's heap between transfers.
///
/// Why: libcurl allocates each transfer's receive buffer (`EasyTransfer.receiveBufferSize`,
/// 512 KiB) when the transfer starts and frees it when it ends. glibc serves a block that
/// large with `mmap` and gives it back to the kernel on `free` (or, once its threshold has
/// risen, trims the heap top it freed), so every transfer received into fresh pages: a
/// page fault, and a zeroed page, per 4 KiB it touched. For 2,000 files of 16 KiB that was
/// 8,900 page faults where curl's tool takes 900 (`perf stat -e page-faults`), and about a
/// tenth of the run's CPU time. With blocks up to 1 MiB taken from the heap, and up to
/// 64 MiB of freed heap kept before it is trimmed, the next transfer reuses the last one's
/// pages: 3,400 faults, 9 % less CPU (`bench/run-cpu`).
///
/// What it costs: freed memory stays mapped, at most 64 MiB beyond what is in use (the
/// buffers of the run's busiest moment, 512 KiB per transfer under way). The settings are
/// glibc's, process-wide, made once with libcurl's own initialisation; elsewhere nothing
/// changes.
enum ReceiveBufferMemory {
    /// Blocks up to this size come from the heap, not from `mmap`, in bytes.
    static let heapBlockLimit: Int32 = 1 << 20
    /// Freed memory at the heap's top kept before it goes back to the kernel, in bytes.
    static let keptWhenFreed: Int32 = 64 << 20

    /// Applies the two settings; false if glibc refused either.
    @discardableResult
    static func keepInHeap() -> Bool {
        mallopt(M_MMAP_THRESHOLD, heapBlockLimit) == 1 && mallopt(M_TRIM_THRESHOLD, keptWhenFreed) == 1
    }
}
