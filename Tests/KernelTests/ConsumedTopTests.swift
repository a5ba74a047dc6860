import Testing
import WidgetSimKernel

/// The consumed top: a delivered top stays in place, holding a key that `nothingDue`
/// recognises, until a schedule overwrites it or the next pop removes it.
@Suite struct ConsumedTopTests {
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
