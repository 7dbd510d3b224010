/// Sends every event to several sinks, in order (log lines and `--events` at once).
public struct FanOutEventSink: EventSink {
    public var sinks: [any EventSink]

    public init(_ sinks: [any EventSink]) {
        self.sinks = sinks
    }

    public func handle(_ event: RunEvent) {
        for sink in sinks { sink.handle(event) }
    }
}
