import Testing
import WidgetSimKernel

/// The queue driven by a model that schedules as it handles events.
@Suite struct HandledEventTests {
    func simulation(slots: Int = 4) -> QueueLoop<CountingHandler> {
        QueueLoop(handler: CountingHandler(), queue: EventQueue<Int>(slots: slots))
    }

    @Test func runUntilStopsBeforeTheBound() {
        var sim = simulation()
        sim.queue.schedule(at: 10, rank: 0, 1)
        sim.queue.schedule(at: 100, rank: 0, 2)
        sim.queue.schedule(at: 100, rank: 0, slot: 0, 3)
        sim.queue.schedule(at: 99, rank: 9, 4)
        sim.queue.schedule(at: 150, rank: 0, 5)
        sim.run(until: 100)
        #expect(sim.handler.log == [Delivery(time: 10, id: 1), Delivery(time: 99, id: 4)])
        #expect(sim.now == 100)
        #expect(sim.eventsHandled == 2)
        #expect(sim.queue.pendingTime(slot: 0) == 100)
        #expect(sim.queue.storedCount == 3)

        // Running to the same bound again does nothing.
        sim.run(until: 100)
        #expect(sim.eventsHandled == 2)
        #expect(sim.now == 100)

        sim.run(until: 120)
        #expect(sim.handler.log.suffix(2) == [Delivery(time: 100, id: 2), Delivery(time: 100, id: 3)])
        #expect(sim.now == 120)
        #expect(sim.eventsHandled == 4)
        #expect(sim.queue.pendingTime(slot: 0) == nil)

        sim.run(until: 1000)
        #expect(sim.handler.log.last == Delivery(time: 150, id: 5))
        #expect(sim.now == 1000)
        #expect(sim.eventsHandled == 5)
        #expect(sim.queue.isEmpty)
    }

    @Test func supersededAndCancelledEventsAreNotCounted() {
        var sim = simulation(slots: 3)
        sim.queue.schedule(at: 10, rank: 0, slot: 0, 1)
        sim.queue.schedule(at: 20, rank: 0, slot: 0, 2)  // supersedes 1
        sim.queue.schedule(at: 5, rank: 0, slot: 0, 3)  // supersedes 2
        sim.queue.schedule(at: 15, rank: 0, slot: 1, 4)
        sim.queue.cancel(slot: 1)
        sim.queue.schedule(at: 12, rank: 0, slot: 2, 5)
        sim.queue.schedule(at: 30, rank: 0, 6)
        sim.run(until: 100)
        #expect(sim.handler.log.map(\.id) == [3, 5, 6])
        #expect(sim.eventsHandled == 3)
        #expect(sim.queue.isEmpty)
    }

    /// A handler that reschedules its own slot and supersedes a timer in another.
    struct TimerHandler: EventHandler {
        var log: [Delivery] = []
        mutating func handle(_ payload: Int, at time: SimTime, queue: inout EventQueue<Int>) {
            log.append(Delivery(time: time, id: payload))
            guard payload == 0 else { return }
            // Payload 0 ticks every 10 ms in slot 0 and pushes the timeout in slot 1 back.
            if time < 50 { queue.schedule(at: time + 10, rank: 0, slot: 0, 0) }
            queue.schedule(at: time + 25, rank: 0, slot: 1, 1)
        }
    }

    @Test func handlerSupersedesDuringHandle() {
        var q = EventQueue<Int>(slots: 2)
        q.schedule(at: 0, rank: 0, slot: 0, 0)
        var sim = QueueLoop(handler: TimerHandler(), queue: q)
        sim.run(until: 1000)
        // Ticks at 0, 10, ..., 50; the timeout fires once, 25 ms after the last tick.
        let ticks = (0 ... 5).map { Delivery(time: SimTime($0 * 10), id: 0) }
        #expect(sim.handler.log == ticks + [Delivery(time: 75, id: 1)])
        #expect(sim.eventsHandled == 7)
        #expect(sim.queue.isEmpty)
    }

    /// Same inputs, same event sequence; a different seed, a different one.
    @Test(arguments: Reaction.allCases)
    func identicalRunsForIdenticalInputs(reaction: Reaction) {
        func run(seed: UInt64) -> (log: [Delivery], handled: Int) {
            var q = EventQueue<Int>(slots: Script.slotCount)
            var random = SplitMix64(seed: seed)
            for i in 0 ..< 100 {
                q.schedule(at: SimTime(random.below(100)), rank: UInt8(random.below(4)), i)
            }
            var sim = QueueLoop(handler: ScriptedHandler(script: Script(reaction, seed: seed), checkEvery: 0), queue: q)
            sim.run(until: 2000)
            return (sim.handler.log, sim.eventsHandled)
        }
        let a = run(seed: 11), b = run(seed: 11), c = run(seed: 12)
        let difference = firstDifference(a.log, b.log)
        #expect(difference == nil)
        #expect(a.handled == b.handled)
        #expect(a.handled == a.log.count)
        #expect(a.log.count >= 100)
        #expect(firstDifference(a.log, c.log) != nil)
    }
}
