import Foundation

extension TransferRequest {
    /// Every value this request carries that may be a credential: what `auth` sends (Basic
    /// also as its header encodes it), the `originBoundHeaders` (read from the
    /// environment), the `secretTexts`, the URL's userinfo, and the values of its query (pre-signed URLs keep
    /// their signatures there), each also percent-decoded. Text built from what a server
    /// sent back is scrubbed of these (`ErrorBodyExcerpt`). Query values shorter than
    /// `shortestQueryValue` (`1`, `json`) are too common to be credentials, and scrubbing
    /// them would mangle the text.
    var secretValues: [String] {
        var values: [String] = []
        switch auth {
        case .basic(let user, let password): values += [user, password, Data("\(user):\(password)".utf8).base64EncodedString()]
        case .bearer(let token): values.append(token)
        case .none, .netrc: break
        }
        values += headers.filter { originBoundHeaders.contains($0.name.lowercased()) }.map(\.value)
        values += secretTexts
        if let info = URLText.userinfo(of: url) { values += info.split(separator: ":", maxSplits: 1).map(String.init) }
        let beforeFragment = url.prefix { $0 != "#" }
        if let query = beforeFragment.firstIndex(of: "?") {
            for pair in beforeFragment[beforeFragment.index(after: query)...].split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let value = String(pair[pair.index(after: equals)...])
                if value.count >= Self.shortestQueryValue { values.append(value) }
            }
        }
        let decoded = values.map { String(decoding: DataURL.percentDecode(Array($0.utf8)), as: UTF8.self) }
        return Array(Set((values + decoded).filter { !$0.isEmpty }))
    }

    static let shortestQueryValue = 8
}
