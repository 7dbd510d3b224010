import Foundation
import XferArchive

/// A scratch folder for one extraction test: the target sits a few levels down, so an
/// entry climbing out with `../..` would still land inside the scratch folder, where
/// `allFiles()` sees it.
final class ExtractionScratch: @unchecked Sendable {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-extract-\(UUID().uuidString)").path
    var work: String { root + "/one/two/three" }
    var target: String { work + "/target" }
    var staging: String { work + "/target.xferpart" }

    init() throws { try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true) }
    deinit { FolderRemoval.remove(root) }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    static func fixture(_ name: String) -> String { fixtures + "/" + name }

    func extract(_ archive: String, format: ArchiveFileFormat? = nil, options: ExtractionOptions = .init()) throws(ExtractionError) -> ExtractionResult {
        try ArchiveExtractor.extract(archiveAt: archive, format: format, to: target, staging: staging, options: options)
    }

    /// Every path under the scratch folder, relative to it (links not followed).
    func allPaths() -> [String] {
        (FileManager.default.subpaths(atPath: root) ?? []).sorted()
    }

    func contents(_ relative: String) -> String? {
        FileManager.default.contents(atPath: target + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Permission bits of `path` (links not followed).
    func mode(_ path: String) -> Int? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : nil
    }

    func write(_ text: String, to relative: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
