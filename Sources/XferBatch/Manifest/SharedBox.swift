/// An immutable heap box, so large rarely-set or widely-shared values cost one pointer
/// per job instead of hundreds of inline bytes (100,000-job manifests must plan in
/// well under 250 MB).
final class SharedBox<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
