/// A binary min-heap of integers: push and pop in O(log n), the least at `min`.
struct MinHeap {
    private var items: [Int] = []

    var min: Int? { items.first }
    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ value: Int) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popMin() -> Int? {
        guard let least = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return least }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            if smallest == parent { return least }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }

    mutating func removeAll() { items.removeAll() }
}
