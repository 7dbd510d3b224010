/// Turns a parsed JSON document into a `Manifest`, collecting every problem in one pass.
///
/// The decoder keeps a stack of the JSON path it is in (pushed and popped, never
/// rebuilt) so that reporting a problem costs something but decoding a 100,000-job
/// manifest does not. Unknown keys are errors with a did-you-mean suggestion, because a
/// misspelled `sha265` must never silently disable a check.
final class ManifestDecoder {
    var diagnostics: [Diagnostic] = []
    /// Jobs decoded while the parser streamed the `jobs` array, and how many elements it had.
    var streamedJobs: [Job] = []
    var streamedJobCount = 0
    private var path: [JSONPath.Component] = []
    let expander: EnvironmentExpander

    init(environment: [String: String]) {
        self.expander = EnvironmentExpander(environment: environment)
    }

    // MARK: Reporting

    var currentPath: JSONPath { JSONPath(path) }

    func report(_ message: String, at offset: Int?) {
        diagnostics.append(Diagnostic(currentPath, message, offset: offset))
    }

    /// Runs `body` with `key` pushed on the path.
    func within<T>(_ key: String, _ body: () -> T) -> T {
        path.append(.key(key))
        defer { path.removeLast() }
        return body()
    }

    func within<T>(index: Int, _ body: () -> T) -> T {
        path.append(.index(index))
        defer { path.removeLast() }
        return body()
    }

    // MARK: Objects

    /// The members of an object node, after reporting any key not in `allowed`.
    func members(of node: JSONNode, allowed: KeySet) -> ObjectMembers? {
        guard case .object(let members) = node.value else {
            report("expected an object, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        for member in members where !allowed.contains(member.key) {
            within(member.key) {
                var hint = Suggestion.phrase(for: member.key, in: allowed.names)
                if hint.isEmpty, let home = MisplacedKey.home(of: member.key) { hint = " here (\(home))" }
                report("unknown key \"\(member.key)\"\(hint)", at: member.keyOffset)
            }
        }
        return ObjectMembers(node: node, members: members)
    }

    /// Decodes `key` with `decode` if present; reports it missing when `required`.
    func field<T>(_ object: ObjectMembers, _ key: String, required: Bool = false, _ decode: (JSONNode) -> T?) -> T? {
        guard let member = object[key] else {
            if required { report("missing required key \"\(key)\"", at: object.node.offset) }
            return nil
        }
        return within(key) { decode(member.value) }
    }

    // MARK: Scalars

    /// A string with `${VAR}` references expanded.
    func string(_ node: JSONNode) -> String? {
        stringNotingSecrets(node)?.text
    }

    /// A string with `${VAR}` references expanded, and the values of those that hold
    /// secrets (see `EnvironmentExpander.expandNotingSecrets`).
    func stringNotingSecrets(_ node: JSONNode) -> (text: String, secrets: [String])? {
        guard let raw = rawString(node) else { return nil }
        do throws(EnvironmentExpander.Failure) {
            return try expander.expandNotingSecrets(raw)
        } catch {
            switch error {
            case .unset(let name):
                report("environment variable \(name) is not set (write ${\(name):-default} to give a default)", at: node.offset)
            case .malformed(let why):
                report(why, at: node.offset)
            }
        }
        return nil
    }

    /// A string taken literally (ids, environment variable names).
    func rawString(_ node: JSONNode) -> String? {
        guard case .string(let s) = node.value else {
            report("expected a string, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        return s
    }

    func nonEmptyString(_ node: JSONNode) -> String? {
        guard let s = string(node) else { return nil }
        if s.isEmpty { report("must not be empty", at: node.offset); return nil }
        return s
    }

    /// A path xferbatch writes to: non-empty, no name in it longer than the file systems
    /// accept (`PathText.maxNameBytes`; caught here, not after the download), and none
    /// ending in `.xferpart`, the names of files in progress: a download to `b.bin.xferpart`
    /// was cut and overwritten by the job downloading `b.bin`, whose partial it is, and
    /// the other job's bytes were renamed into place as `b.bin`.
    func destinationPath(_ node: JSONNode) -> String? {
        guard let s = nonEmptyString(node) else { return nil }
        if PathText.isInProgress(s) {
            report("\"\(s)\": names ending in \(PathText.partialSuffix) are those of files in progress (partial downloads and archives, "
                   + "extractions under way); choose another name", at: node.offset)
            return nil
        }
        guard PathText.longestNameBytes(s) > PathText.maxNameBytes else { return s }
        let long = s.split(separator: "/").first { $0.utf8.count > PathText.maxNameBytes } ?? Substring(s)
        report("the name \"\(long.prefix(24))…\" is \(long.utf8.count) bytes long; file systems accept at most \(PathText.maxNameBytes)", at: node.offset)
        return nil
    }

    func bool(_ node: JSONNode) -> Bool? {
        guard case .bool(let b) = node.value else {
            report("expected true or false, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        return b
    }

    func integer(_ node: JSONNode, in range: ClosedRange<Int64>) -> Int64? {
        guard case .number(let d) = node.value else {
            report("expected an integer, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        guard d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            report("expected an integer from \(range.lowerBound) to \(range.upperBound), found \(Self.formatNumber(d))", at: node.offset)
            return nil
        }
        return Int64(d)
    }

    func int(_ node: JSONNode, in range: ClosedRange<Int>) -> Int? {
        integer(node, in: Int64(range.lowerBound)...Int64(range.upperBound)).map { Int($0) }
    }

    func duration(_ node: JSONNode) -> Duration? {
        guard let text = string(node) else { return nil }
        guard let d = DurationText.parse(text) else {
            report("\"\(text)\" is not a duration; write a whole number with ms, s, m or h, e.g. \"250ms\", \"30s\", \"5m\", \"1h\"", at: node.offset)
            return nil
        }
        return d
    }

    /// A size: a JSON integer (bytes) or a string with a unit (`512KiB`, `10MB`).
    func size(_ node: JSONNode) -> Int64? {
        if case .number = node.value { return integer(node, in: 0...Int64.max / 2) }
        guard let text = string(node) else { return nil }
        guard let bytes = ByteSize.parse(text) else {
            report("\"\(text)\" is not a size; write bytes as an integer or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, e.g. \"512KiB\"", at: node.offset)
            return nil
        }
        return bytes
    }

    func stringArray(_ node: JSONNode, expand: Bool = true) -> [String]? {
        guard case .array(let items) = node.value else {
            report("expected an array of strings, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            if let s = within(index: i, { expand ? string(item) : rawString(item) }) { out.append(s) }
        }
        return out
    }

    /// A value from a fixed set of spellings, with a suggestion on a near miss.
    func oneOf<E: RawRepresentable & CaseIterable>(_ node: JSONNode, _ type: E.Type) -> E? where E.RawValue == String {
        guard let text = string(node) else { return nil }
        if let v = E(rawValue: text) { return v }
        let names = E.allCases.map(\.rawValue)
        report("\"\(text)\" is not one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(Suggestion.phrase(for: text, in: names))", at: node.offset)
        return nil
    }

    func url(_ node: JSONNode) -> TransferURL? {
        guard let (text, secrets) = stringNotingSecrets(node) else { return nil }
        if text.isEmpty { report("must not be empty", at: node.offset); return nil }
        do throws(TransferURL.Problem) {
            return try TransferURL(parsing: text).hiding(secrets)
        } catch {
            report(Self.message(for: error), at: node.offset)
            return nil
        }
    }

    static func message(for problem: TransferURL.Problem) -> String {
        switch problem {
        case .missingScheme:
            "not a URL: it needs a scheme such as https://"
        case .unsupportedScheme(let s):
            "unsupported scheme \"\(s)\"; use one of \(TransferURL.supportedSchemes.sorted().joined(separator: ", "))"
        case .credentials:
            "credentials in the URL (user:pass@, or a token as user@) are refused, because they would reach logs and reports; use \"auth\" with userEnv/passwordEnv instead (an SFTP login name alone is fine: sftp://user@host/…)"
        case .missingHost:
            "the URL has no host"
        case .badPort:
            "the URL's port is not a number from 1 to 65535"
        case .badHost(let why):
            "the URL's host is not one: \(why)"
        }
    }

    static func formatNumber(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}

/// An object's members with lookup by key (objects in manifests are small: linear search).
struct ObjectMembers {
    let node: JSONNode
    let members: [JSONMember]

    subscript(key: String) -> JSONMember? {
        members.first { $0.key == key }
    }

    func has(_ key: String) -> Bool { self[key] != nil }
}
