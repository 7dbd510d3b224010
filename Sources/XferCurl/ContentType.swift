/// Guesses a Content-Type from a file name's extension (uploads without a declared type).
enum ContentType {
    static let byExtension: [String: String] = [
        "txt": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html", "css": "text/css",
        "json": "application/json", "xml": "application/xml", "js": "text/javascript", "md": "text/markdown",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml",
        "webp": "image/webp", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "tgz": "application/gzip", "tar": "application/x-tar", "xz": "application/x-xz", "zst": "application/zstd",
        "bz2": "application/x-bzip2", "7z": "application/x-7z-compressed", "iso": "application/x-iso9660-image",
        "mp4": "video/mp4", "mp3": "audio/mpeg", "wasm": "application/wasm",
    ]

    static func guess(forPath path: String) -> String {
        let name = path.split(separator: "/").last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
