import Foundation
import Testing
@testable import XferBatch

/// The boot a partial file was written in (`BootID`).
@Suite("Boot id")
struct BootIDTests {
    @Test func theBootIDIsTheKernelsWithoutItsLineEnd() throws {
        let raw = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        #expect(raw.hasSuffix("\n"))
        #expect(BootID.current == String(raw.dropLast()))
        #expect(BootID.current?.utf8.count == 36, "a UUID")
    }
}
