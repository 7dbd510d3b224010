import Crypto
import Foundation
import NIOHTTP1

extension ReceivedUpload {
    static func make(method: String, path: String, head: HTTPRequestHead, body: FixtureConnection.Body) -> ReceivedUpload {
        let type = head.headers.first(name: "content-type")
        var upload = ReceivedUpload(method: method, path: path, bytes: body.count, sha256: body.hasher.finalize().hex,
                                    contentType: type, fields: [:], files: [])
        if let type, type.lowercased().hasPrefix("multipart/form-data"), let boundary = Multipart.boundary(type) {
            (upload.fields, upload.files) = Multipart.parse(body.kept, boundary: boundary)
        }
        return upload
    }
}

/// Just enough of RFC 7578 to check what a client sent.
enum Multipart {
    static func boundary(_ contentType: String) -> String? {
        for param in contentType.split(separator: ";") {
            let p = param.trimmingCharacters(in: .whitespaces)
            if p.lowercased().hasPrefix("boundary=") { return String(p.dropFirst(9)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }

    static func parse(_ body: [UInt8], boundary: String) -> ([String: String], [ReceivedFilePart]) {
        var fields: [String: String] = [:]
        var files: [ReceivedFilePart] = []
        let delimiter = Array("--\(boundary)".utf8)
        let data = Data(body)
        var parts: [Data] = []
        var searchStart = data.startIndex
        var previous: Data.Index? = nil
        while let r = data.range(of: Data(delimiter), in: searchStart..<data.endIndex) {
            if let previous { parts.append(data[previous..<r.lowerBound]) }
            previous = r.upperBound
            searchStart = r.upperBound
        }
        let separator = Data("\r\n\r\n".utf8)
        for part in parts {
            guard let split = part.range(of: separator) else { continue }
            let headerText = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            var content = part[split.upperBound...]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            var name: String?, filename: String?, type: String?
            for line in headerText.split(separator: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    name = parameter("name", in: String(line))
                    filename = parameter("filename", in: String(line))
                } else if lower.hasPrefix("content-type:") {
                    type = line.dropFirst(13).trimmingCharacters(in: .whitespaces)
                }
            }
            guard let name else { continue }
            if filename != nil || type != nil {
                files.append(ReceivedFilePart(field: name, filename: filename, contentType: type, bytes: content.count,
                                              sha256: SHA256.hash(data: content).hex))
            } else {
                fields[name] = String(decoding: content, as: UTF8.self)
            }
        }
        return (fields, files)
    }

    private static func parameter(_ key: String, in line: String) -> String? {
        guard let r = line.range(of: "; \(key)=\"") else { return nil }
        let rest = line[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
