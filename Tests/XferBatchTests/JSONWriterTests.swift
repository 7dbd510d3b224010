import Foundation
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

    @Test func everyControlCharacterQuoteAndBackslashIsEscapedAndReadsBackAsWritten() throws {
        var text = ""
        for value in 0..<0x20 { text.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        text += "\"\\ end"
        var w = JSONWriter()
        w.array { w in w.string(text) }
        let written = String(decoding: w.bytes, as: UTF8.self)
        #expect(written.hasPrefix(#"["\u0000\u0001"#))
        #expect(written.contains(#"\t\n\u000b\u000c\r"#))
        #expect(written.hasSuffix(#"\u001f\"\\ end"]"#))
        let read = try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String]
        #expect(read == [text])
    }

    @Test func integersAreWrittenInDecimalAsStringDescribesThem() {
        var generator = SystemRandomNumberGenerator()
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
            + (0..<2_000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0...63, using: &generator) }
        var w = JSONWriter()
        w.array { w in for v in values { w.int(v) } }
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[" + values.map { String($0) }.joined(separator: ",") + "]")
    }

    @Test func aDocumentMuchLongerThanTheInitialCapacityIsWrittenWhole() {
        var w = JSONWriter(capacity: 1)
        let names = (0..<5_000).map { "file-\($0)-" + String(repeating: "x", count: $0 % 300) }
        w.array { w in for n in names { w.string(n) } }
        #expect(w.byteCount == w.bytes.count)
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]")
    }

    @Test func drainingHandsOverTheBytesAndKeepsTheStructure() {
        var w = JSONWriter()
        var out: [UInt8] = []
        w.array { w in
            w.string("a")
            w.drain { out += $0 }
            #expect(w.byteCount == 0)
            w.string("b")
        }
        w.drain { out += $0 }
        #expect(String(decoding: out, as: UTF8.self) == #"["a","b"]"#)
    }
}
