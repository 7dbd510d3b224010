internal import CArchive
#if canImport(Glibc)
import Glibc
#endif

/// Extracts a tar or zip archive safely: into a fresh staging folder, checked entry by
/// entry, then moved into place in one step.
///
/// Refused, naming the entry: absolute paths and `..` (zip-slip), writing through a link,
/// symbolic links that resolve outside the folder (checked by name as they come and on disk
/// at the end, which catches chains), hard links to anything but a file extracted before,
/// devices, FIFOs and sockets, and more than `maxEntries` entries or `maxBytes` bytes
/// (counted as written, since headers can lie). A refused or unreadable archive leaves
/// nothing: the staging folder is removed and the target is untouched.
///
/// Modes are kept without setuid, setgid and sticky bits, less the umask unless run as root
/// (as `tar -x`; `ExtractionOptions.keepsArchivedModes`); owners are not (the files belong
/// to whoever runs the extraction). The folder itself ends with the mode of the folder it
/// replaces, else with a new folder's (0777 less the umask), as do folders the archive
/// implies without listing them. Memory is flat: data moves in libarchive's blocks, written
/// at their offsets, so a sparse file's holes stay holes.
public enum ArchiveExtractor {
    /// Extracts `archive` and installs the result at `target` (a folder, replaced as a
    /// whole if it exists) by way of `staging` (a sibling name the caller reserves).
    /// `progress` receives the data bytes written so far, once per block, and returns
    /// false to stop (the extraction then throws `.cancelled` and leaves nothing).
    public static func extract(archiveAt archive: String, format: ArchiveFileFormat?, to target: String, staging: String,
                               options: ExtractionOptions, progress: (Int64) -> Bool = { _ in true }) throws(ExtractionError) -> ExtractionResult {
        try UTF8Names.with { () throws(ExtractionError) -> ExtractionResult in
            try extractInUTF8(archiveAt: archive, format: format, to: target, staging: staging, options: options, progress: progress)
        }
    }

    private static func extractInUTF8(archiveAt archive: String, format: ArchiveFileFormat?, to target: String, staging: String,
                                      options: ExtractionOptions, progress: (Int64) -> Bool) throws(ExtractionError) -> ExtractionResult {
        FolderRemoval.remove(staging)
        // Created as `mkdir` or `tar -x` would create the folder (0777 less the umask), to
        // learn that mode without touching the process-wide umask (setting it to read it
        // races with other threads creating files); then private while it fills.
        guard mkdir(staging, 0o777) == 0 else { throw StagingFolder.ioError(staging, "cannot create the staging folder") }
        var created = stat()
        guard stat(staging, &created) == 0, chmod(staging, 0o700) == 0 else {
            let error = StagingFolder.ioError(staging, "cannot set up the staging folder")
            FolderRemoval.remove(staging)
            throw error
        }
        let newFolderMode = UInt32(created.st_mode) & 0o777
        do throws(ExtractionError) {
            var result = try fill(staging, from: archive, format: format, options: options, newFolderMode: newFolderMode, progress: progress)
            var info = stat()
            result.bytesIn = stat(archive, &info) == 0 ? Int64(info.st_size) : 0
            if !options.replacesFolder {
                let foreign = ForeignFiles.find(in: target, against: staging)
                if foreign.count > 0 { throw ExtractionError.foreignFiles(folder: target, examples: foreign.examples, count: foreign.count) }
            }
            // The folder ends with the mode of the one it replaces, else a new folder's;
            // always owner-writable, as the folders inside (see `StagingFolder.finish`).
            var previous = stat()
            let mode = lstat(target, &previous) == 0 && previous.st_mode & S_IFMT == S_IFDIR ? UInt32(previous.st_mode) & 0o777 : newFolderMode
            if chmod(staging, mode | 0o700) != 0 { throw StagingFolder.ioError(staging, "cannot set the folder's mode") }
            try install(staging, at: target)
            return result
        } catch {
            FolderRemoval.remove(staging)
            throw error
        }
    }

    private static func fill(_ staging: String, from archive: String, format: ArchiveFileFormat?, options: ExtractionOptions,
                             newFolderMode: UInt32, progress: (Int64) -> Bool) throws(ExtractionError) -> ExtractionResult {
        let reader: ArchiveReader
        do { reader = try ArchiveReader(path: archive, format: format) } catch { throw .unreadable(error) }
        let folder = try StagingFolder(path: staging, impliedFolderMode: newFolderMode)
        // The umask, learned as `newFolderMode` (0777 less it), applies unless modes are kept.
        let modeMask: UInt32 = options.keepsArchivedModes ? 0o777 : newFolderMode
        var result = ExtractionResult(entries: 0, files: 0, folders: 0, links: 0, bytesIn: 0, bytesOut: 0)
        var links: [(entry: String, components: [String], target: String)] = []
        while true {
            let header: ArchiveReader.Header?
            do { header = try reader.next() } catch { throw .unreadable(error) }
            guard let header else { break }
            result.entries += 1
            if !progress(result.bytesOut) { throw .cancelled }
            if result.entries > options.maxEntries { throw .tooManyEntries(limit: options.maxEntries) }
            let entry = header.name
            let components: [String]
            do {
                guard let c = try EntryPath.components(of: entry, strip: options.stripComponents) else { continue }
                components = c
            } catch { throw .unsafeEntry(entry: entry, reason: error) }
            switch header.kind {
            case .special(let kind):
                throw .unsafeEntry(entry: entry, reason: .specialFile(kind: kind))
            case .directory:
                try folder.makeFolder(components, mode: header.permissions & modeMask, mtime: header.mtime, entry: entry)
                result.folders += 1
            case .file:
                if header.encrypted { throw .encrypted(entry: entry) }
                // Refused before its first byte when its size is all data; a sparse file's
                // holes are never written, so only what is written counts then.
                if !header.mayHaveHoles, let size = header.size, size > options.maxBytes - result.bytesOut {
                    throw .tooManyBytes(limit: options.maxBytes, entry: entry)
                }
                result.bytesOut = try writeFile(header, components, in: folder, from: reader,
                                                written: result.bytesOut, limit: options.maxBytes, modeMask: modeMask, progress: progress)
                result.files += 1
            case .symlink:
                let target = header.linkTarget ?? ""
                guard !target.isEmpty, EntryPath.lexicalTarget(target, from: Array(components.dropLast())) != nil else {
                    throw .unsafeEntry(entry: entry, reason: .linkEscapes(target: target))
                }
                let dir = try folder.parent(of: components, entry: entry)
                try folder.clear(components[components.count - 1], in: dir, entry: entry)
                if symlinkat(target, dir, components[components.count - 1]) != 0 {
                    throw StagingFolder.ioError(staging + "/" + components.joined(separator: "/"), "cannot create link")
                }
                links.append((entry, components, target))
                result.links += 1
            case .hardLink:
                try hardLink(header, components, in: folder, strip: options.stripComponents)
                result.links += 1
            }
        }
        let confinement = LinkConfinement(root: folder.root)
        for link in links where !confinement.staysInside(link: link.components, target: link.target) {
            throw .unsafeEntry(entry: link.entry, reason: .linkEscapes(target: link.target))
        }
        try folder.finish()
        return result
    }

    /// Streams one file's data, block by block at the offsets the archive gives, so that a
    /// sparse file's holes stay holes (as `tar -x` keeps them) instead of taking their
    /// size in zeros on the disk; returns the running total of data bytes written.
    private static func writeFile(_ header: ArchiveReader.Header, _ components: [String], in folder: StagingFolder, from reader: ArchiveReader,
                                  written: Int64, limit: Int64, modeMask: UInt32,
                                  progress: (Int64) -> Bool) throws(ExtractionError) -> Int64 {
        let dir = try folder.parent(of: components, entry: header.name)
        let name = components[components.count - 1]
        let shown = folder.path + "/" + components.joined(separator: "/")
        try folder.clear(name, in: dir, entry: header.name)
        let fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 { throw StagingFolder.ioError(shown, "cannot create file") }
        defer { close(fd) }
        var total = written
        var end: Int64 = 0
        while true {
            let next: (bytes: UnsafeRawBufferPointer, offset: Int64)?
            do { next = try reader.nextBlock() } catch { throw .unreadable(error) }
            guard let (bytes, start) = next else { break }
            let n = bytes.count
            if n == 0 { continue }
            if Int64(n) > limit - total { throw .tooManyBytes(limit: limit, entry: header.name) }
            var done = 0
            while done < n {
                let w = pwrite(fd, bytes.baseAddress! + done, n - done, off_t(start) + off_t(done))
                if w < 0 {
                    if errno == EINTR { continue }
                    throw StagingFolder.ioError(shown, "cannot write")
                }
                done += w
            }
            end = max(end, start + Int64(n))
            total += Int64(n)
            if !progress(total) { throw .cancelled }
        }
        // A hole at the end has no block after it: the file is given its length (only where
        // holes can be: a zip's size is all data, and one that lies is not believed).
        if header.mayHaveHoles, let size = header.size, size > end, ftruncate(fd, off_t(size)) != 0 {
            throw StagingFolder.ioError(shown, "cannot give the file its length of \(size) bytes")
        }
        let mode = header.permissions & 0o777
        _ = fchmod(fd, (mode == 0 ? 0o644 : mode) & modeMask)
        if let t = header.mtime {
            var times = [timespec(tv_sec: t.seconds, tv_nsec: t.nanoseconds), timespec(tv_sec: t.seconds, tv_nsec: t.nanoseconds)]
            _ = futimens(fd, &times)
        }
        return total
    }

    /// A hard link may only point at a regular file already extracted inside the folder.
    private static func hardLink(_ header: ArchiveReader.Header, _ components: [String], in folder: StagingFolder,
                                 strip: Int) throws(ExtractionError) {
        let target = header.linkTarget ?? ""
        let refusal = ExtractionError.unsafeEntry(entry: header.name, reason: .badHardLink(target: target))
        guard let targetComponents = try? EntryPath.components(of: target, strip: strip) else { throw refusal }
        // The source folder's descriptor is dup'ed: `parent(of:)` reuses one cached descriptor.
        let sourceDir = dup(try folder.parent(of: targetComponents, entry: header.name, create: false))
        guard sourceDir >= 0 else { throw refusal }
        defer { close(sourceDir) }
        let sourceName = targetComponents[targetComponents.count - 1]
        var info = stat()
        guard fstatat(sourceDir, sourceName, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { throw refusal }
        let dir = try folder.parent(of: components, entry: header.name)
        let name = components[components.count - 1]
        try folder.clear(name, in: dir, entry: header.name)
        if linkat(sourceDir, sourceName, dir, name, 0) != 0 {
            throw StagingFolder.ioError(folder.path + "/" + components.joined(separator: "/"), "cannot create hard link")
        }
    }

    /// Moves the staging folder to `target`: an atomic exchange when a previous extraction
    /// is there (the old tree is then removed), a plain rename otherwise.
    private static func install(_ staging: String, at target: String) throws(ExtractionError) {
        var info = stat()
        guard lstat(target, &info) == 0 else {
            if rename(staging, target) != 0 { throw StagingFolder.ioError(target, "cannot move the extracted folder into place") }
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .io(path: target, code: EEXIST, message: "exists and is not a folder; remove it or choose another \"to\"")
        }
        if xb_exchange_paths(staging, target) == 0 {
            FolderRemoval.remove(staging)
            return
        }
        // No RENAME_EXCHANGE here: move the old tree aside first (a crash in between leaves
        // no folder at `target`, and the next run extracts again).
        let aside = staging + ".old"
        FolderRemoval.remove(aside)
        guard rename(target, aside) == 0 else { throw StagingFolder.ioError(target, "cannot move the previous folder aside") }
        guard rename(staging, target) == 0 else { throw StagingFolder.ioError(target, "cannot move the extracted folder into place") }
        FolderRemoval.remove(aside)
    }
}
