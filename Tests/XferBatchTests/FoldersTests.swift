import Foundation
import Testing
@testable import XferBatch

@Suite("Creating folders")
struct FoldersTests {
    @Test func missingParentsAreCreatedAndAnExistingFolderIsLeftAsItIs() throws {
        let s = try TemporaryFolder("folders")
        try Folders.create(s.path + "/a/b/c/")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: s.path + "/a/b/c", isDirectory: &isFolder) && isFolder.boolValue)
        try #require(FileManager.default.createFile(atPath: s.path + "/a/b/c/kept", contents: Data([1])))
        try Folders.create(s.path + "/a/b/c")
        #expect(FileManager.default.contents(atPath: s.path + "/a/b/c/kept") == Data([1]))
    }

    @Test func aFileWhereAFolderShouldBeIsNamedInTheError() throws {
        let s = try TemporaryFolder("folders")
        try #require(FileManager.default.createFile(atPath: s.path + "/blocker", contents: Data("x".utf8)))
        let error = #expect(throws: Folders.CreationError.self) { try Folders.create(s.path + "/blocker/sub/deeper") }
        #expect(error?.message == "cannot create the folder \(s.path)/blocker/sub/deeper: \(s.path)/blocker is a file, not a folder")
        #expect(FileManager.default.contents(atPath: s.path + "/blocker") == Data("x".utf8), "the file is untouched")
        let itself = #expect(throws: Folders.CreationError.self) { try Folders.create(s.path + "/blocker") }
        #expect(itself?.message == "cannot create the folder \(s.path)/blocker: a file of that name is in the way")
    }

    /// sysfs refuses new folders even to root: the system's reason is given, with the part refused
    /// (EPERM to root; to anyone else EACCES first, as its folders are root's, mode 755).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel")))
    func aFolderTheSystemRefusesGivesTheSystemsReason() throws {
        let error = #expect(throws: Folders.CreationError.self) { try Folders.create("/sys/xferbatch-test/a") }
        #expect(error?.message == "cannot create the folder /sys/xferbatch-test/a: /sys/xferbatch-test: \(String(cString: strerror(getuid() == 0 ? EPERM : EACCES)))")
    }
}
