import Testing
import WidgetSimKernel

/// The kernel against `ReferenceQueue`, an obviously correct sorted array, over
/// thousands of random operations with fixed seeds. These exercise the consumed-top
/// path (a schedule right after a pop overwrites the top in place), superseded and
/// cancelled slot events removed where they stand, and bounds.
@Suite struct ReferenceComparisonTests {
    /// Random interleavings of schedule, slot schedule, cancel and bounded pops on a
    /// bare queue; the heap property and every slot's pending time are checked after
    /// each operation.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomOperations(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let slots = 10
        var q = EventQueue<Int>(slots: slots)
        var ref = ReferenceQueue()
        var now: SimTime = 0
        var mismatches = 0, invariantFailures = 0, pops = 0, consumedTopSchedules = 0
        var lastWasPop = false
        var firstMismatch: String?
        for id in 0 ..< 10_000 {
            let op = random.below(100)
            let time = now + SimTime(random.below(4) == 0 ? 0 : random.below(300)) - 20
            let rank = UInt8(random.below(3))
            switch op {
            case 0 ..< 30:
                if lastWasPop { consumedTopSchedules += 1 }
                q.schedule(at: time, rank: rank, id)
                ref.schedule(at: time, rank: rank, id)
                lastWasPop = false
            case 30 ..< 50:
                if lastWasPop { consumedTopSchedules += 1 }
                let s = random.below(slots)
                q.schedule(at: time, rank: rank, slot: s, id)
                ref.schedule(at: time, rank: rank, slot: s, id)
                lastWasPop = false
            case 50 ..< 55:
                let s = random.below(slots)
                q.cancel(slot: s)
                ref.cancel(slot: s)
                lastWasPop = false
            default:
                let limit = random.chance(80) ? SimTime.max : now + SimTime(random.below(200))
                let got = q.popDelivery(before: limit)
                let want = ref.popNext(before: limit)
                if got != want {
                    mismatches += 1
                    firstMismatch = firstMismatch ?? "op \(id): popped \(String(describing: got)), want \(String(describing: want))"
                }
                if let got { now = got.time; pops += 1 }
                lastWasPop = true
            }
            if !q.checkInvariants() { invariantFailures += 1 }
            for s in 0 ..< slots where q.pendingTime(slot: s) != ref.pendingTime(slot: s) {
                mismatches += 1
                firstMismatch = firstMismatch ?? "op \(id): slot \(s) pending \(String(describing: q.pendingTime(slot: s)))"
            }
            // Only live events are stored: a superseded or cancelled one leaves at once.
            if q.storedCount != ref.count {
                mismatches += 1
                firstMismatch = firstMismatch ?? "op \(id): \(q.storedCount) stored, \(ref.count) live"
            }
        }
        #expect(mismatches == 0, "first: \(firstMismatch ?? "-")")
        #expect(invariantFailures == 0)
        #expect(pops > 2000)
        #expect(consumedTopSchedules > 1000)
        // Whatever is left drains identically.
        var rest = [Delivery](), refRest = [Delivery]()
        while let d = q.popDelivery() { rest.append(d) }
        while let d = ref.popNext(before: .max) { refRest.append(d) }
        let difference = firstDifference(rest, refRest)
        #expect(difference == nil)
        #expect(q.isEmpty)
    }

    /// A queue driven by a scripted model against the same model run on the
    /// reference queue, in several `run(until:)` chunks.
    @Test(arguments: Reaction.allCases, [UInt64(21), 22, 23])
    func simulationMatchesReference(reaction: Reaction, seed: UInt64) {
        let initial = switch reaction {
        case .nothing: 3000
        case .hold, .slots: 20
        case .several: 60
        }
        var random = SplitMix64(seed: seed &* 1000)
        var q = EventQueue<Int>(slots: Script.slotCount)
        var ref = ReferenceQueue()
        for i in 0 ..< initial {
            let t = SimTime(random.below(500)), r = UInt8(random.below(4))
            if reaction == .slots && random.chance(30) {
                let s = random.below(Script.slotCount)
                q.schedule(at: t, rank: r, slot: s, i)
                ref.schedule(at: t, rank: r, slot: s, i)
            } else {
                q.schedule(at: t, rank: r, i)
                ref.schedule(at: t, rank: r, i)
            }
        }
        // The heap property is checked on every event; with thousands pending only on
        // every 8th, to keep the debug-build run short.
        let handler = ScriptedHandler(script: Script(reaction, seed: seed), checkEvery: reaction == .nothing ? 8 : 1)
        var sim = QueueLoop(handler: handler, queue: q)
        var refScript = Script(reaction, seed: seed)
        var refLog = [Delivery]()

        for bound: SimTime in [100, 250, 250, 251, 1500, 3000] {
            sim.run(until: bound)
            while let d = ref.popNext(before: bound) {
                refLog.append(d)
                refScript.react(to: d.id, at: d.time, queue: &ref)
            }
            #expect(sim.now == bound)
            #expect(sim.handler.log.count == refLog.count, "after run(until: \(bound))")
            for s in 0 ..< Script.slotCount {
                #expect(sim.queue.pendingTime(slot: s) == ref.pendingTime(slot: s), "slot \(s) at \(bound)")
            }
        }
        let difference = firstDifference(sim.handler.log, refLog)
        #expect(difference == nil)
        #expect(sim.eventsHandled == refLog.count)
        #expect(sim.handler.invariantFailures == 0)
        #expect(sim.queue.checkInvariants())
        // Enough events for the comparison to mean something.
        #expect(refLog.count >= (reaction == .nothing ? 3000 : 1000), "only \(refLog.count) events")
        #expect(sim.handler.invariantChecks >= refLog.count / 8)
        #expect(zip(refLog, refLog.dropFirst()).allSatisfy { $0.time <= $1.time })
    }
}
