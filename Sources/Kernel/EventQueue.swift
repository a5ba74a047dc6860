/// The future-event list: a 4-ary min-heap of value events ordered by
/// `(time, rank, sequence)`.
///
/// **Same-time rule.** Two events due at the same millisecond run in order of their
/// `rank` (smaller first; the model documents what each rank means), and events of
/// equal time and rank run in the order they were scheduled (`sequence`, a counter
/// that only grows). No two events ever compare equal, so a run is deterministic.
///
/// **Slots.** An event may be scheduled in a numbered slot. A slot holds at most one
/// live event: scheduling into an occupied slot supersedes the earlier event, and
/// `cancel(slot:)` withdraws it. Each slot knows where its event stands in the heap, so
/// a superseding event takes the earlier one's place (and moves up or down from there)
/// and a cancelled one is removed where it stands: the heap holds live events only,
/// never more than the slots plus the events scheduled outside them, and neither
/// operation searches it.
///
/// **No allocation per event.** Entries are values stored inline in one buffer; after
/// it has grown to the largest number of pending events, scheduling and popping
/// allocate nothing.
///
/// **Value semantics, one check per operation.** The entries and the slots' state live
/// in one buffer object that a copy of the queue shares until either copy changes:
/// every mutating operation first makes its buffer unique (copying it if shared), then
/// works through pointers, so an operation pays one uniqueness check however many
/// entries it moves.
public struct EventQueue<Payload> {
    /// One pending event. `key` packs the ordering into one 128-bit integer: the
    /// time (sign bit flipped, so negative times sort first) in the high 64 bits, the
    /// rank in the next 8 and the scheduling sequence in the low 56. One integer
    /// comparison orders two events.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: UInt128
        @usableFromInline var slot: Int32
        @usableFromInline var payload: Payload

        @inlinable @inline(__always)
        init(time: SimTime, order: UInt64, slot: Int32, payload: Payload) {
            self.key = Self.key(time: time, order: order)
            self.slot = slot
            self.payload = payload
        }

        /// The key of an entry due at `time` with `order` (rank and sequence).
        @inlinable @inline(__always)
        static func key(time: SimTime, order: UInt64) -> UInt128 {
            UInt128(UInt64(bitPattern: time) ^ (1 << 63)) << 64 | UInt128(order)
        }

        @inlinable @inline(__always)
        var time: SimTime { SimTime(bitPattern: UInt64(truncatingIfNeeded: key >> 64) ^ (1 << 63)) }

        @inlinable @inline(__always)
        func precedes(_ other: Entry) -> Bool { key < other.key }
    }

    /// The queue's state: the heap's entries (the first `count` of `capacity`), each
    /// slot's place in the heap, and the counters.
    @usableFromInline
    final class Buffer {
        @usableFromInline var entries: UnsafeMutablePointer<Entry>
        @usableFromInline var count = 0
        @usableFromInline var capacity: Int
        /// Where each slot's live event stands in the heap, or -1 when the slot is empty.
        /// The cell at index -1 is spare: entries outside the slots (slot -1) record
        /// their place there, and nothing reads it.
        @usableFromInline var slotPosition: UnsafeMutablePointer<Int>
        @usableFromInline var slots: Int
        @usableFromInline var nextSequence: UInt64 = 1
        /// True while the top entry has been handed out by `popNext` but not yet
        /// removed: the next `schedule` overwrites it in place (one sift-down instead of
        /// a sift-down plus a sift-up), and the next `popNext` removes it. Meanwhile its
        /// key is 0, the smallest, so that `nothingDue` need not read this flag.
        @usableFromInline var topIsConsumed = false

        @usableFromInline
        init(slots: Int, capacity: Int) {
            self.capacity = Swift.max(capacity, 4)
            entries = .allocate(capacity: self.capacity)
            self.slots = slots
            slotPosition = Self.allocatePositions(slots)
        }

        /// A buffer with the same state, for a copy of the queue about to change.
        @usableFromInline
        func copy() -> Buffer {
            let other = Buffer(slots: slots, capacity: capacity)
            other.entries.initialize(from: entries, count: count)
            other.count = count
            other.slotPosition.update(from: slotPosition, count: slots)
            other.nextSequence = nextSequence
            other.topIsConsumed = topIsConsumed
            return other
        }

        /// Room for one more entry.
        @usableFromInline
        func grow() {
            let larger = UnsafeMutablePointer<Entry>.allocate(capacity: 2 * capacity)
            larger.moveInitialize(from: entries, count: count)
            entries.deallocate()
            entries = larger
            capacity *= 2
        }

        /// Empties the heap and every slot, with `slots` slots from now on.
        @usableFromInline
        func clear(slots newSlots: Int) {
            entries.deinitialize(count: count)
            count = 0
            topIsConsumed = false
            nextSequence = 1
            if newSlots != slots {
                (slotPosition - 1).deallocate()
                slots = newSlots
                slotPosition = Self.allocatePositions(slots)
            } else {
                slotPosition.update(repeating: -1, count: slots)
            }
        }

        /// The cells of `slots` slots, all empty, after the spare cell.
        @usableFromInline
        static func allocatePositions(_ slots: Int) -> UnsafeMutablePointer<Int> {
            let cells = UnsafeMutablePointer<Int>.allocate(capacity: slots + 1)
            cells.initialize(repeating: -1, count: slots + 1)
            return cells + 1
        }

        deinit {
            entries.deinitialize(count: count)
            entries.deallocate()
            (slotPosition - 1).deallocate()
        }
    }

    @usableFromInline var buffer: Buffer

    /// The number of distinct ranks: ranks are `0 ..< rankLimit`.
    public static var rankLimit: Int { 256 }

    /// Creates an empty queue with `slots` supersedable slots (numbered `0 ..< slots`).
    public init(slots: Int = 0, reservingCapacity capacity: Int = 0) {
        buffer = Buffer(slots: slots, capacity: capacity)
    }

    /// Events in the heap: the live ones (a superseded or cancelled event leaves at
    /// once). O(1).
    @inlinable public var storedCount: Int { buffer.count - (buffer.topIsConsumed ? 1 : 0) }

    /// True when no event is pending. O(1).
    @inlinable public var isEmpty: Bool { storedCount == 0 }

    /// Makes the buffer this queue's own before a change (a copy shares it until then).
    @inlinable @inline(__always)
    mutating func unique() -> Buffer {
        if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy() }
        return buffer
    }

    /// Removes every event and empties every slot, keeping the allocated storage. O(slots).
    public mutating func removeAll(slots: Int? = nil) {
        let b = unique()
        b.clear(slots: slots ?? b.slots)
    }

    /// Schedules `payload` at `time` with same-time `rank`, outside any slot.
    /// O(log n).
    @inlinable
    public mutating func schedule(at time: SimTime, rank: UInt8, _ payload: Payload) {
        let b = unique()
        Self.insert(Entry(time: time, order: Self.makeOrder(b, rank), slot: -1, payload: payload), into: b)
    }

    /// Schedules `payload` at `time` in `slot`, superseding the slot's live event if
    /// it has one. O(log n). (Kept out of line: a model schedules from many places.)
    @inlinable @inline(never)
    public mutating func schedule(at time: SimTime, rank: UInt8, slot: Int, _ payload: Payload) {
        let b = unique()
        precondition(UInt(bitPattern: slot) < UInt(bitPattern: b.slots), "slot \(slot) out of 0 ..< \(b.slots)")
        let entry = Entry(time: time, order: Self.makeOrder(b, rank), slot: Int32(truncatingIfNeeded: slot), payload: payload)
        if b.slotPosition[slot] < 0 {
            Self.insert(entry, into: b)
        } else {
            Self.settle(b)
            Self.replace(at: b.slotPosition[slot], with: entry, in: b)
        }
    }

    /// Withdraws the live event of `slot`, if any. O(log n).
    @inlinable @inline(__always)
    public mutating func cancel(slot: Int) {
        precondition(UInt(bitPattern: slot) < UInt(bitPattern: buffer.slots), "slot \(slot) out of 0 ..< \(buffer.slots)")
        // An empty slot (the common case) is only read, where the call is: nothing changes.
        if buffer.slotPosition[slot] >= 0 { withdraw(slot: slot) }
    }

    /// Removes the live event of `slot` from where it stands in the heap.
    @inlinable @inline(never)
    mutating func withdraw(slot: Int) {
        let b = unique()
        Self.settle(b)
        let position = b.slotPosition[slot]
        b.slotPosition[slot] = -1
        b.count -= 1
        let last = (b.entries + b.count).move()
        // The last entry fills the hole, unless it was the cancelled one.
        if position < b.count { Self.replace(at: position, with: last, in: b) }
    }

    /// The due time of `slot`'s live event, or nil when the slot is empty. O(1).
    @inlinable
    public func pendingTime(slot: Int) -> SimTime? {
        let b = buffer
        precondition(slot >= 0 && slot < b.slots, "slot \(slot) out of 0 ..< \(b.slots)")
        let position = b.slotPosition[slot]
        return position < 0 ? nil : b.entries[position].time
    }

    /// Removes and returns the earliest event; nil when none is left or the earliest
    /// is due at or after `limit`. O(log n).
    @inlinable
    public mutating func popNext(before limit: SimTime) -> (time: SimTime, payload: Payload)? {
        popNext(beforeKey: Entry.key(time: limit, order: 0))
    }

    /// Removes and returns the earliest event if it comes before an event due at
    /// `time` with `rank` that is not in the queue: due earlier, or at `time` with a
    /// smaller rank. Of equal time and rank, the event outside the queue comes first,
    /// so nil. O(log n).
    @inlinable
    public mutating func popNext(before time: SimTime, rank: UInt8) -> (time: SimTime, payload: Payload)? {
        popNext(beforeKey: Entry.key(time: time, order: UInt64(rank) << 56))
    }

    /// `popNext` up to (and excluding) `limit`, an entry key whose sequence is 0: no
    /// entry has that key, so every entry is either before it or after it.
    @inlinable
    mutating func popNext(beforeKey limit: UInt128) -> (time: SimTime, payload: Payload)? {
        // Most calls find nothing due: they read, and change nothing.
        if nothingDue(beforeKey: limit) { return nil }
        let b = unique()
        // A live top that passed `nothingDue` is due; a consumed one is removed first.
        if b.topIsConsumed { return Self.popAfterRemovingTop(beforeKey: limit, in: b) }
        return Self.deliverTop(b)
    }

    /// Hands out the top, which is live and due: its slot is empty again, and the top
    /// stays consumed (with key 0, see `topIsConsumed`) until the next change.
    @inlinable @inline(__always)
    static func deliverTop(_ b: Buffer) -> (time: SimTime, payload: Payload) {
        let top = b.entries[0]
        b.slotPosition[Int(top.slot)] = -1
        b.topIsConsumed = true
        b.entries[0].key = 0
        return (top.time, top.payload)
    }

    /// `popNext(beforeKey: limit)` after a delivered top that nothing overwrote (kept out
    /// of line: the model mostly schedules after a delivery).
    @inlinable @inline(never)
    static func popAfterRemovingTop(beforeKey limit: UInt128, in b: Buffer) -> (time: SimTime, payload: Payload)? {
        settle(b)
        guard b.count > 0 && b.entries[0].key < limit else { return nil }
        return deliverTop(b)
    }

    /// Whether `popNext(beforeKey: limit)` would find nothing: no entry, or a top not
    /// before `limit`. A consumed top (key 0) is before any limit but the smallest, so
    /// the call goes on to remove it; under that limit nothing can be due, and it
    /// stays for the next change.
    @inlinable @inline(__always)
    func nothingDue(beforeKey limit: UInt128) -> Bool {
        let b = buffer
        return b.count == 0 || b.entries[0].key >= limit
    }

    // MARK: - Heap mechanics (on a buffer already unique)

    @usableFromInline static var sequenceMask: UInt64 { (1 << 56) - 1 }

    @inlinable @inline(__always)
    static func makeOrder(_ b: Buffer, _ rank: UInt8) -> UInt64 {
        let sequence = b.nextSequence
        b.nextSequence &+= 1
        return UInt64(rank) << 56 | sequence
    }

    /// Removes the consumed top, if there is one, so that every stored entry is live.
    @inlinable @inline(__always)
    static func settle(_ b: Buffer) {
        if b.topIsConsumed {
            b.topIsConsumed = false
            removeTop(b)
        }
    }

    /// Puts `entry` at `position` of the heap and records the place in its slot's cell
    /// (an entry outside the slots writes the spare cell at index -1, so the store needs
    /// no branch).
    @inlinable @inline(__always)
    static func place(_ entry: Entry, at position: Int, _ h: UnsafeMutablePointer<Entry>,
                      _ positions: UnsafeMutablePointer<Int>) {
        h[position] = entry
        positions[Int(entry.slot)] = position
    }

    @inlinable @inline(__always)
    static func insert(_ entry: Entry, into b: Buffer) {
        if b.topIsConsumed {
            b.topIsConsumed = false
            siftDown(entry, from: 0, in: b)
        } else {
            if b.count == b.capacity { b.grow() }
            (b.entries + b.count).initialize(to: entry)
            b.count &+= 1
            siftUp(entry, from: b.count &- 1, in: b)
        }
    }

    /// Puts `entry` in place of the entry at `position` and restores the heap
    /// property, moving it up or down.
    @inlinable @inline(__always)
    static func replace(at position: Int, with entry: Entry, in b: Buffer) {
        if position > 0 && entry.precedes(b.entries[(position &- 1) >> 2]) {
            siftUp(entry, from: position, in: b)
        } else {
            siftDown(entry, from: position, in: b)
        }
    }

    /// Removes the top (kept out of line: a delivered top is mostly overwritten by the
    /// next `schedule` instead).
    @inlinable @inline(never)
    static func removeTop(_ b: Buffer) {
        b.count &-= 1
        let last = (b.entries + b.count).move()
        // With entries left, `last` takes the top's place (the top is overwritten);
        // otherwise it was the top, and is dropped here.
        if b.count > 0 { siftDown(last, from: 0, in: b) }
    }

    /// Places `entry` at `start` and moves it up until the heap property holds.
    @inlinable
    static func siftUp(_ entry: Entry, from start: Int, in b: Buffer) {
        let h = b.entries, positions = b.slotPosition
        var child = start
        while child > 0 {
            let parent = (child &- 1) >> 2
            if !entry.precedes(h[parent]) { break }
            place(h[parent], at: child, h, positions)
            child = parent
        }
        place(entry, at: child, h, positions)
    }

    /// The place and key of the smallest of the fewer than four children from `first`
    /// up to `count` (kept out of line: only the last level of a sift-down has them).
    @inlinable @inline(never)
    static func smallestChild(from first: Int, before count: Int, _ h: UnsafeMutablePointer<Entry>) -> (Int, UInt128) {
        var best = first
        var bestKey = h[first].key
        var c = first &+ 1
        while c < count {
            if h[c].key < bestKey { best = c; bestKey = h[c].key }
            c &+= 1
        }
        return (best, bestKey)
    }

    /// Places `entry` at `start` (whose entry it replaces) and moves it down until the
    /// heap property holds. The smallest of up to four children is chosen with
    /// conditional moves rather than branches: on random keys a branch per comparison
    /// mispredicts half the time. Inlined: its callers are out of line themselves.
    @inlinable @inline(__always)
    static func siftDown(_ entry: Entry, from start: Int, in b: Buffer) {
        let h = b.entries, positions = b.slotPosition
        let count = b.count
        var hole = start
        let key = entry.key
        while true {
            let first = hole &* 4 &+ 1
            if first >= count { break }
            var best = first
            var bestKey = h[first].key
            if first &+ 3 < count {
                let k1 = h[first &+ 1].key, k2 = h[first &+ 2].key, k3 = h[first &+ 3].key
                let a = k1 < bestKey
                best = a ? first &+ 1 : best
                bestKey = a ? k1 : bestKey
                let low23 = k3 < k2 ? first &+ 3 : first &+ 2
                let low23Key = k3 < k2 ? k3 : k2
                let b = low23Key < bestKey
                best = b ? low23 : best
                bestKey = b ? low23Key : bestKey
            } else {
                (best, bestKey) = smallestChild(from: first, before: count, h)
            }
            if !(bestKey < key) { break }
            place(h[best], at: hole, h, positions)
            hole = best
        }
        place(entry, at: hole, h, positions)
    }
}
