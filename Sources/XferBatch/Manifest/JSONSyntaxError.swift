/// A manifest that is not well-formed JSON (or not UTF-8), with the byte offset of the fault.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}
