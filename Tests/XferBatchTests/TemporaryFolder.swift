import Foundation

/// A fresh folder under the system's temporary directory, removed with the object: the
/// scratch space of tests that write real files.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    /// `label` names the folder (`xferbatch-<label>-<UUID>`), so a leftover is traceable.
    init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
