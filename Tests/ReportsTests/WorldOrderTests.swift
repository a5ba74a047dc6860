import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// `WorldOrder.merge` against its definition: the order is every item before the run's
/// end but the views, sorted by (time, process, position in its list), with the number
/// of views before the end beside it; and the content changes and pushes laid out from
/// it are every widget's, sorted by (time, widget).
@Suite struct WorldOrderTests {
    typealias Item = (time: SimTime, process: Int, position: Int)

    /// Every item of `world`'s lists before `end`, sorted by (time, process, position).
    static func sortedItems(_ world: PersonWorld, before end: SimTime) -> [Item] {
        var items: [Item] = []
        func add(_ times: [SimTime], _ p: WorldProcess) {
            for (i, t) in times.enumerated() where t < end { items.append((t, p.rawValue, i)) }
        }
        add(world.timeChanges, .timeChange)
        add(world.environmentChanges, .environmentChange)
        add(world.additions.map(\.time), .widgetAdded)
        add(world.randomChanges.map(\.time), .contentChange)
        add(world.pushes.map(\.time), .push)
        add(world.sessionEnds.map(\.time), .sessionEnd)
        add(world.audioEnds.map(\.time), .audioEnd)
        add(world.standByEnds, .standByEnd)
        add(world.sessions.map(\.start), .sessionStart)
        add(world.audioStarts.map(\.time), .audioStart)
        add(world.standByStarts, .standByStart)
        add(world.views.map(\.time), .view)
        return items.sorted { ($0.time, $0.process, $0.position) < ($1.time, $1.process, $1.position) }
    }

    /// Every widget's times as moments, sorted by (time, widget).
    static func moments(_ lists: [[SimTime]]) -> [(SimTime, Int32)] {
        lists.enumerated().flatMap { w, times in times.map { ($0, Int32(w)) } }.sorted { $0 < $1 }
    }

    /// Checks the world's order and laid-out moments, `changes` being each widget's
    /// content changes.
    static func check(_ world: PersonWorld, changes: [[SimTime]], before end: SimTime) {
        #expect(world.randomChanges.map { ($0.time, $0.widget) }.elementsEqual(moments(changes), by: ==))
        #expect(world.pushes.map { ($0.time, $0.widget) }.elementsEqual(moments(world.pushTimes), by: ==))
        let all = sortedItems(world, before: end)
        let items = all.filter { $0.process != WorldProcess.view.rawValue }
        let order = world.order
        #expect(order.viewCount == all.count - items.count)
        #expect(order.count == items.count && order.keys.count == items.count)
        // An item's position is the number of its process's items before it.
        var seen: [Int: Int] = [:]
        for (k, item) in zip(order.keys.indices, items) {
            let p = WorldOrder.process(order.keys[k]).rawValue
            let position = seen[p, default: 0]
            seen[p] = position + 1
            let got = (WorldOrder.time(order.keys[k]), p, position)
            #expect(got == item, "item \(k)")
        }
    }

    /// Built worlds with every process: the default scenario (DST, travel, environment
    /// changes, bursts, push latencies that reorder pushes) with StandBy, audio sessions
    /// and a widget added during the run.
    @Test func builtWorldsAreInTheirDefinedOrder() throws {
        var s = try loadScenario("default.yaml")
        s.days = 9
        s.person.standBy = StandByModel()
        s.widgets[0].audioSessions = AudioSessionModel(perDay: 3)
        s.widgets[1].addedAfterMs = 30 * Milliseconds.hour
        let builder = try WorldBuilder(scenario: s)
        for person in 0 ..< 6 {
            let world = builder.build(person: person, replication: 0)
            #expect(world.randomChanges.count > 100 && world.pushes.count > 10 && world.audioStarts.count > 0)
            #expect(world.standByStarts.count > 0 && world.additions.count == 1 && world.timeChanges.count >= 9)
            Self.check(world, changes: builder.changeTimes, before: s.durationMs)
        }
    }

    /// Many items at a few instants, in every process and in several widgets' lists,
    /// repeated within lists, and items at and after the end: one bucket holds many, and
    /// same-time items still come by process, widget and position.
    @Test func itemsAtTheSameTimeKeepTheirRanks() {
        let end: SimTime = 1_000
        let world = PersonWorld(clock: LocalClock(fixedOffsetMs: 0, end: end))
        let instants: [SimTime] = [0, 0, 7, 7, 7, 500, 999]
        let changes: [[SimTime]] = [instants, [0, 7, 7, 999, 1_000], [], instants + [1_000, 2_000]]
        world.pushTimes = [[7, 7, 500], [0], [7], []]
        world.timeChanges = [0, 500]
        world.environmentChanges = [7, 7]
        world.additions = [WidgetMoment(time: 7, widget: 2)]
        world.sessionEnds = instants.map { WidgetMoment(time: $0, widget: 1) }
        world.audioEnds = [WidgetMoment(time: 500, widget: 0)]
        world.standByStarts = [0, 500]
        world.standByEnds = [7, end]
        world.sessions = instants.map {
            SessionRecord(start: $0, end: $0 + 1, widget: 0, donates: true, donatedInstance: 0, hour: 0, weekday: 0)
        }
        world.audioStarts = [WidgetMoment(time: 0, widget: 3), WidgetMoment(time: 7, widget: 3)]
        world.views = (instants + instants).sorted().map {
            ViewRecord(time: $0, hour: 0, weekday: 0, wanted: 0, wouldSwipe: false, wouldTap: false,
                       bestChanceNano: 0, wantedChanceNano: 0)
        }
        world.order.merge(world, changes: changes, before: end)
        let kept = changes.map { $0.filter { $0 < end } }
        Self.check(world, changes: kept, before: end)
        #expect(world.order.keys.count == 48 && world.order.viewCount == 14)
        // Merged again with fewer changes, the moments read follow the new order, not
        // those laid out from the last.
        let fewer = changes.map { Array($0.prefix(2)) }
        world.order.merge(world, changes: fewer, before: end)
        Self.check(world, changes: fewer, before: end)
        #expect(world.randomChanges.count == 6)
    }

    /// A run meets its world's items, the views read beside the order, in the order's
    /// definition: a view after every other item of its time. The reference workload's
    /// world with a view added at the instant of every session start, session end and
    /// push, and of every third content change, traced: its items' lines come in the
    /// order of `sortedItems`.
    @Test func aRunMeetsTheViewsAfterTheOtherItemsOfTheirTime() throws {
        var s = try loadScenario("bench-reference.yaml")
        s.people = 1
        s.days = 3
        let builder = try WorldBuilder(scenario: s)
        let world = builder.build(person: 0, replication: 0)
        var shared: [SimTime] = world.sessions.map(\.start) + world.sessionEnds.map(\.time) + world.pushes.map(\.time)
        shared += world.randomChanges.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.time)
        var views = world.views
        for t in shared {
            var v = views[0]
            v.time = t
            views.append(v)
        }
        // Same-time views keep their order (the added ones after the world's own).
        world.views = views.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        world.order.merge(world, changes: builder.changeTimes, before: s.durationMs)
        let items = Self.sortedItems(world, before: s.durationMs)
        #expect(world.order.viewCount == world.views.count && shared.count > 200)

        let budget = try #require(BudgetPolicies.named("daily_quota")).make(PolicyParameters())
        let ranking = try #require(RankingPolicies.named("time_of_day")).make(PolicyParameters())
        let engine = PersonEngine(scenario: s, budget: budget, ranking: ranking)
        let trace = CollectingTrace()
        engine.trace = trace
        _ = engine.run(world)
        let labels = Dictionary(uniqueKeysWithValues: WorldProcess.allCases.map { ($0.label, $0.rawValue) })
        let met = trace.lines.compactMap { line in labels[line.event].map { (line.time, $0) } }
        #expect(met.count == items.count)
        #expect(met.elementsEqual(items.map { ($0.time, $0.process) }, by: ==))
        // Some views share their instant with another item.
        let viewTimes = Set(world.views.map(\.time))
        #expect(items.filter { $0.process != WorldProcess.view.rawValue && viewTimes.contains($0.time) }.count > 200)
    }

    /// A world with no items before the end has an empty order; one without content
    /// changes or pushes has none laid out.
    @Test func worldsWithoutSomeItemsHaveThemEmpty() {
        let world = PersonWorld(clock: LocalClock(fixedOffsetMs: 0, end: 1_000))
        world.pushTimes = [[], []]
        world.order.merge(world, changes: [[], []], before: 1_000)
        #expect(world.order.keys.isEmpty && world.order.count == 0 && world.randomChanges.isEmpty)
        world.standByEnds = [1_000]
        world.order.merge(world, changes: [[], [1_000]], before: 1_000)
        #expect(world.order.keys.isEmpty && world.randomChanges.isEmpty && world.pushes.isEmpty)
        world.timeChanges = [0, 999]
        world.order.merge(world, changes: [[], []], before: 1_000)
        Self.check(world, changes: [[], []], before: 1_000)
        #expect(world.order.keys.count == 2 && world.randomChanges.isEmpty && world.pushes.isEmpty)
    }
}
