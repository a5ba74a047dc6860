import Testing
import WidgetSimKernel

@Suite struct EventQueueTests {
    // MARK: - Time order

    @Test(arguments: [UInt64(1), 2, 3])
    func randomScheduleDrainsInTimeOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var q = EventQueue<Int>()
        var scheduled = [Delivery]()
        var invariantsHeld = true
        for id in 0 ..< 1500 {
            // Wide times, negative ones included, with the extremes now and then.
            let time: SimTime
            switch random.below(20) {
            case 0: time = .min
            case 1: time = .max
            case 2 ..< 6: time = SimTime(random.below(10))  // ties
            default: time = SimTime(bitPattern: random.next()) >> 8
            }
            q.schedule(at: time, rank: UInt8(random.below(256)), id)
            scheduled.append(Delivery(time: time, id: id))
            invariantsHeld = invariantsHeld && q.checkInvariants()
        }
        #expect(invariantsHeld)
        #expect(q.storedCount == scheduled.count)
        // The bound is exclusive, so events due at .max stay behind.
        var popped = [Delivery]()
        while let d = q.popDelivery(before: .max) {
            popped.append(d)
            invariantsHeld = invariantsHeld && q.checkInvariants()
        }
        #expect(invariantsHeld)
        let atMax = scheduled.filter { $0.time == .max }.count
        #expect(popped.count == scheduled.count - atMax)
        #expect(q.storedCount == atMax)
        #expect(zip(popped, popped.dropFirst()).allSatisfy { $0.time <= $1.time }, "not in time order")
        #expect(Set(popped.map(\.id)).count == popped.count, "an event popped twice")
        if atMax > 0 { #expect(popped.first?.time == .min) }
    }

    @Test func negativeTimesComeFirst() {
        var q = EventQueue<Int>()
        let times: [SimTime] = [5, -1, 0, .min, -86_400_000, .max - 1, 1, -2]
        for (i, t) in times.enumerated() { q.schedule(at: t, rank: 0, i) }
        let (out, held) = q.drain()
        #expect(held)
        #expect(out.map(\.time) == times.sorted())
    }

    // MARK: - Same-time rule

    @Test func sameTimeLowerRankFirst() {
        var q = EventQueue<Int>()
        let ranks: [UInt8] = [3, 1, 255, 0, 2, 128]
        for (i, r) in ranks.enumerated() { q.schedule(at: 100, rank: r, i) }
        let (out, _) = q.drain()
        // ids sorted by rank: 0 (rank 0) is id 3, then rank 1 → id 1, ...
        #expect(out.map(\.id) == [3, 1, 4, 0, 5, 2])
        #expect(out.allSatisfy { $0.time == 100 })
    }

    @Test func sameTimeAndRankInSchedulingOrder() {
        var q = EventQueue<Int>()
        for i in 0 ..< 50 { q.schedule(at: 7, rank: 2, i) }
        let (out, held) = q.drain()
        #expect(held)
        #expect(out.map(\.id) == Array(0 ..< 50))
    }

    @Test func reverseRankOrderAndInterleavedTimes() {
        var q = EventQueue<Int>()
        // Scheduled from rank 5 down to rank 0, alternating between times 20 and 10,
        // two events of every (time, rank): ids 0, 2 are (20, rank 5), ids 1, 3 are
        // (10, rank 5), ..., ids 21, 23 are (10, rank 0).
        var id = 0
        for r in stride(from: 5, through: 0, by: -1) {
            for _ in 0 ..< 2 {
                for t: SimTime in [20, 10] {
                    q.schedule(at: t, rank: UInt8(r), id)
                    id += 1
                }
            }
        }
        let (out, held) = q.drain()
        #expect(held)
        #expect(out.map(\.id) == [
            21, 23, 17, 19, 13, 15, 9, 11, 5, 7, 1, 3,  // time 10, ranks 0 ... 5
            20, 22, 16, 18, 12, 14, 8, 10, 4, 6, 0, 2,  // time 20, ranks 0 ... 5
        ])
        #expect(out.map(\.time) == Array(repeating: 10, count: 12) + Array(repeating: 20, count: 12))
    }

    @Test func rankTiesSurviveInterleavedPops() {
        // Scheduling order decides between equal (time, rank) even when pops and
        // schedules alternate (the consumed-top path).
        var q = EventQueue<Int>()
        q.schedule(at: 5, rank: 1, 0)
        q.schedule(at: 5, rank: 1, 1)
        do { let popped = q.popDelivery(); #expect(popped?.id == 0) }
        q.schedule(at: 5, rank: 1, 2)  // overwrites the consumed top
        q.schedule(at: 5, rank: 0, 3)  // lower rank: runs before 1 and 2
        do { let popped = q.popDelivery(); #expect(popped?.id == 3) }
        do { let popped = q.popDelivery(); #expect(popped?.id == 1) }
        q.schedule(at: 5, rank: 1, 4)
        do { let popped = q.popDelivery(); #expect(popped?.id == 2) }
        do { let popped = q.popDelivery(); #expect(popped?.id == 4) }
        do { let popped = q.popDelivery(); #expect(popped == nil) }
        #expect(q.isEmpty)
    }

    // MARK: - Slots

    @Test func supersedeEarlierAndLater() {
        var q = EventQueue<Int>(slots: 2)
        q.schedule(at: 100, rank: 0, slot: 0, 1)
        #expect(q.pendingTime(slot: 0) == 100)
        q.schedule(at: 50, rank: 0, slot: 0, 2)  // supersedes with an earlier time
        #expect(q.pendingTime(slot: 0) == 50)
        q.schedule(at: 10, rank: 0, slot: 1, 3)
        q.schedule(at: 200, rank: 0, slot: 1, 4)  // supersedes with a later time
        #expect(q.pendingTime(slot: 1) == 200)
        // A superseded event leaves the heap at once: the live ones alone are stored.
        #expect(q.storedCount == 2)
        let (out, held) = q.drain()
        #expect(held)
        #expect(out == [Delivery(time: 50, id: 2), Delivery(time: 200, id: 4)])
        #expect(q.pendingTime(slot: 0) == nil)
        #expect(q.pendingTime(slot: 1) == nil)
        #expect(q.isEmpty)
    }

    @Test func supersedeAtTheSameTime() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 30, rank: 1, slot: 0, 1)
        q.schedule(at: 30, rank: 1, 2)
        q.schedule(at: 30, rank: 1, slot: 0, 3)
        let (out, _) = q.drain()
        // The replacement takes its own scheduling order: after 2.
        #expect(out.map(\.id) == [2, 3])
    }

    @Test func cancelWithdraws() {
        var q = EventQueue<Int>(slots: 3)
        q.schedule(at: 10, rank: 0, slot: 0, 1)
        q.schedule(at: 20, rank: 0, slot: 1, 2)
        q.schedule(at: 15, rank: 0, 3)
        q.cancel(slot: 0)
        q.cancel(slot: 2)  // empty: no effect
        #expect(q.pendingTime(slot: 0) == nil)
        #expect(q.pendingTime(slot: 1) == 20)
        #expect(q.pendingTime(slot: 2) == nil)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 15, id: 3)) }
        // A cancelled slot can be used again.
        q.schedule(at: 18, rank: 0, slot: 0, 4)
        #expect(q.pendingTime(slot: 0) == 18)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 18, id: 4)) }
        #expect(q.pendingTime(slot: 0) == nil)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 20, id: 2)) }
        do { let popped = q.popDelivery(); #expect(popped == nil) }
        #expect(q.isEmpty)
    }

    @Test func deliveredSlotIsEmptyAndReusable() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 5, rank: 0, slot: 0, 1)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 5, id: 1)) }
        #expect(q.pendingTime(slot: 0) == nil)
        // Cancelling the delivered (consumed) event's slot changes nothing.
        q.cancel(slot: 0)
        q.schedule(at: 6, rank: 0, slot: 0, 2)  // overwrites the consumed top
        #expect(q.pendingTime(slot: 0) == 6)
        #expect(q.checkInvariants())
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 6, id: 2)) }
        do { let popped = q.popDelivery(); #expect(popped == nil) }
    }

    @Test func supersededEventsDroppedBeyondTheBound() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 10, rank: 0, slot: 0, 1)
        q.schedule(at: 99, rank: 0, slot: 0, 2)
        q.schedule(at: 20, rank: 0, 3)
        do { let popped = q.popDelivery(before: 50); #expect(popped == Delivery(time: 20, id: 3)) }
        do { let popped = q.popDelivery(before: 50); #expect(popped == nil) }
        #expect(q.pendingTime(slot: 0) == 99)
        do { let popped = q.popDelivery(before: 100); #expect(popped == Delivery(time: 99, id: 2)) }
    }

    // MARK: - Value semantics

    /// A copy shares its storage with the original until either changes; then each has
    /// its own events and slots, a consumed top included.
    @Test func copiesAreIndependent() {
        var a = EventQueue<Int>(slots: 2)
        a.schedule(at: 5, rank: 0, slot: 0, 1)
        a.schedule(at: 7, rank: 0, 2)
        a.schedule(at: 1, rank: 0, 3)
        do { let popped = a.popDelivery(); #expect(popped == Delivery(time: 1, id: 3)) }
        var b = a  // shares the storage, the consumed top with it
        b.cancel(slot: 0)
        b.schedule(at: 6, rank: 0, slot: 1, 4)
        let c = b
        #expect(a.pendingTime(slot: 0) == 5 && a.pendingTime(slot: 1) == nil)
        #expect(c.pendingTime(slot: 0) == nil && c.pendingTime(slot: 1) == 6)
        let (fromA, heldA) = a.drain()
        let (fromB, heldB) = b.drain()
        #expect(heldA && heldB)
        #expect(fromA == [Delivery(time: 5, id: 1), Delivery(time: 7, id: 2)])
        #expect(fromB == [Delivery(time: 6, id: 4), Delivery(time: 7, id: 2)])
        #expect(c.storedCount == 2 && c.pendingTime(slot: 1) == 6)
    }

    /// Payloads that are objects are released exactly once, whether delivered,
    /// superseded, cancelled, removed with `removeAll` or left in a queue that goes
    /// away, and a copy keeps its own references.
    @Test func objectPayloadsAreReleasedOnce() {
        final class Live { var count = 0 }
        final class Token {
            let id: Int
            let live: Live
            init(_ id: Int, _ live: Live) { self.id = id; self.live = live; live.count += 1 }
            deinit { live.count -= 1 }
        }
        let live = Live()
        do {
            var q = EventQueue<Token>(slots: 3)
            q.schedule(at: 5, rank: 0, slot: 0, Token(1, live))
            q.schedule(at: 9, rank: 0, slot: 0, Token(2, live))  // supersedes 1
            q.schedule(at: 7, rank: 0, slot: 1, Token(3, live))
            q.schedule(at: 6, rank: 0, Token(4, live))
            #expect(live.count == 3)
            q.cancel(slot: 1)  // releases 3
            #expect(live.count == 2)
            var copy = q
            q.schedule(at: 1, rank: 0, slot: 2, Token(5, live))  // q gets its own buffer
            #expect(live.count == 3)
            #expect(q.popNext(before: .max)?.payload.id == 5)
            #expect(q.popNext(before: .max)?.payload.id == 4)
            #expect(copy.popNext(before: .max)?.payload.id == 4)
            copy.removeAll()
            #expect(q.pendingTime(slot: 0) == 9 && copy.pendingTime(slot: 0) == nil)
            // Of q's, only 2 is pending; a delivered top may be kept until q's next change.
            #expect(live.count >= 1 && live.count <= 2)
            q.removeAll()
            #expect(live.count == 0)
            q.schedule(at: 3, rank: 0, slot: 1, Token(6, live))
        }
        #expect(live.count == 0)
    }

    // MARK: - Bounds

    @Test func popBeforeLimitExcludesTheLimit() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 100, rank: 0, 1)
        q.schedule(at: 100, rank: 0, slot: 0, 2)
        q.schedule(at: 99, rank: 5, 3)
        do { let popped = q.popDelivery(before: 100); #expect(popped == Delivery(time: 99, id: 3)) }
        do { let popped = q.popDelivery(before: 100); #expect(popped == nil) }
        do { let popped = q.popDelivery(before: 100); #expect(popped == nil) }
        #expect(q.storedCount == 2)
        #expect(q.pendingTime(slot: 0) == 100)
        do { let popped = q.popDelivery(before: 101); #expect(popped == Delivery(time: 100, id: 1)) }
        do { let popped = q.popDelivery(before: 101); #expect(popped == Delivery(time: 100, id: 2)) }
        #expect(q.isEmpty)
    }

    // MARK: - Counts

    @Test func storedCountAndIsEmpty() {
        var q = EventQueue<Int>(slots: 1)
        #expect(q.isEmpty && q.storedCount == 0)
        q.schedule(at: 1, rank: 0, 1)
        q.schedule(at: 2, rank: 0, 2)
        #expect(q.storedCount == 2 && !q.isEmpty)
        _ = q.popDelivery()
        #expect(q.storedCount == 1)  // the consumed top no longer counts
        _ = q.popDelivery()
        #expect(q.storedCount == 0 && q.isEmpty)
        do { let popped = q.popDelivery(); #expect(popped == nil) }
        #expect(q.isEmpty)
    }

    // MARK: - removeAll

    @Test func removeAllResets() {
        var random = SplitMix64(seed: 42)
        var q = EventQueue<Int>(slots: 4)
        for i in 0 ..< 200 {
            if random.chance(50) {
                q.schedule(at: SimTime(random.below(100)), rank: UInt8(random.below(3)), slot: random.below(4), i)
            } else {
                q.schedule(at: SimTime(random.below(100)), rank: UInt8(random.below(3)), i)
            }
        }
        _ = q.popDelivery()  // leave a consumed top behind
        q.removeAll()
        #expect(q.isEmpty)
        #expect(q.storedCount == 0)
        for s in 0 ..< 4 { #expect(q.pendingTime(slot: s) == nil) }
        do { let popped = q.popDelivery(); #expect(popped == nil) }
        #expect(q.checkInvariants())

        // After the reset, the same operations give the same deliveries as on a fresh
        // queue (the scheduling order restarts too).
        func fill(_ q: inout EventQueue<Int>) {
            var r = SplitMix64(seed: 7)
            for i in 0 ..< 300 {
                let t = SimTime(r.below(50)), rank = UInt8(r.below(2))
                if r.chance(30) { q.schedule(at: t, rank: rank, slot: r.below(4), i) } else { q.schedule(at: t, rank: rank, i) }
            }
        }
        var fresh = EventQueue<Int>(slots: 4)
        fill(&q)
        fill(&fresh)
        let a = q.drain(), b = fresh.drain()
        #expect(a.invariantsHeld && b.invariantsHeld)
        let difference = firstDifference(a.deliveries, b.deliveries)
        #expect(difference == nil)
        #expect(a.deliveries.count > 100)
    }

    @Test func removeAllChangesTheSlotCount() {
        var q = EventQueue<Int>(slots: 2)
        q.schedule(at: 3, rank: 0, slot: 1, 1)
        q.removeAll(slots: 5)
        #expect(q.isEmpty)
        for s in 0 ..< 5 { #expect(q.pendingTime(slot: s) == nil) }
        q.schedule(at: 4, rank: 0, slot: 4, 2)
        #expect(q.pendingTime(slot: 4) == 4)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 4, id: 2)) }
        q.removeAll(slots: 1)
        q.schedule(at: 1, rank: 0, slot: 0, 3)
        q.schedule(at: 2, rank: 0, slot: 0, 4)
        let drained = q.drain().deliveries
        #expect(drained == [Delivery(time: 2, id: 4)])
    }

    @Test func removeAllLeavesNoStaleSlotState() {
        // A slot whose event was scheduled before removeAll must not resurrect an
        // entry scheduled afterwards with a recycled sequence number.
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 10, rank: 0, 1)  // sequence 1
        q.schedule(at: 20, rank: 0, slot: 0, 2)  // sequence 2 in slot 0
        q.removeAll()
        q.schedule(at: 30, rank: 0, 3)  // sequence 1 again
        q.schedule(at: 40, rank: 0, slot: 0, 4)  // sequence 2 again
        q.cancel(slot: 0)
        let drained = q.drain().deliveries
        #expect(drained == [Delivery(time: 30, id: 3)])
    }
}
