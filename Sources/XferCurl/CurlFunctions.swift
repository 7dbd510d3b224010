internal import CCurl

/// libcurl's function table (`xb_curl_functions`), as `CurlLibrary` loaded it.
///
/// A pointer to a table filled once and never changed or freed, so sharing it between
/// threads is safe (hence `@unchecked Sendable`: Swift sees libcurl's variadic functions in
/// it as opaque pointers, which are not `Sendable`). The engine, its handle pool and each
/// transfer keep the pointer as `curl`, and call a function as
/// `curl.pointee.curl_easy_init()`, a variadic one through its typed wrapper in `shim.h`:
/// `xb_easy_setopt_long(curl, ...)`.
struct CurlFunctions: @unchecked Sendable {
    let table: UnsafePointer<xb_curl_functions>

    /// Loads `soname` and looks up the table's functions; fails with the loader's reason, or
    /// the name of a function the library lacks.
    static func load(_ soname: String) -> Result<CurlFunctions, TransferError> {
        var failure: UnsafePointer<CChar>?
        var missing: UnsafePointer<CChar>?
        guard let table = xb_curl_load(soname, &failure, &missing) else {
            let reason = missing.map { "it has no function \(String(cString: $0))" } ?? failure.map { String(cString: $0) } ?? "unknown reason"
            return .failure(TransferError(kind: .local, code: "dlopen", message: "cannot load libcurl (\(soname)): \(reason)"))
        }
        return .success(CurlFunctions(table: table))
    }
}
