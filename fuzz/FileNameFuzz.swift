// libFuzzer's entry point for `scripts/fuzz.sh file-name`: the name a download in a folder
// gets (`FileNaming.name`) from a server's Content-Disposition, the final URL and the job
// id, each of them text a fuzzer writes (split at NUL bytes). The name must always be a
// safe base name: not empty, at most 255 bytes, no `/`, no NUL or other control
// character, no leading dot. Anything else is a finding (a file outside the folder, or
// hidden in it).
import XferBatch

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneFileName(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fields = UnsafeBufferPointer(start: data, count: size).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let name = FileNaming.name(contentDisposition: fields[0], finalURL: fields.count > 1 ? fields[1] : "https://example.org/x",
                               jobID: fields.count > 2 ? fields[2] : "job")
    let bytes = Array(name.utf8)
    let unsafe = bytes.isEmpty || bytes.count > 255 || bytes.contains(UInt8(ascii: "/")) || bytes.first == UInt8(ascii: ".")
        || name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    if unsafe { fatalError("unsafe name \(name.debugDescription) from \(fields.map(\.debugDescription))") }
    return 0
}

@_cdecl("FileNameFuzz_main")
public func fileNameFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { fuzzOneFileName($0, $1) }
}
