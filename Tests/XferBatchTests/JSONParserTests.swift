import Testing
@testable import XferBatch

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONNode { try JSONParser.parse(Array(text.utf8)) }

    func error(_ text: String) -> JSONSyntaxError? {
        do { _ = try parse(text); return nil } catch let e as JSONSyntaxError { return e } catch { return nil }
    }

    @Test func recordsTheOffsetOfEveryValue() throws {
        let root = try parse(#"{"a": [1, "x"], "b": null}"#)
        #expect(root.offset == 0)
        #expect(root["a"]?.offset == 6)
        guard case .array(let items)? = root["a"]?.value else { Issue.record("not an array"); return }
        #expect(items.map(\.offset) == [7, 10])
        #expect(root["b"]?.offset == 21)
    }

    @Test func keepsObjectMembersInSourceOrder() throws {
        guard case .object(let members) = try parse(#"{"z": 1, "a": 2, "m": 3}"#).value else { Issue.record(); return }
        #expect(members.map(\.key) == ["z", "a", "m"])
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        guard case .string(let s) = try parse(#""a\"b\\c\/\n\t\u00e9\ud83d\ude00""#).value else { Issue.record(); return }
        #expect(s == "a\"b\\c/\n\té😀")
    }

    @Test func rejectsDuplicateKeysAtTheSecondKey() {
        let e = error(#"{"a": 1, "a": 2}"#)
        #expect(e?.offset == 9)
        #expect(e?.message.contains("duplicate key \"a\"") == true)
    }

    @Test func rejectsDuplicateKeysInLargeObjects() {
        let members = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        #expect(error("{\(members), \"k7\": 0}")?.message.contains("duplicate key \"k7\"") == true)
    }

    @Test func boundsNestingDepthInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(error(deep)?.message.contains("nesting deeper than") == true)
    }

    @Test(arguments: [
        ("", "the file is empty"),
        ("{", "expected a quoted key"),
        (#"{"a" 1}"#, "expected ':'"),
        (#"{"a": 1,}"#, "expected a quoted key"),
        ("[1 2]", "expected ',' or ']'"),
        ("01", "leading zeros"),
        ("1.", "digits expected after '.'"),
        ("\"abc", "unterminated string"),
        ("\"a\u{01}\"", "control character"),
        ("\"abcdefghijklmnopq", "unterminated string"),  // past a word of eight bytes
        ("\"abcdefghijk\u{01}\"", "control character"),
        (#""\x""#, "invalid escape"),
        (#""\ud800""#, "unpaired surrogate"),
        ("tru", "expected a value"),
        ("{} x", "after the end of the document"),
        ("1e999", "out of range"),
    ])
    func rejectsMalformedInput(text: String, expected: String) {
        let e = error(text)
        #expect(e != nil, "accepted \(text)")
        #expect(e?.message.contains(expected) == true, "\(e?.message ?? "nil") does not mention \(expected)")
    }

    @Test func anInvalidByteAfterAnyRunOfASCIIIsFoundWhereItIs() {
        for length in 1...20 {
            for position in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = 0xFF
                #expect(UTF8Check.firstInvalidOffset(bytes) == position, "0xFF at \(position) of \(length)")
                bytes[position] = 0xC3  // a sequence cut short by the ASCII after it, or by the end
                #expect(UTF8Check.firstInvalidOffset(bytes) == position, "0xC3 at \(position) of \(length)")
            }
        }
    }

    @Test func randomBytesAreJudgedAsTheStandardLibraryJudgesThem() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let pieces: [[UInt8]] = [Array("abcdefgh".utf8), Array("é".utf8), Array("功".utf8), Array("😀".utf8), [0x80], [0xED, 0xA0, 0x80], [0xC0, 0x80]]
            let bytes = (0..<Int.random(in: 0...8, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            if (UTF8Check.firstInvalidOffset(bytes) == nil) != valid {
                Issue.record("misjudged \(bytes)")
                return
            }
        }
    }

    @Test func aControlCharacterFarIntoAStringIsReportedWhereItIs() {
        #expect(error("\"abcdefghijk\u{01}\"")?.offset == 12)
        #expect(error("\"abcdefghijklmnopq")?.offset == 0, "an unterminated string is reported where it opens")
    }

    @Test func streamsTheElementsOfOneTopLevelArray() throws {
        final class Seen: @unchecked Sendable { var items: [(Int, Int)] = [] }
        let seen = Seen()
        let root = try JSONParser.parse(Array(#"{"jobs": [1, {"a": 2}], "other": [3]}"#.utf8), streamingElementsOf: "jobs") { node, i in
            seen.items.append((i, node.offset))
        }
        #expect(seen.items.map(\.0) == [0, 1])
        #expect(seen.items.map(\.1) == [10, 13])
        guard case .array(let kept)? = root["jobs"]?.value, case .array(let other)? = root["other"]?.value else { Issue.record(); return }
        #expect(kept.isEmpty)
        #expect(root["jobs"]?.offset == 9)
        #expect(other.count == 1, "only the named array is streamed")
    }

    @Test func skipsAByteOrderMark() throws {
        let root = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        #expect(root.offset == 3)
    }

    @Test func findsTheFirstInvalidUTF8Byte() {
        #expect(UTF8Check.firstInvalidOffset(Array("héllo".utf8)) == nil)
        #expect(UTF8Check.firstInvalidOffset([0x61, 0x62, 0xFF, 0x63]) == 2)
        #expect(UTF8Check.firstInvalidOffset([0x61, 0xC3]) == 1)  // truncated sequence
        #expect(UTF8Check.firstInvalidOffset([0xC0, 0x80]) == 0)  // overlong encoding
        #expect(UTF8Check.firstInvalidOffset([0xED, 0xA0, 0x80]) == 0)  // encoded surrogate
    }

    @Test func convertsOffsetsToLineAndColumnCountingCharacters() {
        let source = SourceText(path: "m.json", bytes: Array("{\n  \"é\": x\n}".utf8))
        // Offset of "x": line 2, after two spaces, the 3-character key and ": " -> column 8.
        let offset = Array("{\n  \"é\": ".utf8).count
        #expect(source.lineAndColumn(of: offset) == (2, 8))
        #expect(source.lineAndColumn(of: 0) == (1, 1))
    }

    @Test func positionsManyOffsetsInOnePass() {
        let source = SourceText(path: "m.json", bytes: Array("{\"é\": [1, 2],\n \"ü\": \"ß\", \"k\": 3}\n".utf8))
        // Byte offsets: 2 and 3 are é's two bytes, 15 starts line 2, 18 is inside ü, 36 the end.
        let offsets = [0, 2, 3, 4, 7, 15, 16, 18, 19, 26, 27, 36]
        let expected = [(1, 1), (1, 3), (1, 3), (1, 4), (1, 7), (2, 1), (2, 2), (2, 3), (2, 4), (2, 10), (2, 11), (3, 1)]
        let positions = source.lineIndex().linesAndColumns(ofAscending: offsets)
        #expect(positions.map(\.line) == expected.map(\.0))
        #expect(positions.map(\.column) == expected.map(\.1))
    }

    @Test func positionsOffsetsGivenOutOfOrderToo() {
        let source = SourceText(path: "m.json", bytes: Array("{\"é\": [1, 2],\n \"ü\": \"ß\", \"k\": 3}\n".utf8))
        let positions = source.lineIndex().linesAndColumns(ofAscending: [26, 4, 26, 0])
        #expect(positions.map(\.line) == [2, 1, 2, 1])
        #expect(positions.map(\.column) == [10, 4, 10, 1])
    }
}
