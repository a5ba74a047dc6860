import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

/// Pairs joined from others' sides of a run (`PersonEngine+SharedSides`) against each
/// pair run alone: the same counts and the same reasons by instance, person after person.
@Suite struct SharedSidesTests {
    /// The plain stack of the reference workload's kind; the person swipes at some
    /// views (`swipe`) and taps at some (`tap`), member 2 is interactive.
    static func scenario(swipe: Double, tap: Double) -> Scenario {
        plainStackScenario(name: "shared", seed: 11, people: 4, swipe: swipe, tap: tap, interactive: [2])
    }

    /// A daily quota of `perDay` under `time_of_day` with `smoothing` and weekday weight
    /// `weekday`.
    static func engine(_ s: Scenario, perDay: Double, smoothing: Double, weekday: Double = 0.5) throws -> PersonEngine {
        let budget = try #require(BudgetPolicies.named("daily_quota")).make(PolicyParameters(["per_day": .number(perDay)]))
        let ranking = try #require(RankingPolicies.named("time_of_day")).make(
            PolicyParameters(["smoothing": .number(smoothing), "weekday_weight": .number(weekday)]))
        return PersonEngine(scenario: s, budget: budget, ranking: ranking)
    }

    /// Two quotas × three settings of `time_of_day` whose stacks differ.
    static let quotas: [Double] = [6, 48]
    static let rankings: [(smoothing: Double, weekday: Double)] = [(1, 0.5), (200, 0), (0, 3)]

    /// Of two quotas × three rankings, three pairs run in full, (0, 0), (1, 1) and
    /// (0, 2), and the three others are joined from them: every person's counts and,
    /// over the people, the reasons by instance are those of each pair run alone. With
    /// the person swiping, the stale views of the members swiped to are joined too.
    @Test(arguments: [0.0, 0.3])
    func joinedPairsCountAsEachAlone(swipe: Double) throws {
        let s = Self.scenario(swipe: swipe, tap: 0)
        let builder = try WorldBuilder(scenario: s)
        let grid = Self.quotas.indices.flatMap { b in Self.rankings.indices.map { r in (b, r) } }
        func engine(_ pair: (Int, Int)) throws -> PersonEngine {
            try Self.engine(s, perDay: Self.quotas[pair.0], smoothing: Self.rankings[pair.1].smoothing,
                            weekday: Self.rankings[pair.1].weekday)
        }
        let shared = try grid.map(engine), alone = try grid.map(engine)
        let full = [0, 4, 2]  // (0, 0), (1, 1), (0, 2)
        // Each other pair: the full pair of its budget, the full pair of its ranking.
        let joined: [Int: (budget: Int, stack: Int)] = [1: (0, 4), 3: (4, 0), 5: (4, 2)]
        for p in full { shared[p].recordsViews = true }
        for p in shared.indices { #expect(shared[p].sharesSides) }
        var staleTops: Int64 = 0, swipes: Int64 = 0
        // What each pair's stack did: its ranks of the wanted member and its rotations.
        var stacks = Array(repeating: [Int64](), count: grid.count)
        for person in 0 ..< s.people {
            let world = builder.build(person: person, replication: 0)
            var counts: [Int: PersonCounts] = [:]
            for p in full { counts[p] = shared[p].run(world) }
            for (p, from) in joined {
                counts[p] = shared[p].run(world, budgetFrom: shared[from.budget], counts: counts[from.budget]!,
                                          stackFrom: shared[from.stack], counts: counts[from.stack]!)
            }
            for p in grid.indices {
                let own = alone[p].run(world), got = try #require(counts[p])
                #expect(got.person == own.person, "person \(person), pair \(grid[p])")
                #expect(got.widget == own.widget, "person \(person), pair \(grid[p])")
                #expect(got.missedViews == own.missedViews, "person \(person), pair \(grid[p])")
                #expect(got.refusals == own.refusals, "person \(person), pair \(grid[p])")
                staleTops += (0 ..< s.days).reduce(0) { $0 + own[$1, .staleTopViews] }
                swipes += (0 ..< s.days).reduce(0) { $0 + own[$1, .swipes] }
                stacks[p] += (0 ..< s.days).flatMap { [own[$0, .reciprocalRank2520], own[$0, .rotations]] }
            }
        }
        // The rankings differ, or the stacks' sides would not be told apart.
        #expect(Set(stacks).count == Self.rankings.count)
        #expect(staleTops > 100)
        if swipe > 0 { #expect(swipes > 100) }
        let sharedReasons = shared.map { $0.takeReasonsByWidget() }
        for p in grid.indices {
            let own = alone[p].takeReasonsByWidget()
            let got = joined[p].map {
                PersonEngine.joinedReasons(budget: sharedReasons[$0.budget], stack: sharedReasons[$0.stack], own: sharedReasons[p])
            } ?? sharedReasons[p]
            #expect(got.refusals == own.refusals, "pair \(grid[p])")
            #expect(got.missedViews == own.missedViews, "pair \(grid[p])")
            if Self.quotas[grid[p].0] < 10 { #expect(own.refusals.reduce(0, +) > 0) }
            let stale = stride(from: Int(MissedViewReason.staleContent.rawValue), to: own.missedViews.count, by: MissedViewReason.count)
            #expect(stale.reduce(0) { $0 + own.missedViews[$1] } > 0)
        }
    }

    /// Where a view can tap an interactive member, a tap reloads it: the budget's side
    /// then depends on the stack's, and the engine shares neither. Nor does it with
    /// general views, or under a budget that reads the future.
    @Test func enginesThatCannotShareTheirSidesDoNot() throws {
        let tapping = Self.scenario(swipe: 0.3, tap: 0.2)
        #expect(try !Self.engine(tapping, perDay: 12, smoothing: 1).sharesSides)
        let s = Self.scenario(swipe: 0.3, tap: 0)
        let engine = try Self.engine(s, perDay: 12, smoothing: 1)
        #expect(engine.sharesSides)
        engine.plainViews = false
        #expect(!engine.sharesSides)
        let oracle = PersonEngine(
            scenario: s, budget: try #require(BudgetPolicies.named("oracle")).make(PolicyParameters()),
            ranking: try #require(RankingPolicies.named("time_of_day")).make(PolicyParameters()))
        #expect(!oracle.sharesSides)
    }
}
