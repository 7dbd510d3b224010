import Foundation

/// How a download begins, decided from its checkpoint and the files on disk. One pure
/// function shared by `run` (which acts on it) and `plan` (which reports it).
public enum DownloadStart: Sendable, Equatable {
    /// Done before, file in place, `refresh: never`: nothing to transfer.
    case upToDate(finalPath: String)
    /// Done before and the file has the recorded size, but not the recorded modification
    /// time: edited in place, or only touched. Its SHA-256 decides: the recorded one -> it
    /// is still the download (decide again with the new time recorded); another -> `fresh`.
    case changed(finalPath: String)
    /// Done before, `refresh: conditional`: ask with the stored validators.
    case conditional
    /// Not recorded as done, but a file is at the destination and the manifest gives its
    /// SHA-256 (the state folder was lost or deleted, a CI cache restored the outputs, the
    /// files came from another tool): hashing it decides. The manifest's SHA-256 -> adopted
    /// as done, nothing transferred; another -> `fresh`, and the download replaces it.
    case existing(finalPath: String)
    /// A partial with a stored validator: continue at `offset` (the file is cut there first:
    /// after a reboot, bytes past the flushed offset are not trusted).
    case resume(offset: Int64, validator: String)
    /// From byte 0.
    case fresh

    /// - Parameters:
    ///   - previous: the job's checkpoint, already checked to have the job's fingerprint.
    ///   - file: size and modification time of a file, nil when absent (injected so that
    ///     tests need no files).
    ///   - partialFile: the same for the partial, nil when nothing there can be continued;
    ///     `file` when not given. On disk, `FileStamp.ofPartial`.
    public static func decide(_ d: Download, partialPath: String, previous: JobCheckpoint?, boot: String?,
                              file: (String) -> FileStamp?, partialFile: ((String) -> FileStamp?)? = nil) -> DownloadStart {
        guard let prev = previous else { return existing(d, file: file) ?? .fresh }
        if prev.phase == .done, let final = prev.finalPath, let stamp = file(final), stamp.size == prev.bytes {
            // A record older than the field has no time to compare: the size decides, as before.
            if let recorded = prev.finalModified, recorded != stamp.modified { return .changed(finalPath: final) }
            switch d.refresh {
            case .never: return .upToDate(finalPath: final)
            case .conditional: return prev.etag != nil || prev.lastModified != nil ? .conditional : .fresh
            case .always: return .fresh
            }
        }
        // Only with a validator, which makes the server confirm it is the same entity. A weak
        // ETag (`W/"…"`, as Node's static servers and compressing proxies send) may not be
        // an If-Range (RFC 9110 13.1.5): a server must then send the whole file, so every
        // resume started over. Last-Modified serves instead when there is one.
        let strongETag = prev.etag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
        guard prev.phase != .done, prev.partialPath == partialPath, let validator = strongETag ?? prev.lastModified,
              let size = (partialFile.map { $0(partialPath) } ?? file(partialPath))?.size, size > 0 else { return prev.phase == .done ? .fresh : existing(d, file: file) ?? .fresh }
        // Within the boot that wrote it, the partial's whole length is trusted: after a
        // process death (kill -9, OOM) the kernel still holds every byte written. After a
        // reboot or power loss only what was flushed is: the periodic `fdatasync` offset,
        // and only if the file still reaches it (see `BootID`).
        if let boot, prev.bootID == boot { return .resume(offset: size, validator: validator) }
        if let durable = prev.durableBytes, durable > 0, size >= durable { return .resume(offset: durable, validator: validator) }
        return .fresh
    }

    /// `.existing` when the destination holds a file worth hashing: the manifest gives a
    /// SHA-256 (and, if it gives one, the size matches), and the download is not meant to
    /// be fetched anew (`refresh: always`). A folder download's name is not known yet.
    private static func existing(_ d: Download, file: (String) -> FileStamp?) -> DownloadStart? {
        guard d.sha256 != nil, d.refresh != .always, !d.namesFileAtRunTime, let stamp = file(d.to),
              d.size.map({ $0 == stamp.size }) ?? true else { return nil }
        return .existing(finalPath: d.to)
    }

    /// How the download of `d` begins, from the files on disk.
    public static func decide(_ d: Download, partialPath: String, previous: JobCheckpoint?, boot: String?) -> DownloadStart {
        decide(d, partialPath: partialPath, previous: previous, boot: boot, file: FileStamp.of, partialFile: FileStamp.ofPartial)
    }

    /// A partial's size, or nil when nothing at `path` can be continued (`FileStamp.ofPartial`).
    public static func partialSize(of path: String) -> Int64? {
        FileStamp.ofPartial(path)?.size
    }

    /// A file's size, or nil when it does not exist. One `stat(2)`: this runs for every
    /// job of a run and a plan (`FileManager.attributesOfItem` also lists extended
    /// attributes and opened the file, a fifth of an up-to-date run's time).
    public static func size(of path: String) -> Int64? {
        FileStamp.of(path)?.size
    }
}
