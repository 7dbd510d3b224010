import Testing
@testable import XferBatch

/// Archive and extract inputs written as shell-style globs (`Glob`).
@Suite("Globs")
struct GlobTests {
    @Test func aStarStaysWithinOnePathComponent() {
        let glob = Glob("/out/*.log")
        #expect(glob.matches("/out/a.log"))
        #expect(glob.matches("/out/.log"))
        #expect(!glob.matches("/out/sub/a.log"))
        #expect(!glob.matches("/out/a.log.gz"))
    }

    @Test func aDoubleStarCrossesPathComponents() {
        let glob = Glob("/out/**.log")
        #expect(glob.matches("/out/a.log"))
        #expect(glob.matches("/out/sub/deeper/a.log"))
        #expect(!glob.matches("/other/a.log"))
    }

    @Test func aQuestionMarkIsOneCharacterButNotASlash() {
        let glob = Glob("/out/a?c")
        #expect(glob.matches("/out/abc"))
        #expect(!glob.matches("/out/ac"))
        #expect(!glob.matches("/out/a/c"))
    }

    @Test func bracketsAreSpelledAsTheyAre() {
        #expect(Glob("/out/[ab]*").matches("/out/[ab]x"))
        #expect(!Glob("/out/[ab]*").matches("/out/ax"))
    }

    /// A wildcard that a neighbouring mark joins into one Character (after U+0600, before
    /// a combining accent) is still a wildcard: it was taken for part of a file name.
    @Test(arguments: ["/out/\u{600}*.log", "/out/*\u{301}.log", "/out/\u{600}?.log"])
    func aWildcardJoinedToItsNeighbourIsStillAWildcard(pattern: String) {
        #expect(Glob.isPattern(pattern))
        #expect(Glob.fixedFolder(of: pattern) == "/out")
    }

    @Test func aPatternReachesInsideOnlyTheFoldersItsTextCanSpell() {
        #expect(!Glob("/out/big*.bin").canMatchInside("/out/x"))
        #expect(Glob("/out/*/a.log").canMatchInside("/out/x"))
        #expect(Glob("/out/**").canMatchInside("/out/x/y/"))
        #expect(Glob("/out/x/*").canMatchInside("/out/x"))
        #expect(!Glob("/out/x*").canMatchInside("/out/x"))
        #expect(!Glob("/out/x").canMatchInside("/out/x"))
    }

    /// Trying each way every star could end takes time exponential in the stars; this pair
    /// did not finish in minutes that way. The trait only stops a hang: it is no speed goal.
    @Test(.timeLimit(.minutes(1)))
    func manyStarsAgainstALongNameAreAnsweredWithoutBacktracking() {
        let name = "/out/" + String(repeating: "a", count: 60)
        let stars = "/out/" + String(repeating: "*a", count: 20)
        #expect(!Glob(stars + "*b").matches(name))
        #expect(Glob(stars + "*").matches(name))
        #expect(!Glob("/**" + String(repeating: "a**", count: 20) + "b").matches(name))
        #expect(!Glob(stars + "*b/x").canMatchInside(name))
    }
}
