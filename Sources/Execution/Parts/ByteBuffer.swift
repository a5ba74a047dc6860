/// Bytes in one growing allocation that writers fill in place through a pointer: the
/// `widget_days.csv` rows of a block on their way to its part file, formatted without a
/// copy per person.
public final class ByteBuffer {
    public private(set) var base: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    /// Bytes written so far, from `base` on.
    public var count = 0

    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `extra` more bytes after `count` and returns where they start. The
    /// writer then adds what it wrote to `count`.
    public func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if extra > capacity - count {
            let grown = max(2 * capacity, count + extra)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            moved.update(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = grown
        }
        return base + count
    }

    /// The bytes written, valid until the next `reserve` or `removeAll`.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes written, keeping the memory.
    public func removeAll() { count = 0 }
}
