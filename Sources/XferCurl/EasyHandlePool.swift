internal import CCurl

/// Easy handles of ended transfers, reset and kept for the next ones.
///
/// Why: a new handle costs libcurl about 9,000 instructions (`curl_easy_init`) and
/// freeing one about 6,000, against about 2,000 for `curl_easy_reset`; in a run of 2,000
/// small files that was 3% of the instructions outside SHA-256 (`bench/run-instructions`).
/// A reset handle is as new for every option and all request state, authentication
/// included (libcurl: "puts back the handle to the same state as it was in when it was
/// just created"); what it keeps are caches libcurl names (TLS session IDs, DNS, alt-svc),
/// never a transfer's data or settings.
///
/// Confined to the engine's loop thread, like the transfers it serves.
struct EasyHandlePool {
    /// Handles kept at most: as many as transfers can run at once in any sensible run
    /// (see `TransferEngine.defaultIdleConnections`); beyond that they are freed.
    static let defaultCapacity = 64

    private let curl: UnsafePointer<xb_curl_functions>
    private var idle: [UnsafeMutableRawPointer] = []
    private let capacity: Int

    init(curl: UnsafePointer<xb_curl_functions>, capacity: Int = defaultCapacity) {
        self.curl = curl
        self.capacity = capacity
    }

    /// A handle in its initial state: a kept one, else a new one (nil when libcurl cannot
    /// allocate one).
    mutating func take() -> UnsafeMutableRawPointer? {
        idle.popLast() ?? curl.pointee.curl_easy_init()
    }

    /// Keeps `handle` for a later transfer, or frees it when enough are kept. The handle
    /// must be out of the multi handle.
    mutating func give(_ handle: UnsafeMutableRawPointer) {
        guard idle.count < capacity else { return curl.pointee.curl_easy_cleanup(handle) }
        curl.pointee.curl_easy_reset(handle)
        // libcurl 7.88 frees a transfer's receive buffer only when the transfer ended
        // normally, and refuses a new CURLOPT_BUFFERSIZE while one is held (a refused
        // TLS peer left one: the next transfer on the handle failed with "bad argument").
        // Such a handle is not as new: free it.
        guard xb_easy_setopt_long(curl, handle, CURLOPT_BUFFERSIZE, Int(CURL_MAX_WRITE_SIZE)) == CURLE_OK else {
            return curl.pointee.curl_easy_cleanup(handle)
        }
        idle.append(handle)
    }

    /// Frees every kept handle (the engine's loop is ending).
    mutating func drain() {
        for handle in idle { curl.pointee.curl_easy_cleanup(handle) }
        idle.removeAll()
    }
}
