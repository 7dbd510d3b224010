import Synchronization

/// Keeps every event, for tests and for building the report.
public final class InMemoryEventSink: EventSink {
    private let storage = Mutex<[RunEvent]>([])

    public init() {}

    public func handle(_ event: RunEvent) {
        storage.withLock { $0.append(event) }
    }

    public var events: [RunEvent] { storage.withLock { $0 } }
}
