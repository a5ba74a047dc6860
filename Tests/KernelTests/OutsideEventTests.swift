import Testing
import WidgetSimKernel

/// Events a caller keeps outside the queue, merged in with `run(before:rank:)`.
@Suite struct OutsideEventTests {
    /// Records handled payloads; payload n ≥ 100 schedules payload n − 100 one ms later.
    struct Recorder: EventHandler {
        var log: [(SimTime, Int)] = []
        mutating func handle(_ payload: Int, at time: SimTime, queue: inout EventQueue<Int>) {
            log.append((time, payload))
            if payload >= 100 { queue.schedule(at: time + 1, rank: 3, payload - 100) }
        }
    }

    @Test func queuedEventsBeforeTheOutsideOneRunFirst() {
        var q = EventQueue<Int>()
        q.schedule(at: 10, rank: 2, 1)   // earlier rank at the same time: before
        q.schedule(at: 10, rank: 5, 2)   // same rank: after (the outside event goes first)
        q.schedule(at: 10, rank: 7, 3)   // later rank: after
        q.schedule(at: 9, rank: 9, 4)    // earlier time: before
        q.schedule(at: 11, rank: 0, 5)   // later time: after
        var sim = QueueLoop(handler: Recorder(), queue: q)
        sim.run(before: 10, rank: 5)
        #expect(sim.handler.log.map(\.1) == [4, 1])
        #expect(sim.now == 10)
        #expect(sim.eventsHandled == 2)
        sim.run(until: 100)
        #expect(sim.handler.log.map(\.1) == [4, 1, 2, 3, 5])
    }

    @Test func eventsScheduledWhileMergingAreMergedToo() {
        var q = EventQueue<Int>()
        q.schedule(at: 0, rank: 3, 102)  // handled at 0, schedules 2 at 1, which schedules nothing
        var sim = QueueLoop(handler: Recorder(), queue: q)
        sim.run(before: 1, rank: 3)      // the event at 1 has rank 3: the outside one goes first
        #expect(sim.handler.log.map(\.1) == [102])
        sim.run(before: 1, rank: 4)
        #expect(sim.handler.log.map(\.1) == [102, 2])
        #expect(sim.now == 1)
    }

    @Test func supersededEventsStaySkipped() {
        var q = EventQueue<Int>(slots: 1)
        q.schedule(at: 5, rank: 1, slot: 0, 1)
        q.schedule(at: 8, rank: 1, slot: 0, 2)  // supersedes the event at 5
        var sim = QueueLoop(handler: Recorder(), queue: q)
        sim.run(before: 7, rank: 0)
        #expect(sim.handler.log.isEmpty)
        sim.run(before: 9, rank: 0)
        #expect(sim.handler.log.map(\.1) == [2])
    }
}
