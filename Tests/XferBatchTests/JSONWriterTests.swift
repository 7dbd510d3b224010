import Testing
@testable import XferBatch

@Suite("JSON writer")
struct JSONWriterTests {
    /// The byte-by-byte rule `JSONSpecialBytes` answers eight bytes at a time.
    private static func naive(_ bytes: [UInt8]) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    private static func needsEscaping(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { JSONSpecialBytes.firstIndex(in: $0, from: 0) != nil }
    }

    @Test func everyByteValueAtEveryPlaceOfAWordAndItsTailIsJudgedAsByteByByte() {
        for length in 1...17 {
            for position in 0..<length {
                for value in 0...255 {
                    for filler: UInt8 in [UInt8(ascii: "a"), 0x20, 0xC3, 0x7F] {
                        var bytes = [UInt8](repeating: filler, count: length)
                        bytes[position] = UInt8(value)
                        if Self.needsEscaping(bytes) != Self.naive(bytes) {
                            Issue.record("byte \(value) at \(position) of \(length), among \(filler)s")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func randomBytesAreJudgedAsByteByByte() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            // Mostly bytes near the edges of the rule (0x1F, 0x20, ", \ and their neighbours).
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? [0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x80, 0xFF].randomElement(using: &generator)!
                    : UInt8.random(in: 0x20...0xFF, using: &generator)
            }
            if Self.needsEscaping(bytes) != Self.naive(bytes) {
                Issue.record("misjudged \(bytes)")
                return
            }
        }
    }

    @Test func aStringWithNothingToEscapeIsCopiedAsIs() {
        var w = JSONWriter()
        w.string("/tmp/out/files/功夫/file-000001.bin")
        #expect(String(decoding: w.bytes, as: UTF8.self) == #""/tmp/out/files/功夫/file-000001.bin""#)
    }

    @Test func anEscapeInTheSecondWordOrTheTailIsWritten() {
        var w = JSONWriter()
        w.array { w in
            w.string("abcdefgh\"ijk")
            w.string("abcdefghijklmnop\\")
        }
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"["abcdefgh\"ijk","abcdefghijklmnop\\"]"#)
    }
}
