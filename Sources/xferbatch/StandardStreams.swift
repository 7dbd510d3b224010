import Foundation

/// Unbuffered writes to stdout and stderr (large outputs go out in one call).
enum StandardStreams {
    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { FileHandle.standardOutput.write(Data($0)) }
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
