import Testing
import WidgetSimKernel

/// Exclusive access (`beginExclusiveAccess()`), under which a queue's changes skip the
/// uniqueness check, and the consumed top that `nothingDue` recognises by its key.
/// The orders under exclusive access are compared with the reference queue in
/// `ReferenceComparisonTests.randomOperations`.
@Suite struct ExclusiveAccessTests {
    /// After exclusive access ends, a copy shares the storage again only until either
    /// changes: the changes made under exclusive access stay, and each copy then has
    /// its own events.
    @Test func copiesAreIndependentAfterExclusiveAccess() {
        var a = EventQueue<Int>(slots: 2)
        a.schedule(at: 9, rank: 0, slot: 1, 1)
        a.beginExclusiveAccess()
        a.schedule(at: 5, rank: 0, slot: 0, 2)
        a.schedule(at: 7, rank: 0, 3)
        do { let popped = a.popDelivery(); #expect(popped == Delivery(time: 5, id: 2)) }
        a.cancel(slot: 1)
        a.endExclusiveAccess()
        var b = a
        b.schedule(at: 6, rank: 0, slot: 0, 4)
        b.schedule(at: 8, rank: 0, slot: 1, 5)
        #expect(a.storedCount == 1 && a.pendingTime(slot: 0) == nil && a.pendingTime(slot: 1) == nil)
        #expect(b.storedCount == 3 && b.pendingTime(slot: 0) == 6 && b.pendingTime(slot: 1) == 8)
        #expect(a.checkInvariants() && b.checkInvariants())
        #expect(a.drain().deliveries == [Delivery(time: 7, id: 3)])
        #expect(b.drain().deliveries == [Delivery(time: 6, id: 4), Delivery(time: 7, id: 3), Delivery(time: 8, id: 5)])
    }

    /// A `Simulation` whose queue is under exclusive access handles the same events in
    /// the same order as one whose queue is not.
    @Test(arguments: [UInt64(31), 32])
    func simulationUnderExclusiveAccess(seed: UInt64) {
        func run(exclusive: Bool) -> [Delivery] {
            var random = SplitMix64(seed: seed)
            var q = EventQueue<Int>(slots: Script.slotCount)
            for i in 0 ..< 20 { q.schedule(at: SimTime(random.below(500)), rank: UInt8(random.below(4)), i) }
            var sim = Simulation(handler: ScriptedHandler(script: Script(.slots, seed: seed)), queue: q)
            q = EventQueue()
            if exclusive { sim.queue.beginExclusiveAccess() }
            sim.run(until: 3000)
            if exclusive { sim.queue.endExclusiveAccess() }
            #expect(sim.handler.invariantFailures == 0)
            return sim.handler.log
        }
        let plain = run(exclusive: false), exclusive = run(exclusive: true)
        #expect(plain.count > 500)
        let difference = firstDifference(exclusive, plain)
        #expect(difference == nil)
    }

    /// A delivered top that nothing overwrote is removed by the next pop, whatever its
    /// bound; under the smallest bound nothing is due, and the queue is unchanged.
    @Test func consumedTopAndTheSmallestBound() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 5, rank: 0, slot: 0, 1)
        q.schedule(at: 8, rank: 2, 2)
        do { let popped = q.popDelivery(); #expect(popped == Delivery(time: 5, id: 1)) }
        do { let popped = q.popNext(before: .min, rank: 0); #expect(popped == nil) }
        do { let popped = q.popDelivery(before: .min); #expect(popped == nil) }
        #expect(q.storedCount == 1 && q.pendingTime(slot: 0) == nil && q.checkInvariants())
        do { let popped = q.popDelivery(before: 8); #expect(popped == nil) }
        #expect(q.storedCount == 1 && q.checkInvariants())
        do { let popped = q.popNext(before: 8, rank: 3); #expect(popped?.payload == 2) }
        do { let popped = q.popDelivery(); #expect(popped == nil) }
        #expect(q.isEmpty && q.checkInvariants())
        // An event at the smallest time is due under any bound but the smallest.
        q.schedule(at: .min, rank: 0, 3)
        do { let popped = q.popNext(before: .min, rank: 0); #expect(popped == nil) }
        do { let popped = q.popNext(before: .min, rank: 1); #expect(popped?.payload == 3) }
        #expect(q.isEmpty)
    }
}
