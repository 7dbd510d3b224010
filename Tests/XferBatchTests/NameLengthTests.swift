import Testing
@testable import XferBatch

/// Names in progress (`.xferpart`, a report's temporary name) and names taken from a
/// response, against the 255 bytes a Linux file system accepts in one name.
@Suite("Name length")
struct NameLengthTests {
    static let longest = String(repeating: "a", count: 251) + ".bin"

    @Test func aNameWithRoomForTheSuffixJustGetsIt() {
        #expect(PathText.sibling(of: "/d/report.csv", suffix: ".xferpart") == "/d/report.csv.xferpart")
        let exact = String(repeating: "b", count: 246)  // 246 + 9 = 255
        #expect(PathText.sibling(of: "/d/" + exact, suffix: ".xferpart") == "/d/" + exact + ".xferpart")
    }

    @Test func aNameWithoutRoomIsCutAndTaggedSoItFitsStaysInItsFolderAndRepeats() {
        let partial = PathText.sibling(of: "/d/" + Self.longest, suffix: ".xferpart")
        let name = PathText.lastComponent(partial)
        #expect(PathText.parent(partial) == "/d")
        #expect(name.utf8.count == PathText.maxNameBytes)
        #expect(name.hasPrefix(String(repeating: "a", count: 229) + "~"))
        #expect(name.hasSuffix(".xferpart"))
        #expect(PathText.sibling(of: "/d/" + Self.longest, suffix: ".xferpart") == partial, "a re-run finds the same partial")
    }

    @Test func twoLongNamesThatDifferOnlyAtTheEndGetDifferentPartials() {
        let other = String(repeating: "a", count: 251) + ".iso"
        #expect(PathText.sibling(of: "/d/" + Self.longest, suffix: ".xferpart") != PathText.sibling(of: "/d/" + other, suffix: ".xferpart"))
    }

    @Test func aCutNeverSplitsACharacter() {
        let wide = String(repeating: "数", count: 84)  // 252 bytes
        let name = PathText.lastComponent(PathText.sibling(of: "/d/" + wide, suffix: ".xferpart"))
        #expect(name.utf8.count <= PathText.maxNameBytes)
        #expect(name.hasPrefix(String(repeating: "数", count: 76) + "~"), "76 whole characters (228 bytes) fit before the tag")
    }

    @Test func aResponseNameTooLongIsCutKeepingItsExtension() {
        let name = FileNaming.sanitize(String(repeating: "数", count: 100) + ".csv")
        #expect(name?.utf8.count ?? 0 <= PathText.maxNameBytes)
        #expect(name == String(repeating: "数", count: 83) + ".csv")
        #expect(FileNaming.sanitize(String(repeating: "x", count: 300)) == String(repeating: "x", count: 255))
    }
}
