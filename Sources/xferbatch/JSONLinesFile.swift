import Foundation

/// Where `--events` goes: a file (created or truncated) or stdout for `-`.
enum JSONLinesFile {
    static func open(_ path: String) -> (@Sendable ([UInt8]) -> Void)? {
        if path == "-" { return { StandardStreams.write($0) } }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { return nil }
        return { bytes in handle.write(Data(bytes)) }
    }
}
