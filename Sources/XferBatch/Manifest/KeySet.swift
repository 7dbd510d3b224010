/// The keys an object of the manifest may have: a list (for did-you-mean suggestions and
/// documentation order) and a set (membership is checked for every key of every job).
struct KeySet: ExpressibleByArrayLiteral, Sendable {
    let names: [String]
    private let set: Set<String>

    init(_ names: [String]) {
        self.names = names
        self.set = Set(names)
    }

    init(arrayLiteral names: String...) {
        self.init(names)
    }

    func contains(_ key: String) -> Bool { set.contains(key) }

    static func + (lhs: KeySet, rhs: KeySet) -> KeySet { KeySet(lhs.names + rhs.names) }
}
