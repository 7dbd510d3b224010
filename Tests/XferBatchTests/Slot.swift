import Synchronization

/// One value shared by a test and the callbacks it hands to code running on other threads
/// (the engine's, a transport's), behind a lock.
final class Slot<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ initial: Value) { value = Mutex(initial) }

    var current: Value { value.withLock { $0 } }

    func update<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}
