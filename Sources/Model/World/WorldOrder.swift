import WidgetSimKernel

/// The order in which the engine meets a person's world: every item of every process's
/// list, by time, then by process (`WorldProcess` is numbered in its same-time rank
/// order), then by position in its list.
///
/// A world is built once per person and run under every policy pair, so its lists are
/// put in this order once, when it is built, and each run reads it straight through.
/// `keys[k]` is item k's sort key: its time (≥ 0) above four bits of its process,
/// above `widgetBits` of its widget (the content changes' and pushes'; 0 for the
/// processes that are one list). An item's position in its process's list is the
/// number of that process's items before it in the order (a run counts them).
///
/// The views, the longest list, are not in `keys`: a view is the last process at its
/// time, so a run reads the world's views beside the keys, each view before the first
/// item of a later time (`viewCount` of them, those before the run's end).
public struct WorldOrder {
    /// The items' sort keys in order: the first `count` of them (the storage is the
    /// merge's, kept from person to person).
    private var sortedKeys: [UInt64] = []
    /// The number of items in the order (the views aside).
    public private(set) var count = 0
    /// The number of the world's views before the run's end (the first of its views).
    public private(set) var viewCount = 0

    /// Item k's sort key, for k below `count`.
    public var keys: ArraySlice<UInt64> { sortedKeys[..<count] }

    /// Calls `body` with the sort keys in place.
    func withKeys<R>(_ body: (UnsafeBufferPointer<UInt64>) throws -> R) rethrows -> R {
        try sortedKeys.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The time of the item with `key`.
    @inline(__always)
    public static func time(_ key: UInt64) -> SimTime { SimTime(key >> UInt64(4 + widgetBits)) }

    /// The process of the item with `key`.
    @inline(__always)
    public static func process(_ key: UInt64) -> WorldProcess {
        // The cases take their raw values in declaration order, so a case's one-byte tag
        // is its raw value: read as such, without the checked initialiser's call.
        let raw = UInt8(truncatingIfNeeded: key >> UInt64(widgetBits) & 15)
        let p = unsafeBitCast(raw, to: WorldProcess.self)
        assert(p.rawValue == Int(raw), "a world key holds a process number that no case has")
        return p
    }

    /// The widget of the item with `key` (a content change's or a push's).
    @inline(__always)
    public static func widget(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key & (1 << UInt64(widgetBits) - 1)) }

    /// Sort keys carry the item's widget below its process, in this many bits (the
    /// scenario bounds allow at most 100 widgets), so that the content changes and
    /// pushes of every widget sort into their time-then-widget order.
    static let widgetBits = 7

    /// Scratch, reused person after person: the items' sort keys in bucket order; the
    /// buckets' counts, all 0 between calls (each call sets back to 0 those it counted
    /// in, when it sums them); and the buckets' starts.
    private var bucketed: [UInt64] = []
    private var buckets: [Int32] = []
    private var starts: [Int32] = []

    /// Orders `world`'s items before `end` (the run's end), among them the world's
    /// `randomChanges` and `pushes` (laid out from the order when read):
    /// `changes[w]` and `world.pushTimes[w]` are widget w's sorted times, and each of
    /// the two lists takes every widget's items by time, then widget (same-time items of
    /// one widget in list order).
    ///
    /// Every item gets the sort key (time, process, widget — 0 for the processes that
    /// are one list). The items are counted into buckets of consecutive times (a power
    /// of two of milliseconds, as many buckets as items or fewer), then their keys are
    /// moved into bucket order list by list in process order (a stable counting sort,
    /// two passes over the lists, the keys made in the second), and each bucket is put
    /// in order by insertion sort, which keeps equal keys (items of one list at one
    /// time) in list order: the result is the order by (time, process, widget, position
    /// in the widget's list). As each process's items come out in its list's order (the
    /// lists are sorted by time), an item's position is the number of that process's
    /// items before it.
    ///
    /// The views, the longest list, are left out: as the last process, a view comes
    /// after every other item of its time, so a run reads them in their own list,
    /// beside the keys; `viewCount` counts those before the end.
    mutating func merge(_ world: PersonWorld, changes: [[SimTime]], before end: SimTime) {
        precondition(changes.count <= 1 << Self.widgetBits && world.pushTimes.count <= 1 << Self.widgetBits,
                     "more widgets than world keys hold")
        var bound = 0
        for p in WorldProcess.allCases {
            switch p {
            case .contentChange: for list in changes { bound += list.count }
            case .push: for list in world.pushTimes { bound += list.count }
            case .view: break
            default: bound += world.count(p)
            }
        }
        // The views before the end (their list is in time order).
        var viewCount = world.views.count
        while viewCount > 0 && world.views[viewCount - 1].time >= end { viewCount -= 1 }
        self.viewCount = end > 0 ? viewCount : 0
        guard bound > 0 && end > 0 else {
            count = 0
            (changeCount, pushCount) = (0, 0)
            world.momentsLaidOut = false
            return
        }
        // Buckets of 2^shift ms over [0, end), no more of them than items.
        var bucketBits: UInt64 = 0
        while UInt64(end - 1) >> bucketBits >= UInt64(max(bound, 1)) { bucketBits += 1 }
        let shift = bucketBits
        let bucketCount = Int(UInt64(end - 1) >> shift) + 1
        if bucketed.count < bound { bucketed = Array(repeating: 0, count: bound) }
        if buckets.count < bucketCount + 1 {
            buckets = Array(repeating: 0, count: bucketCount + 1)
            starts = buckets
        }
        let timeShift = UInt64(4 + Self.widgetBits)
        // The loops below run once per item: they work through pointers, with wrapping
        // arithmetic and shifts (every count fits, and the shifts are below 64). Their
        // counts are the closures' own, returned: the merge's variables, changed in a
        // closure, would be checked for exclusive access at every change.
        let (total, changeCount, pushCount) = bucketed.withUnsafeMutableBufferPointer { sortedBuffer in
            buckets.withUnsafeMutableBufferPointer { bucketBuffer in starts.withUnsafeMutableBufferPointer { startBuffer in
                let sorted = sortedBuffer.baseAddress!
                let buckets = bucketBuffer.baseAddress!, starts = startBuffer.baseAddress!
                // Walks a list's items before the end and returns how many: counting each
                // bucket's items one slot on (so that the running sums below are the
                // buckets' starts), or, once the starts are summed (`placing`), moving
                // each item's key to its bucket's next slot.
                func walk<Item>(
                    _ list: [Item], _ p: WorldProcess, widget: Int = 0, placing: Bool, time: (Item) -> SimTime
                ) -> Int {
                    list.withUnsafeBufferPointer { items in
                        // The list is in time order, and few items, if any, come at or
                        // after the end.
                        var n = items.count
                        while n > 0 && time(items[n &- 1]) >= end { n &-= 1 }
                        if placing {
                            let tag = UInt64(p.rawValue) &<< UInt64(Self.widgetBits) | UInt64(widget)
                            for k in 0 ..< n {
                                let u = UInt64(truncatingIfNeeded: time(items[k]))
                                let b = Int(truncatingIfNeeded: u &>> shift)
                                let slot = starts[b]
                                sorted[Int(truncatingIfNeeded: slot)] = u &<< timeShift | tag
                                starts[b] = slot &+ 1
                            }
                        } else {
                            let counts = buckets + 1
                            for k in 0 ..< n {
                                counts[Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: time(items[k])) &>> shift)] &+= 1
                            }
                        }
                        return n
                    }
                }
                // Every list in process order, and the number of items, content changes
                // and pushes walked.
                func walkAll(placing: Bool) -> (Int, Int, Int) {
                    var total = 0, changeCount = 0, pushCount = 0
                    for p in WorldProcess.allCases {
                        switch p {
                        case .timeChange: total &+= walk(world.timeChanges, p, placing: placing) { $0 }
                        case .environmentChange: total &+= walk(world.environmentChanges, p, placing: placing) { $0 }
                        case .widgetAdded: total &+= walk(world.additions, p, placing: placing) { $0.time }
                        case .contentChange:
                            for (w, list) in changes.enumerated() {
                                changeCount &+= walk(list, p, widget: w, placing: placing) { $0 }
                            }
                            total &+= changeCount
                        case .push:
                            for (w, list) in world.pushTimes.enumerated() {
                                pushCount &+= walk(list, p, widget: w, placing: placing) { $0 }
                            }
                            total &+= pushCount
                        case .sessionEnd: total &+= walk(world.sessionEnds, p, placing: placing) { $0.time }
                        case .audioEnd: total &+= walk(world.audioEnds, p, placing: placing) { $0.time }
                        case .standByEnd: total &+= walk(world.standByEnds, p, placing: placing) { $0 }
                        case .sessionStart: total &+= walk(world.sessions, p, placing: placing) { $0.start }
                        case .audioStart: total &+= walk(world.audioStarts, p, placing: placing) { $0.time }
                        case .standByStart: total &+= walk(world.standByStarts, p, placing: placing) { $0 }
                        case .view: break  // read beside the order
                        }
                    }
                    return (total, changeCount, pushCount)
                }
                _ = walkAll(placing: false)
                // The buckets' starts, and their counts back to 0 for the next call (in
                // this loop, which reads every count anyway, rather than in a pass of
                // its own over the array).
                var running: Int32 = 0
                for b in 0 ... bucketCount {
                    running &+= buckets[b]
                    buckets[b] = 0
                    starts[b] = running
                }
                // Into bucket order, stably: each bucket's items in list and process order.
                let counted = walkAll(placing: true)
                let total = counted.0
                // Insertion sort: only items of one bucket are out of order, and a key
                // moves only past greater ones.
                var i = 1
                while i < total {
                    let key = sorted[i]
                    if sorted[i &- 1] > key {
                        var j = i
                        repeat {
                            sorted[j] = sorted[j &- 1]
                            j &-= 1
                        } while j > 0 && sorted[j &- 1] > key
                        sorted[j] = key
                    }
                    i &+= 1
                }
                return counted
            } }
        }
        // The sorted keys are the order (their storage is the next call's scratch).
        swap(&sortedKeys, &bucketed)
        count = total
        (self.changeCount, self.pushCount) = (changeCount, pushCount)
        world.momentsLaidOut = false
    }

    /// The number of content changes and of pushes in the order.
    private(set) var changeCount = 0
    private(set) var pushCount = 0

    /// The order's content changes and pushes as moments, in its sequence (by time, then
    /// widget), written over `changes` and `pushes`.
    func layOut(changes: inout [WidgetMoment], pushes: inout [WidgetMoment]) {
        changes.resize(to: changeCount, filler: WidgetMoment(time: 0, widget: 0))
        pushes.resize(to: pushCount, filler: WidgetMoment(time: 0, widget: 0))
        guard changeCount + pushCount > 0 else { return }
        changes.withUnsafeMutableBufferPointer { changes in
            pushes.withUnsafeMutableBufferPointer { pushes in
                withKeys { keys in
                    var c = 0, q = 0
                    for key in keys {
                        let p = Self.process(key)
                        guard p == .contentChange || p == .push else { continue }
                        let moment = WidgetMoment(time: Self.time(key), widget: Int32(truncatingIfNeeded: Self.widget(key)))
                        if p == .contentChange {
                            changes[c] = moment
                            c += 1
                        } else {
                            pushes[q] = moment
                            q += 1
                        }
                    }
                    assert(c == changeCount && q == pushCount, "moments laid out and counted differ")
                }
            }
        }
    }
}

extension PersonWorld {
    /// Lays out `randomChanges` and `pushes` from the order, unless they are already.
    func layOutMoments() {
        guard !momentsLaidOut else { return }
        var changes = changeMoments, pushes = pushMoments
        changeMoments = []
        pushMoments = []
        order.layOut(changes: &changes, pushes: &pushes)
        changeMoments = changes
        pushMoments = pushes
        momentsLaidOut = true
    }

    /// The number of items of process `p` (content changes and pushes: as laid out).
    @inline(__always)
    func count(_ p: WorldProcess) -> Int {
        switch p {
        case .timeChange: timeChanges.count
        case .environmentChange: environmentChanges.count
        case .contentChange: randomChanges.count
        case .push: pushes.count
        case .sessionEnd: sessionEnds.count
        case .sessionStart: sessions.count
        case .view: views.count
        case .widgetAdded: additions.count
        case .audioEnd: audioEnds.count
        case .standByEnd: standByEnds.count
        case .audioStart: audioStarts.count
        case .standByStart: standByStarts.count
        }
    }
}
