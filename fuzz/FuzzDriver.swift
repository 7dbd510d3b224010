// libFuzzer's driver, shared by the entry points (scripts/fuzz.sh copies this file into
// each target). With -sanitize=fuzzer, libFuzzer brings its own `main`, but SwiftPM links
// an executable's `main` as `<Target>_main`; each target's `<Target>_main` starts the
// driver here instead.

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

/// Runs libFuzzer on `test` with the command line's options and corpus folders.
func runLibFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                  _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32 {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments, test)
}
