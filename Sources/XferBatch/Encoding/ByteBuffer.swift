/// A growable run of bytes for writers that append a few bytes at a time.
///
/// `[UInt8].append` checks that the array is uniquely referenced and has room on every
/// call; the JSON plan of 100,000 jobs makes some 15 million appends, and those checks
/// were about half of what `JSONWriter` cost. Here an append is a compare and a store.
/// Noncopyable, so the one owner frees the storage and no copy can share it.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written, copied out.
    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// `text`'s UTF-8 bytes, read in place.
    mutating func append(utf8Of text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes `value` in decimal, without going through `String`.
    mutating func appendDecimal(_ value: Int64) {
        // 20 digits and a sign hold any Int64; the magnitude as UInt64 covers Int64.min.
        if capacity - count < 21 { grow(toHold: 21) }
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            base[count + digits] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            digits += 1
        } while magnitude > 0
        // Written least significant first: reverse in place.
        var (i, j) = (count, count + digits - 1)
        while i < j {
            base.swapAt(i, j)
            (i, j) = (i + 1, j - 1)
        }
        count += digits
    }

    /// Forgets the bytes, keeping the storage.
    mutating func removeAll() { count = 0 }

    private mutating func grow(toHold extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

private extension UnsafeMutablePointer<UInt8> {
    func swapAt(_ i: Int, _ j: Int) { (self[i], self[j]) = (self[j], self[i]) }
}
