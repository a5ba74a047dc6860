import Testing
import WidgetSimKernel

/// `SlotQueue` against `ReferenceQueue` (an obviously correct sorted array) and against
/// its own promises: the delivery order of `EventQueue`, one pending event per slot, and
/// storage that survives the ring wrapping around many times.
@Suite struct SlotQueueTests {
    /// Random interleavings of slot schedules (at, before and after the pending events,
    /// with ties in time and rank), cancellations and bounded deliveries; every slot's
    /// pending time and the count are checked after each operation.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func randomOperationsMatchTheReference(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let slots = 1 + random.below(12)
        let q = SlotQueue<Int>(slots: slots)
        var ref = ReferenceQueue()
        var now: SimTime = 0
        var mismatches: [String] = []
        var pops = 0, supersedes = 0, inLine = 0
        for id in 0 ..< 20_000 {
            let op = random.below(100)
            let time = now + (random.chance(25) ? 0 : SimTime(random.below(400)))
            let rank = UInt8(random.below(3))
            switch op {
            case 0 ..< 45:
                let s = random.below(slots)
                if q.pendingTime(slot: s) != nil { supersedes += 1 }
                // `scheduleInLine` is `schedule` made at the call: either must do.
                if random.chance(50) {
                    q.scheduleInLine(at: time, rank: rank, slot: s, id)
                    inLine += 1
                } else {
                    q.schedule(at: time, rank: rank, slot: s, id)
                }
                ref.schedule(at: time, rank: rank, slot: s, id)
            case 45 ..< 55:
                let s = random.below(slots)
                q.cancel(slot: s)
                ref.cancel(slot: s)
            default:
                let limit = random.chance(70) ? SimTime.max : now + SimTime(random.below(300))
                let rank = UInt8(random.below(3))
                let want = ref.popNext(before: limit, rank: rank)
                var got: Delivery?
                if q.hasEvent(before: limit, rank: rank) {
                    let (time, payload) = q.removeFirst()
                    got = Delivery(time: time, id: payload)
                }
                if got != want, mismatches.count < 5 {
                    mismatches.append("op \(id): delivered \(String(describing: got)), want \(String(describing: want))")
                }
                if let got {
                    now = got.time
                    pops += 1
                }
            }
            for s in 0 ..< slots where q.pendingTime(slot: s) != ref.pendingTime(slot: s) && mismatches.count < 5 {
                mismatches.append("op \(id): slot \(s) pending at \(String(describing: q.pendingTime(slot: s)))")
            }
            if q.count != ref.count && mismatches.count < 5 {
                mismatches.append("op \(id): \(q.count) pending, want \(ref.count)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // The operations reached what they are meant to test.
        #expect(pops > 5_000)
        #expect(supersedes > 1_000)
        #expect(inLine > 3_000)
    }

    /// Events at one time are delivered by rank, then in the order scheduled, whatever
    /// their slots; and an event ordered before a world item of a rank is reported so.
    @Test func tiesGoByRankThenSchedulingOrder() {
        let q = SlotQueue<String>(slots: 4)
        q.schedule(at: 10, rank: 6, slot: 0, "a")
        q.schedule(at: 10, rank: 2, slot: 1, "b")
        q.schedule(at: 10, rank: 6, slot: 2, "c")
        q.schedule(at: 5, rank: 9, slot: 3, "d")
        #expect(q.hasEvent(before: 5, rank: 10))
        #expect(!q.hasEvent(before: 5, rank: 9))
        var order: [String] = []
        while !q.isEmpty { order.append(q.removeFirst().payload) }
        #expect(order == ["d", "b", "a", "c"])
        #expect(!q.hasEvent(before: .max, rank: 255))
    }

    /// A slot's new event supersedes its pending one wherever that stands, and a
    /// cancelled slot delivers nothing; removal from either side of the ring keeps the
    /// others in order.
    @Test func supersedingAndCancellingKeepTheOthersInOrder() {
        let q = SlotQueue<Int>(slots: 6)
        for s in 0 ..< 6 { q.schedule(at: SimTime(100 * (s + 1)), rank: 0, slot: s, s) }
        q.schedule(at: 50, rank: 0, slot: 4, 40)    // from near the tail to the front
        q.cancel(slot: 1)                            // near the head
        q.schedule(at: 1_000, rank: 0, slot: 0, 10)  // from the head to the back
        q.cancel(slot: 5)                            // the tail
        #expect(q.pendingTime(slot: 1) == nil && q.pendingTime(slot: 5) == nil)
        #expect(q.pendingTime(slot: 4) == 50)
        var delivered: [Int] = []
        while !q.isEmpty { delivered.append(q.removeFirst().payload) }
        #expect(delivered == [40, 2, 3, 10])
        #expect((0 ..< 6).allSatisfy { q.pendingTime(slot: $0) == nil })
    }

    /// The common cycle of a model whose events ask again after each delivery: the ring
    /// wraps around its cells many times, and the order stays the reference's.
    @Test func theRingWrapsAroundManyTimes() {
        let q = SlotQueue<Int>(slots: 5)
        var ref = ReferenceQueue()
        for s in 0 ..< 5 {
            q.schedule(at: SimTime(s), rank: 6, slot: s, s)
            ref.schedule(at: SimTime(s), rank: 6, slot: s, s)
        }
        for _ in 0 ..< 1_000 {
            let (time, s) = q.removeFirst()
            #expect(ref.popNext(before: .max) == Delivery(time: time, id: s))
            q.scheduleInLine(at: time + 60, rank: 6, slot: s, s)
            ref.schedule(at: time + 60, rank: 6, slot: s, s)
        }
        #expect(q.count == 5)
    }

    /// Payloads are held exactly while pending: every one is released once, whether
    /// delivered, superseded, cancelled, cleared or left in the queue when it goes.
    @Test func payloadsAreReleasedExactlyOnce() {
        do {
            let q = SlotQueue<Token>(slots: 8)
            var random = SplitMix64(seed: 7)
            for _ in 0 ..< 2_000 {
                let s = random.below(8)
                switch random.below(4) {
                case 0: q.cancel(slot: s)
                case 1: if !q.isEmpty { _ = q.removeFirst() }
                default: q.schedule(at: SimTime(random.below(1_000)), rank: 0, slot: s, Token())
                }
                #expect(Token.live == q.count)
            }
            q.removeAll(slots: 3)
            #expect(Token.live == 0 && q.slots == 3)
            for s in 0 ..< 3 { q.schedule(at: 1, rank: 0, slot: s, Token()) }
            #expect(Token.live == 3)
        }
        #expect(Token.live == 0)
    }
}

/// A payload that counts the instances alive.
private final class Token {
    nonisolated(unsafe) static var live = 0
    init() { Token.live += 1 }
    deinit { Token.live -= 1 }
}

extension ReferenceQueue {
    /// The first item if it comes before time `limit` and `rank`: earlier, or at `limit`
    /// with a lower rank.
    mutating func popNext(before limit: SimTime, rank: UInt8) -> Delivery? {
        guard let first = items.first, (first.time, first.rank) < (limit, rank) else { return nil }
        return popNext(before: .max)
    }
}
