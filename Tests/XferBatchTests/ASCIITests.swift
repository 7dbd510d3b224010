import Testing
@testable import XferBatch

@Suite("Byte-level ASCII helpers")
struct ASCIITests {
    @Test(arguments: [
        ("https://example.org/a?b=c", UInt8(ascii: "?"), true),
        ("https://example.org/a", UInt8(ascii: "?"), false),
        ("", UInt8(ascii: "$"), false),
        ("$", UInt8(ascii: "$"), true),
        ("功夫 $HOME 熊猫", UInt8(ascii: "$"), true),  // after multi-byte characters
        ("功夫熊猫", UInt8(ascii: "%"), false),
        ("short", UInt8(ascii: "t"), true),  // a small (inline) string, its last byte
    ])
    func findsAByteWhereTheUTF8ViewDoes(text: String, byte: UInt8, expected: Bool) {
        #expect(ASCII.contains(text, byte) == expected)
        #expect(text.utf8.contains(byte) == expected)
    }

    @Test(arguments: [("0123abcdef", true), ("", true), ("12g4", false), ("ab功", false), ("abc ", false)])
    func checksEveryByteWhereTheUTF8ViewDoes(text: String, expected: Bool) {
        #expect(ASCII.allSatisfy(text, PercentEncoding.isHex) == expected)
        #expect(text.utf8.allSatisfy(PercentEncoding.isHex) == expected)
    }

    @Test func findsAByteInAStringCutFromALargerOne() {
        let whole = String(repeating: "a", count: 100) + "?q=1"
        let cut = String(whole.dropFirst(50))  // stored apart from `whole`
        #expect(ASCII.contains(cut, UInt8(ascii: "?")))
        #expect(!ASCII.contains(String(whole.prefix(100)), UInt8(ascii: "?")))
    }
}
