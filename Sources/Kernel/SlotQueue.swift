/// A future-event list for a model whose events each belong to one of a fixed set of
/// slots, with at most one pending event per slot (a new event in a slot supersedes the
/// pending one), and whose new events mostly fall after every pending event: a timeline
/// that asks again an hour after each reload, a retry some minutes on.
///
/// Events are delivered in the order `EventQueue` delivers them: by time, then by rank,
/// then in the order they were scheduled. They are kept sorted in that order in a ring
/// of at least as many cells as there are slots, so that delivering the first event and
/// scheduling one after every pending event each take a few instructions; an event
/// scheduled earlier is moved back past the later ones (insertion sort), and a superseded
/// or cancelled one leaves by moving its shorter side up. With n slots every change is
/// O(n): for many pending events use `EventQueue`, whose changes are O(log n).
///
/// A class: the model that owns it schedules from many places, and no copy is ever
/// wanted.
public final class SlotQueue<Payload> {
    @usableFromInline
    struct Entry {
        @usableFromInline var key: UInt128
        @usableFromInline var slot: Int
        @usableFromInline var payload: Payload

        @inlinable @inline(__always)
        init(key: UInt128, slot: Int, payload: Payload) {
            self.key = key
            self.slot = slot
            self.payload = payload
        }
    }

    /// The ring: the pending events in delivery order at logical indices
    /// `head ..< tail`, each stored at `index & mask`.
    @exclusivity(unchecked) @usableFromInline var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) @usableFromInline var mask: Int
    @exclusivity(unchecked) @usableFromInline var head = 0
    @exclusivity(unchecked) @usableFromInline var tail = 0
    /// The logical index of each slot's pending event, or -1.
    @exclusivity(unchecked) @usableFromInline var position: UnsafeMutablePointer<Int>
    /// The number of slots.
    @exclusivity(unchecked) public private(set) var slots: Int
    @exclusivity(unchecked) @usableFromInline var nextSequence: UInt64 = 1
    /// The key of the first pending event, or `UInt128.max` when there is none: what a
    /// run loop compares with at every step.
    @exclusivity(unchecked) @usableFromInline var firstKey = UInt128.max

    /// An empty queue of `slots` slots.
    public init(slots: Int) {
        precondition(slots >= 0, "a negative number of slots")
        self.slots = slots
        (entries, mask) = Self.allocateRing(slots)
        position = .allocate(capacity: Swift.max(slots, 1))
        position.initialize(repeating: -1, count: slots)
    }

    deinit {
        removeEntries()
        entries.deallocate()
        position.deallocate()
    }

    /// A ring of a power of two cells, at least `slots` of them.
    static func allocateRing(_ slots: Int) -> (UnsafeMutablePointer<Entry>, Int) {
        var cells = 1
        while cells < slots { cells *= 2 }
        return (.allocate(capacity: cells), cells - 1)
    }

    /// The number of pending events.
    @inlinable public var count: Int { tail &- head }

    @inlinable public var isEmpty: Bool { tail == head }

    /// Whether `0 <= slot < slots` (`slots` is never negative): one unsigned comparison.
    @inlinable @inline(__always)
    static func holds(_ slot: Int, below slots: Int) -> Bool {
        UInt(bitPattern: slot) < UInt(bitPattern: slots)
    }

    /// The key that orders an event: time, then rank, then scheduling sequence; the same
    /// order as `EventQueue`'s.
    @inlinable @inline(__always)
    public static func key(time: SimTime, rank: UInt8, sequence: UInt64 = 0) -> UInt128 {
        UInt128(UInt64(bitPattern: time) ^ (1 << 63)) << 64 | UInt128(UInt64(rank) << 56 | sequence)
    }

    @inlinable @inline(__always)
    static func time(_ key: UInt128) -> SimTime {
        SimTime(bitPattern: UInt64(truncatingIfNeeded: key >> 64) ^ (1 << 63))
    }

    /// Removes every event and keeps the storage; with `slots`, the queue has that many
    /// slots from now on. O(slots).
    public func removeAll(slots newSlots: Int? = nil) {
        removeEntries()
        head = 0
        tail = 0
        nextSequence = 1
        firstKey = .max
        if let newSlots, newSlots != slots {
            precondition(newSlots >= 0, "a negative number of slots")
            entries.deallocate()
            position.deallocate()
            slots = newSlots
            (entries, mask) = Self.allocateRing(newSlots)
            position = .allocate(capacity: Swift.max(newSlots, 1))
            position.initialize(repeating: -1, count: newSlots)
        } else {
            position.update(repeating: -1, count: slots)
        }
    }

    private func removeEntries() {
        var i = head
        while i != tail {
            (entries + (i & mask)).deinitialize(count: 1)
            i &+= 1
        }
    }

    /// Schedules `payload` at `time` with `rank` in `slot`, superseding the slot's
    /// pending event if it has one.
    ///
    /// Kept out of line (a model schedules from many places); `scheduleInLine` is the
    /// same, made at the call.
    @inlinable @inline(never)
    public func schedule(at time: SimTime, rank: UInt8, slot: Int, _ payload: Payload) {
        scheduleInLine(at: time, rank: rank, slot: slot, payload)
    }

    /// `schedule`, made in line at the call (for a model's hottest site) and short for
    /// the common case, a slot with no pending event and an event after every pending
    /// one (a timeline asking again after the reload that delivered its last request):
    /// one store at the tail. Anything else, an empty queue included, is left to
    /// `schedule(key:slot:_:)`, out of line.
    @inlinable @inline(__always)
    public func scheduleInLine(at time: SimTime, rank: UInt8, slot: Int, _ payload: Payload) {
        precondition(Self.holds(slot, below: slots), "slot \(slot) out of 0 ..< \(slots)")
        precondition(nextSequence < 1 << 56, "more events scheduled than a key numbers")
        let key = Self.key(time: time, rank: rank, sequence: nextSequence)
        nextSequence &+= 1
        if position[slot] < 0 && head != tail && !(key < entries[(tail &- 1) & mask].key) {
            append(Entry(key: key, slot: slot, payload: payload))
            return
        }
        schedule(key: key, slot: slot, payload)
    }

    /// Puts an event with `key` in `slot`, superseding the slot's pending event if it
    /// has one: `schedule`'s general case.
    @inlinable @inline(never)
    func schedule(key: UInt128, slot: Int, _ payload: Payload) {
        let pending = position[slot]
        if pending >= 0 { removeInLine(at: pending) }
        insert(Entry(key: key, slot: slot, payload: payload))
    }

    /// Puts `entry` after every pending event (which it must not come before), at the
    /// tail; the caller sets `firstKey` when the queue was empty.
    @inlinable @inline(__always)
    func append(_ entry: Entry) {
        // The fields read before anything is stored: a store through a pointer could
        // otherwise be taken to change them, and each read again after it.
        let tail = self.tail, position = self.position, cell = entries + (tail & mask)
        self.tail = tail &+ 1
        cell.initialize(to: entry)
        position[entry.slot] = tail
    }

    /// Removes the pending event of `slot`, if any.
    @inlinable @inline(__always)
    public func cancel(slot: Int) {
        precondition(Self.holds(slot, below: slots), "slot \(slot) out of 0 ..< \(slots)")
        let pending = position[slot]
        if pending >= 0 { remove(at: pending) }
    }

    /// The time of `slot`'s pending event, or nil when it has none.
    @inlinable
    public func pendingTime(slot: Int) -> SimTime? {
        precondition(Self.holds(slot, below: slots), "slot \(slot) out of 0 ..< \(slots)")
        let pending = position[slot]
        return pending < 0 ? nil : Self.time(entries[pending & mask].key)
    }

    /// Whether the first pending event comes before `time` and `rank`: earlier, or at
    /// `time` with a lower rank (the place of an event of `rank` outside the queue, such
    /// as an item of a list merged with it, that no queued event shares its rank with).
    @inlinable @inline(__always)
    public func hasEvent(before time: SimTime, rank: UInt8) -> Bool {
        firstKey < Self.key(time: time, rank: rank)
    }

    /// Removes and returns the first pending event; there must be one.
    @inlinable @inline(__always)
    public func removeFirst() -> (time: SimTime, payload: Payload) {
        // The fields read before anything is stored (see `append`).
        let head = self.head, tail = self.tail, mask = self.mask, entries = self.entries, position = self.position
        precondition(head != tail, "no pending event")
        let first = (entries + (head & mask)).move()
        let next = head &+ 1
        self.head = next
        firstKey = next == tail ? .max : entries[next & mask].key
        position[first.slot] = -1
        return (Self.time(first.key), first.payload)
    }

    /// Puts `entry` in order: after every pending event of a smaller key (the last in the
    /// common case).
    @inlinable @inline(__always)
    func insert(_ entry: Entry) {
        var p = tail
        while p != head {
            let prior = entries + ((p &- 1) & mask)
            if !(entry.key < prior.pointee.key) { break }
            let moved = prior.move()
            (entries + (p & mask)).initialize(to: moved)
            position[moved.slot] = p
            p &-= 1
        }
        (entries + (p & mask)).initialize(to: entry)
        position[entry.slot] = p
        tail &+= 1
        if p == head { firstKey = entry.key }
    }

    /// Removes the pending event at logical index `i` (`removeInLine`, out of line).
    @inlinable @inline(never)
    func remove(at i: Int) { removeInLine(at: i) }

    /// Removes the pending event at logical index `i`, moving the shorter side of the
    /// ring into its place. Inlined into `schedule(key:slot:_:)`, where a slot's
    /// pending event is superseded.
    @inlinable @inline(__always)
    func removeInLine(at i: Int) {
        // The first event stays first unless it is the one removed: moving the side
        // before `i` moves it one cell on, with the head.
        let wasFirst = i == head
        let gone = (entries + (i & mask)).move()
        position[gone.slot] = -1
        if i &- head < tail &- 1 &- i {
            // The events before it move back one, and the head with them.
            var j = i
            while j != head {
                let moved = (entries + ((j &- 1) & mask)).move()
                (entries + (j & mask)).initialize(to: moved)
                position[moved.slot] = j
                j &-= 1
            }
            head &+= 1
        } else {
            var j = i &+ 1
            while j != tail {
                let moved = (entries + (j & mask)).move()
                (entries + ((j &- 1) & mask)).initialize(to: moved)
                position[moved.slot] = j &- 1
                j &+= 1
            }
            tail &-= 1
        }
        if wasFirst { firstKey = head == tail ? .max : entries[head & mask].key }
        assert(firstKey == (head == tail ? .max : entries[head & mask].key), "the first key is not the first event's")
    }
}
