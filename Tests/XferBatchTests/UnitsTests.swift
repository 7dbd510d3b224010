import Foundation
import Testing
@testable import XferBatch

@Suite("Durations and sizes")
struct UnitsTests {
    @Test(arguments: [("250ms", 250), ("30s", 30_000), ("5m", 300_000), ("1h", 3_600_000), ("0s", 0)])
    func parsesDurations(text: String, milliseconds: Int64) {
        #expect(DurationText.parse(text).map(DurationText.milliseconds) == milliseconds)
    }

    @Test(arguments: ["", "30", "1.5s", " 30s", "30s ", "30 s", "-1s", "1d", "ms", "5sec", "1h30m", "30S"])
    func rejectsLooseDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func formatsDurationsInTheLargestExactUnit() {
        #expect(DurationText.format(.seconds(3600)) == "1h")
        #expect(DurationText.format(.seconds(90)) == "90s")
        #expect(DurationText.format(.milliseconds(500)) == "500ms")
        #expect(DurationText.format(.zero) == "0s")
    }

    @Test(arguments: [("512KiB", 524_288), ("10MB", 10_000_000), ("1GiB", 1_073_741_824), ("1.5KiB", 1536), ("7B", 7), ("2kB", 2000)])
    func parsesSizes(text: String, bytes: Int64) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["10", "10 MB", "1.5B", "MB", ".5MB", "5.MB", "1e3KB", "10mb", "1,5MB", "-1KB"])
    func rejectsLooseSizes(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func parsesRates() {
        #expect(ByteSize.parseRate("50MiB/s") == 52_428_800)
        #expect(ByteSize.parseRate("50MiB") == nil)
    }

    @Test func formatsSizesForPeople() {
        #expect(ByteSize.format(512) == "512 B")
        #expect(ByteSize.format(1536) == "1.5 KiB")
        #expect(ByteSize.format(140_000_000) == "133.5 MiB")
        #expect(ByteSize.format(1_073_741_824) == "1 GiB")
    }

    @Test func twoSizesThatRoundAlikeAreGivenInBytes() {
        #expect(ByteSize.format(8_000_000, beside: 7_995_392) == ("8,000,000 bytes", "7,995,392 bytes"))
        #expect(ByteSize.format(8_000_000, beside: 4_000_000) == ("7.6 MiB", "3.8 MiB"))
        #expect(ByteSize.format(1_048_576, beside: 1_048_576) == ("1 MiB", "1 MiB"))
        #expect(ByteSize.format(999, beside: 100) == ("999 B", "100 B"))
    }
}

@Suite("Lexical paths")
struct PathTextTests {
    @Test(arguments: [
        ("/a/b", "/a/b"), ("/a//b/", "/a/b"), ("/a/./b", "/a/b"), ("/a/b/..", "/a"), ("/a/../../b", "/b"),
        ("a/b", "a/b"), ("./a", "a"), ("a/..", "."), ("../a", "../a"), ("/", "/"), ("/a/.b/..c", "/a/.b/..c"),
        ("/a/b/.", "/a/b"), ("/a/...", "/a/..."),
        // U+0600 joins the "/" after it into one Character; components are split at bytes.
        ("/o/x\u{600}/../../etc", "/etc"), ("/o/\u{301}../a", "/o/\u{301}../a"),
    ])
    func normalizes(path: String, expected: String) {
        #expect(PathText.normalize(path) == expected)
        #expect(PathText.normalize(expected) == expected, "normalising is idempotent")
    }

    @Test(arguments: [
        ("/a/b", true), ("/", true), ("a", true), (".b", true), ("/a/...", true), ("/功夫/熊猫", true),
        ("/a//b", false), ("/a/", false), ("a/./b", false), ("a/..", false), (".", false), ("", false), ("//a", false),
    ])
    func tellsANormalPathFromOneNormalizingWouldChange(path: String, normal: Bool) {
        #expect(PathText.isNormal(path) == normal)
    }

    @Test(arguments: [("/a/bcd/ef", 3), ("", 0), ("/功夫", 6), ("name", 4)])
    func measuresTheLongestNameInBytes(path: String, bytes: Int) {
        #expect(PathText.longestNameBytes(path) == bytes)
    }

    @Test func containmentIsPerComponent() {
        #expect(PathText.isWithin("/out/a", folder: "/out"))
        #expect(PathText.isWithin("/out", folder: "/out"))
        #expect(!PathText.isWithin("/outside/a", folder: "/out"))
        #expect(PathText.isWithin("/out/a", folder: "/"))
        #expect(!PathText.isWithin("/caf\u{E9}/a", folder: "/cafe\u{301}"), "bytes, as the filesystem compares them")
    }

    @Test(arguments: [("/m/out/a.bin", "/m", "out/a.bin"), ("/m/out/a.bin", "/m/", "out/a.bin"), ("/m", "/m", "/m"),
                      ("/other/a.bin", "/m", "/other/a.bin"), ("/mx/a.bin", "/m", "/mx/a.bin"), ("/m/d\u{E9}j\u{E0}.txt", "/m", "d\u{E9}j\u{E0}.txt"),
                      ("/m/", "/m", "./"), ("/m/out/", "/m", "out/")])
    func pathsAreShownRelativeToTheManifestsFolderWhenInsideIt(path: String, base: String, shown: String) {
        #expect(PathText.display(path, relativeTo: base) == shown)
    }

    @Test(arguments: [("/a/b/c.txt", "/a/b"), ("/a", "/"), ("/", "/")])
    func theParentOfAnAbsolutePathIsItsFolder(path: String, parent: String) {
        #expect(PathText.parent(path) == parent)
    }

    @Test(arguments: [("/o/a.bin.xferpart", true), ("/o/x.xferpart/inner/a.txt", true), ("/o/x\u{0600}.xferpart", true),
                      ("/o/x\u{0600}.xferpart/a.txt", true), ("/o/a.xferparts", false), ("/o/xferpart/a", false), ("/o/a.txt", false)])
    func partialsAndStagingFoldersAreToldByTheirBytes(path: String, inProgress: Bool) {
        #expect(PathText.isInProgress(path) == inProgress)
    }
}

@Suite("UTC timestamps")
struct UTCTimestampTests {
    /// Foundation's formatter is the reference: the same text, to the second and to the
    /// millisecond, across a leap day, a year boundary and sub-millisecond fractions.
    @Test(arguments: [0.0, -1.5, 951_782_400.0, 1_795_270_690.878_696, 1_798_761_599.999_6, 4_102_444_800.5, 86_399.001])
    func matchesFoundationsISO8601Formatter(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(UTCTimestamp.string(from: date) == plain.string(from: date))
        #expect(UTCTimestamp.string(from: date, milliseconds: true) == fractional.string(from: date))
    }
}
