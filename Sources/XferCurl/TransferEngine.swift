internal import CCurl
import Foundation
import Logging
import Synchronization
import XferThreads

/// Runs transfers on libcurl's multi interface: one `CURLM`, one thread that owns it.
///
/// Callers `await perform(_:progress:)` from any task; the request goes into a locked
/// inbox and `curl_multi_wakeup` interrupts the loop's `curl_multi_poll`. Only the loop
/// thread touches libcurl handles, so callbacks need no locks. Connections (and TLS
/// sessions) are reused across transfers to the same host by the multi handle's pool,
/// and HTTP/2 streams are multiplexed where a server offers it.
///
/// Cancelling the awaiting task removes the transfer from the multi handle promptly (the
/// loop wakes at once) and leaves bytes already written where they are.
///
/// The loop thread is also a `TaskExecutor` (`TransferEngine+TaskExecutor.swift`): tasks
/// that prefer it run between libcurl calls, as curl's own tool does its bookkeeping.
public final class TransferEngine: Transport, @unchecked Sendable {
    // @unchecked: `multi`, `pools` and `handles` are used only on the loop thread, except
    // `curl_multi_wakeup`, which libcurl documents as callable from any thread. Everything
    // else is a Mutex or an Atomic.

    enum Command {
        case add(EasyTransfer)
        case cancel(UInt64)
        /// The reader of a transfer's `writtenChunks` gave a buffer back (see `EasyTransfer.waitsForReader`).
        case readerReady(UInt64)
        /// A task's job to run on the loop thread (see `TransferEngine+TaskExecutor.swift`).
        case run(UnownedJob)
        case shutdown
    }

    /// Commands for the loop thread; `closed` once the loop has ended.
    struct Inbox {
        var commands: [Command] = []
        var closed = false
    }

    /// libcurl's functions (`CurlLibrary`): loaded before any engine exists.
    let curl: UnsafePointer<xb_curl_functions>
    private let multi: UnsafeMutableRawPointer
    let inbox = Mutex(Inbox())
    private let nextID = Atomic<UInt64>(1)
    private let stopped = Atomic<Bool>(false)
    /// True while the loop sleeps (or is about to) in `curl_multi_poll`: only then does a
    /// new command need `curl_multi_wakeup` (a write to libcurl's wakeup socket).
    private let polling = Atomic<Bool>(false)
    /// Whether the loop has ended and freed the multi handle, and who waits for that.
    private let ended = Mutex(LoopEnd())
    private let logger: Logger
    /// Running transfers under a bandwidth cap; touched by the loop thread only (the loop
    /// looks for paused ones only while there are some).
    private var limitedTransfers = 0
    /// Easy handles of ended transfers, for the next ones; touched by the loop thread only.
    private var handles: EasyHandlePool

    struct LoopEnd {
        var done = false
        /// Each waiter's continuation, and the timer that gives up on the loop (cancelled
        /// when the loop ends in time, so that it does not keep the engine for `limit`).
        var waiters: [UInt64: (continuation: CheckedContinuation<Void, Never>, timer: Task<Void, Never>)] = [:]
    }

    /// Starts the engine's thread. Fails only if libcurl cannot be loaded or initialised
    /// (`CurlLibrary.initialisation`; the error says which file and why).
    ///
    /// `maxConnectionsPerHost` (0: no cap) caps the connections libcurl opens to one host
    /// (CURLMOPT_MAX_HOST_CONNECTIONS); further transfers to that host wait inside libcurl
    /// until a connection is free, then start on the loop thread without a hand-off. Over
    /// HTTP/1.1 that caps the host's transfers too; HTTP/2 multiplexes several on one.
    ///
    /// `idleConnections` is how many finished transfers' connections are kept open for
    /// reuse (CURLMOPT_MAXCONNECTS; 0 keeps all). libcurl's default, four per transfer
    /// added at that moment, shrinks whenever a batch runner's transfers briefly dip
    /// between one job and the next, and closes connections it will want again: 130
    /// connections for a 2,000-file run with 8 slots (strace), where curl's tool opens 8.
    public init(logger: Logger = Logger(label: "xferbatch.engine"), maxConnectionsPerHost: Int = 0,
                idleConnections: Int = defaultIdleConnections) throws(TransferError) {
        let curl = try CurlLibrary.initialisation.get().table
        guard let multi = curl.pointee.curl_multi_init() else {
            throw TransferError(kind: .local, code: "curl_multi_init", message: "libcurl could not create a multi handle")
        }
        self.curl = curl
        self.multi = multi
        self.handles = EasyHandlePool(curl: curl)
        self.logger = logger
        for (option, value) in [(CURLMOPT_PIPELINING, Int(XB_CURLPIPE_MULTIPLEX)), (CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost),
                               (CURLMOPT_MAXCONNECTS, idleConnections)] {
            let code = xb_multi_setopt_long(curl, multi, option, value)
            guard code == CURLM_OK else {
                _ = curl.pointee.curl_multi_cleanup(multi)
                throw TransferError(kind: .local, code: "CURLMcode \(code.rawValue)", message: curl.pointee.curl_multi_strerror(code).map { String(cString: $0) } ?? "CURLMcode \(code.rawValue)")
            }
        }
        // The thread keeps the engine alive until its loop ends (after `shutdown()`); the
        // engine keeps no reference to the thread, so there is no cycle.
        NamedThread.start("xb-curl", stackSize: 1 << 20) { [self] in runLoop() }
    }

    /// Idle connections kept by default: beyond any sensible `limits.concurrency`, and
    /// cheap (one socket each).
    public static let defaultIdleConnections = 64

    public func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome {
        if request.url.utf8.prefix(5).map({ $0 | 0x20 }).elementsEqual("data:".utf8) {
            return try DataURLTransfer.perform(request, progress: progress)
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<TransferOutcome, TransferError>, Never>) in
                let transfer = EasyTransfer(id: id, curl: curl, request: request, progress: progress, continuation: continuation)
                if stopped.load(ordering: .acquiring) || !send(.add(transfer)) {
                    transfer.complete(.failure(TransferError(kind: .cancelled, code: "engine-stopped", message: "the transfer engine has stopped")))
                }
            }
        } onCancel: {
            send(.cancel(id))
        }
        return try result.get()
    }

    /// Cancels every transfer, stops the thread and frees the multi handle; returns once
    /// that is done, or after `limit` at the latest.
    ///
    /// Why wait: freeing the multi handle closes the pooled connections, and closing a TLS
    /// or SSH connection runs OpenSSL. A process that exits meanwhile tears OpenSSL down
    /// under the loop thread (exit handlers), which then crashes: a run that had succeeded
    /// ended with signal 11, exit status 139, in 6 of 40 runs with an SFTP connection open.
    /// The limit guards against a server that never answers libssh2's goodbye (libcurl
    /// sets no timeout on closing an SSH connection): better a rare crash than a hang.
    public func shutdown(waitingAtMost limit: Duration = .seconds(10)) async {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { send(.shutdown) }
        let waiter = nextID.add(1, ordering: .relaxed).oldValue
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let timer = Task.detached { [self] in
                try? await Task.sleep(for: limit)
                guard let late = ended.withLock({ $0.waiters.removeValue(forKey: waiter) }) else { return }
                logger.info("the transfer engine did not finish closing its connections in time", metadata: ["engine.wait": "\(limit)"])
                late.continuation.resume()
            }
            let done = ended.withLock { end in
                if !end.done { end.waiters[waiter] = (continuation, timer) }
                return end.done
            }
            if done {
                timer.cancel()
                continuation.resume()
            }
        }
    }

    /// Hands `command` to the loop thread, waking it if it sleeps; false once the loop has
    /// ended. The wake-up is sent under the inbox's lock, so it never reaches a multi
    /// handle the loop has already freed.
    @discardableResult
    func send(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.commands.append(command)
            if polling.load(ordering: .sequentiallyConsistent) { _ = curl.pointee.curl_multi_wakeup(multi) }
            return true
        }
    }

    // MARK: The loop thread

    private func runLoop() {
        // Host names outside ASCII (bücher.de) are turned into their xn-- form by libidn2,
        // reading them in the thread's character set: in the "C" locale a Swift program
        // runs in, ASCII, so libcurl refused such a URL as malformed. This thread is the
        // engine's own, so it keeps C.UTF-8 (LC_CTYPE only) for its whole life.
        let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
        let previous = utf8.map { uselocale($0) }
        defer {
            if let utf8, let previous {
                uselocale(previous)
                freelocale(utf8)
            }
        }
        var active: [UInt64: EasyTransfer] = [:]
        var cancelledBeforeStart = Set<UInt64>()
        var running = true
        while running || !active.isEmpty {
            for command in inbox.withLock({ inbox in defer { inbox.commands.removeAll() }; return inbox.commands }) {
                switch command {
                case .add(let transfer):
                    if cancelledBeforeStart.remove(transfer.id) != nil || !running {
                        transfer.complete(.failure(.cancelled()))
                        continue
                    }
                    start(transfer, into: &active)
                case .cancel(let id):
                    if let transfer = active.removeValue(forKey: id) {
                        finish(transfer, with: .failure(.cancelled()))
                    } else {
                        cancelledBeforeStart.insert(id)  // its `add` is still on its way
                    }
                case .readerReady(let id):
                    active[id]?.resumeForReader()
                case .run(let job):
                    job.runSynchronously(on: asUnownedTaskExecutor())
                case .shutdown:
                    running = false
                    for transfer in active.values { finish(transfer, with: .failure(.cancelled())) }
                    active.removeAll()
                }
            }
            if !running { break }
            var stillRunning: Int32 = 0
            let performed = curl.pointee.curl_multi_perform(multi, &stillRunning)
            if performed != CURLM_OK { failAll(&active, performed) }
            collectFinished(&active)
            let bandwidthWait = limitedTransfers > 0 ? releaseHeld(in: active) : nil
            // Announce the sleep before looking at the inbox a last time: a sender either
            // sees `polling` and wakes us, or its command is seen here.
            polling.store(true, ordering: .sequentiallyConsistent)
            if inbox.withLock({ $0.commands.isEmpty }) {
                var ready: Int32 = 0
                let polled = curl.pointee.curl_multi_poll(multi, nil, 0, min(1000, bandwidthWait ?? 1000), &ready)
                if polled != CURLM_OK { failAll(&active, polled) }
            }
            polling.store(false, ordering: .sequentiallyConsistent)
        }
        closeInbox()
        handles.drain()
        _ = curl.pointee.curl_multi_cleanup(multi)
        let waiters = ended.withLock { end in
            end.done = true
            defer { end.waiters.removeAll() }
            return Array(end.waiters.values)
        }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }

    private func start(_ transfer: EasyTransfer, into active: inout [UInt64: EasyTransfer]) {
        do {
            try transfer.prepare(from: &handles)
        } catch {
            transfer.close()
            transfer.complete(.failure(error))
            return
        }
        guard let handle = transfer.handle else { return }
        let code = curl.pointee.curl_multi_add_handle(multi, handle)
        guard code == CURLM_OK else {
            transfer.close()
            transfer.complete(.failure(multiError(code)))
            return
        }
        active[transfer.id] = transfer
        if transfer.request.writtenChunks != nil { transfer.engine = self }
        if transfer.gate != nil { limitedTransfers += 1 }
        logger.trace("transfer started", metadata: ["transfer.id": "\(transfer.id)"])
    }

    private func collectFinished(_ active: inout [UInt64: EasyTransfer]) {
        var queued: Int32 = 0
        while let message = curl.pointee.curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            var context: UnsafeMutableRawPointer? = nil
            _ = xb_easy_getinfo_pointer(curl, handle, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
            let code = xb_msg_result(message)
            transfer.flushPendingWrite()  // a disk error here becomes the result
            let result: Result<TransferOutcome, TransferError>
            switch transfer.redirectTarget(after: code) {
            case .success(let target):
                guard let failure = rearm(transfer, handle, for: target) else { continue }
                result = .failure(failure)
            case .failure(let error): result = .failure(error)
            case nil: result = transfer.result(for: code)
            }
            active.removeValue(forKey: transfer.id)
            finish(transfer, with: result)
        }
    }

    /// Sends a transfer that follows its redirects itself (see `EasyTransfer+Redirects`) on
    /// to `target`, on the same handle; the failure that ends it instead, if any.
    private func rearm(_ transfer: EasyTransfer, _ handle: UnsafeMutableRawPointer, for target: String) -> TransferError? {
        _ = curl.pointee.curl_multi_remove_handle(multi, handle)
        do {
            try transfer.follow(to: target)
        } catch {
            return error
        }
        let added = curl.pointee.curl_multi_add_handle(multi, handle)
        return added == CURLM_OK ? nil : multiError(added)
    }

    /// Removes the handle from the multi handle, gives it back to `handles`, then resumes
    /// the awaiting task.
    private func finish(_ transfer: EasyTransfer, with result: Result<TransferOutcome, TransferError>) {
        if let handle = transfer.handle { _ = curl.pointee.curl_multi_remove_handle(multi, handle) }
        if transfer.gate != nil { limitedTransfers -= 1 }
        transfer.close(returningHandleTo: &handles)
        switch result {
        case .success(let outcome):
            logger.trace("transfer done", metadata: ["transfer.id": "\(transfer.id)", "transfer.status": "\(outcome.status)"])
        case .failure(let error):
            logger.trace("transfer failed", metadata: ["transfer.id": "\(transfer.id)", "transfer.error": "\(error.code)"])
            transfer.countWrittenBytes()
        }
        transfer.complete(result)
    }

    /// A failing multi handle fails every transfer on it rather than crashing.
    private func failAll(_ active: inout [UInt64: EasyTransfer], _ code: CURLMcode) {
        logger.info("libcurl multi handle failed", metadata: ["curl.code": "\(code.rawValue)"])
        for transfer in active.values { finish(transfer, with: .failure(multiError(code))) }
        active.removeAll()
    }

    func multiError(_ code: CURLMcode) -> TransferError {
        TransferError(kind: .transient, code: "CURLMcode \(code.rawValue)", message: curl.pointee.curl_multi_strerror(code).map { String(cString: $0) } ?? "CURLMcode \(code.rawValue)")
    }
}
