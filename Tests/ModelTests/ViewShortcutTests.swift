import EngineTestSupport
import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

/// The shortcuts taken at a view against the general paths they stand for: the
/// governor's `chooseWithoutRelevance` against `choose`, the history's run of views on
/// top against a direct count, and the engine's plain views against its general `view`.
@Suite struct ViewShortcutTests {
    static let limits = [
        RotationLimits(),
        RotationLimits(holdMinMs: 60_000, holdMaxMs: 600_000, cooldownMs: 0),
        RotationLimits(holdMinMs: 3_600_000, holdMaxMs: 3_600_000, cooldownMs: 7_200_000),
        .none,
    ]

    /// Two governors driven alike over a week of views with no relevance anywhere, one
    /// through `chooseWithoutRelevance`, one through `choose`: the same top, hold, flags
    /// and veto of every member and the same reason for the wanted one at every view.
    /// Times go back now and then in the second
    /// half (the shortcut must then give way to `choose`), and the person swipes away.
    @Test(arguments: Array(0 ..< limits.count), [UInt64(1), 2, 3])
    func chooseWithoutRelevanceIsChoose(limitsIndex: Int, seed: UInt64) {
        let n = 5
        let history = StackHistory()
        history.reset(members: n)
        let fast = RotationGovernor(limits: Self.limits[limitsIndex])
        let general = RotationGovernor(limits: Self.limits[limitsIndex])
        fast.begin(members: n, stream: RandomStream(kind: .taus2, seed: UInt(seed)))
        general.begin(members: n, stream: RandomStream(kind: .taus2, seed: UInt(seed)))
        var random = BudgetSplitMix64(seed: seed)
        var t: SimTime = 0
        var rotations = 0
        for k in 0 ..< 3_000 {
            t += SimTime(random.next() % 1_200_000)
            if k > 1_500 && random.next() % 50 == 0 { t -= SimTime(random.next() % 4) * Milliseconds.hour }
            var order = Array(0 ..< n)
            for i in stride(from: n - 1, to: 0, by: -1) { order.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            let home = random.next() % 10 == 0 ? Int(random.next() % UInt64(n)) : 0
            let wanted = Int(random.next() % UInt64(n + 1)) - 1
            let a = order.withUnsafeBufferPointer {
                fast.chooseWithoutRelevance($0, home: home, wanted: wanted, at: t, history: history)
            }
            let b = general.choose(order, home: home, wanted: wanted, at: t, history: history)
            #expect(a == b, "view \(k) at \(t)")
            #expect(fast.held == general.held && fast.holdUntil == general.holdUntil)
            #expect(fast.holding == general.holding && fast.rotatedIn == general.rotatedIn)
            #expect(fast.cooldownUntil == general.cooldownUntil)
            for m in 0 ..< n { #expect(fast.veto(m, at: t, history: history) == general.veto(m, at: t, history: history)) }
            if general.rotatedIn { rotations += 1 }
            if random.next() % 20 == 0 {
                fast.swiped(at: t)
                general.swiped(at: t)
            }
        }
        if Self.limits[limitsIndex].mode == .ios { #expect(rotations > 50) }
    }

    /// `timesOnTop` counts every view's top, read between views and at the end, and
    /// starts again at `reset`.
    @Test func timesOnTopCountsEveryView() {
        let history = StackHistory()
        history.reset(members: 3)
        var expected = [0, 0, 0]
        let tops = [0, 0, 1, 1, 1, 0, 2, 2, 0, 0, 0, 1]
        for (k, top) in tops.enumerated() {
            history.recordView(top: top, swipedTo: nil, tapped: nil, hour: 9, weekday: 0)
            expected[top] += 1
            if k % 5 == 0 { #expect(history.timesOnTop == expected) }
            #expect(history.previousTop == top)
        }
        #expect(history.timesOnTop == expected)
        #expect(history.timesOnTop == [6, 4, 2])
        history.reset(members: 3)
        #expect(history.timesOnTop == [0, 0, 0])
        history.recordView(top: 2, swipedTo: nil, tapped: nil, hour: 9, weekday: 0)
        #expect(history.timesOnTop == [0, 0, 1])
    }

    /// A stack like the reference workload's (`plainViews`): the same counts whether the
    /// engine takes its plain views or the general `view`.
    @Test(arguments: [0, 1, 2])
    func plainViewsCountAsTheGeneralView(person: Int) throws {
        let scenario = plainStackScenario(name: "plain", seed: 5, people: 3)
        let world = try WorldBuilder(scenario: scenario).build(person: person, replication: 0)
        func counts(plain: Bool) throws -> PersonCounts {
            let budget = try #require(BudgetPolicies.named("daily_quota")).make(PolicyParameters())
            let ranking = try #require(RankingPolicies.named("time_of_day")).make(PolicyParameters())
            let engine = PersonEngine(scenario: scenario, budget: budget, ranking: ranking)
            #expect(engine.plainViews)
            engine.plainViews = plain
            return engine.run(world)
        }
        let plain = try counts(plain: true), general = try counts(plain: false)
        #expect(plain.person == general.person)
        #expect(plain.widget == general.widget)
        #expect(plain.missedViews == general.missedViews)
        #expect(plain.person.reduce(0, +) > 1_000)
        // The person swipes (the plain view reads its flags its own way).
        #expect((0 ..< plain.days).map { plain[$0, .swipes] }.reduce(0, +) > 10)
    }

    /// A traced run of a plain stack takes the general view, whose items and views test
    /// the trace (the plain kind's run loop does not): a line for every view and every
    /// world item, and the counts of the run without a trace.
    @Test func aTracedPlainStackTracesEveryViewAndItem() throws {
        let scenario = plainStackScenario(name: "plain", seed: 5, people: 1)
        let world = try WorldBuilder(scenario: scenario).build(person: 0, replication: 0)
        func run(traced: Bool) throws -> (PersonCounts, [CollectingTrace.Line]) {
            let budget = try #require(BudgetPolicies.named("daily_quota")).make(PolicyParameters())
            let ranking = try #require(RankingPolicies.named("time_of_day")).make(PolicyParameters())
            let engine = PersonEngine(scenario: scenario, budget: budget, ranking: ranking)
            #expect(engine.plainViews)
            let trace = CollectingTrace()
            if traced { engine.trace = trace }
            return (engine.run(world), trace.lines)
        }
        let (traced, lines) = try run(traced: true)
        let (untraced, none) = try run(traced: false)
        #expect(none.isEmpty)
        #expect(traced.person == untraced.person && traced.widget == untraced.widget)
        #expect(traced.missedViews == untraced.missedViews && traced.refusals == untraced.refusals)
        func linesOf(_ p: WorldProcess) -> Int64 { Int64(lines.filter { $0.event == p.label }.count) }
        let days = 0 ..< traced.days
        #expect(linesOf(.view) == days.map { traced[$0, .views] }.reduce(0, +))
        #expect(linesOf(.contentChange) == days.map { traced[$0, .contentChanges] }.reduce(0, +))
        #expect(linesOf(.push) == days.map { traced[$0, .pushes] }.reduce(0, +))
        #expect(linesOf(.sessionStart) == days.map { traced[$0, .sessions] }.reduce(0, +))
        #expect(linesOf(.view) > 100 && linesOf(.push) > 10 && linesOf(.sessionStart) > 10)
    }
}
