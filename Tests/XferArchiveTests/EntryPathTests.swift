import Foundation
import Testing
@testable import XferArchive

@Suite("Entry names")
struct EntryPathTests {
    @Test(arguments: ["/etc/passwd", "\\evil", "C:\\evil", "c:evil"])
    func absoluteNamesAreRefused(name: String) {
        #expect(throws: ExtractionError.Reason.absolutePath) { _ = try EntryPath.components(of: name, strip: 0) }
    }

    @Test(arguments: ["..", "../x", "a/../b", "a/..", "a\\..\\b", "..\\x"])
    func parentReferencesAreRefusedNotCleaned(name: String) {
        #expect(throws: ExtractionError.Reason.parentReference) { _ = try EntryPath.components(of: name, strip: 0) }
    }

    @Test func dotsAndEmptyComponentsAreDropped() throws {
        #expect(try EntryPath.components(of: "./a//b/./c", strip: 0) == ["a", "b", "c"])
        #expect(try EntryPath.components(of: "./", strip: 0) == nil)
    }

    @Test func strippingEveryComponentSkipsTheEntry() throws {
        #expect(try EntryPath.components(of: "top/a/b", strip: 2) == ["b"])
        #expect(try EntryPath.components(of: "top/", strip: 1) == nil)
        #expect(try EntryPath.components(of: "./top/a", strip: 1) == ["a"])
    }

    @Test func aComponentLongerThanNameMaxIsRefused() {
        #expect(throws: ExtractionError.Reason.nameTooLong) {
            _ = try EntryPath.components(of: String(repeating: "x", count: 256), strip: 0)
        }
    }

    @Test func linkTargetsAreResolvedFromTheLinksFolder() {
        #expect(EntryPath.lexicalTarget("../b", from: ["a"]) == ["b"])
        #expect(EntryPath.lexicalTarget("../../b", from: ["a"]) == nil)
        #expect(EntryPath.lexicalTarget("/etc", from: []) == nil)
    }

    /// U+0600 joins the "/" after it into one grapheme cluster; the kernel splits at the
    /// byte, and so must every rule.
    @Test func namesAreSplitAtSlashBytesNotBetweenCharacters() throws {
        #expect(EntryPath.lexicalTarget("a\u{600}/../..", from: []) == nil)
        #expect(EntryPath.lexicalTarget("a\u{600}/../b", from: []) == ["b"])
        #expect(throws: ExtractionError.Reason.parentReference) { _ = try EntryPath.components(of: "a\u{600}/../..", strip: 0) }
        #expect(try EntryPath.components(of: "a/\u{301}b", strip: 0) == ["a", "\u{301}b"])
    }
}
