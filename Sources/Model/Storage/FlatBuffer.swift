/// A fixed number of values in memory this buffer allocates and owns, read and written
/// in place through a pointer: a write is one store, with none of the copy-on-write
/// checks an array property of a class makes at every write. For the per-instance state
/// the engine and the budget policies touch at every event.
///
/// Indices are checked in debug builds only, as for `RunningCounts`: the owners index
/// with instance numbers that `begin` sized the buffer for.
final class FlatBuffer<Element> {
    @exclusivity(unchecked) private(set) var count: Int
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>

    /// `count` copies of `value`.
    init(count: Int = 0, repeating value: Element) {
        precondition(count >= 0)
        self.count = count
        capacity = Swift.max(count, 1)
        base = .allocate(capacity: capacity)
        base.initialize(repeating: value, count: count)
    }

    /// The values of `values`, in order.
    init(_ values: [Element]) {
        count = values.count
        capacity = Swift.max(values.count, 1)
        base = .allocate(capacity: capacity)
        _ = UnsafeMutableBufferPointer(start: base, count: values.count).initialize(from: values)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Makes the buffer `count` copies of `value`, reusing its memory unless `count`
    /// is larger than any before.
    func reset(count: Int, to value: Element) {
        precondition(count >= 0)
        base.deinitialize(count: self.count)
        if count > capacity {
            base.deallocate()
            capacity = count
            base = .allocate(capacity: capacity)
        }
        base.initialize(repeating: value, count: count)
        self.count = count
    }

    /// Where the values are, for an owner that keeps the address to reach them with one
    /// load fewer than through the buffer: it stays valid until `reset` makes the buffer
    /// larger than any before.
    var address: UnsafeMutablePointer<Element> { base }

    /// Calls `body` with the values in place.
    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    subscript(i: Int) -> Element {
        unsafeAddress {
            assert(i >= 0 && i < count, "index \(i) out of 0 ..< \(count)")
            return UnsafePointer(base + i)
        }
        unsafeMutableAddress {
            assert(i >= 0 && i < count, "index \(i) out of 0 ..< \(count)")
            return base + i
        }
    }
}

/// The values of a `FlatBuffer` as an array, for readers that take one: copied out of
/// the buffer when read at a `version` other than the last read's (the owner changes
/// the version whenever it writes the buffer), and shared until then.
struct FlatBufferArray<Element> {
    private var array: [Element] = []
    private var version = Int.min

    /// `buffer`'s values, as of `version`.
    mutating func array(of buffer: FlatBuffer<Element>, version: Int) -> [Element] {
        if version != self.version {
            array.removeAll(keepingCapacity: true)
            buffer.withUnsafeBufferPointer { array.append(contentsOf: $0) }
            self.version = version
        }
        return array
    }
}
