import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// The budget ceiling `oracle` (MODEL §4) against brute force: on small worlds, every set
/// of at most K request instants granted, run through the engine, leaves no fewer stale
/// member views than the ceiling does, and the ceiling reaches its bound; and against the
/// real budgets at their own cost.
@Suite struct OracleBudgetTests {
    /// A stack of members whose content changes only at random (no predictable content,
    /// not interactive), as the ceiling's bound assumes.
    static func smallScenario(days: Int, views: Double, sessions: Double, changes: [Double], seed: UInt64 = 5,
                              pushFraction: Double = 0) -> Scenario {
        let widgets = changes.enumerated().map { i, perDay in
            var c = ContentSpec()
            c.randomPerDay = perDay
            c.pushFraction = pushFraction
            return widget("w\(i)", base: 0.2, reload: .after(30 * Milliseconds.minute), content: c)
        }
        return scenario(people: 4, days: days, seed: seed, widgets: widgets) { p in
            p.viewsPerDay = PerPersonRate(mean: views, cv: 0)
            p.sessionsPerDay = PerPersonRate(mean: sessions, cv: 0)
        }
    }

    /// The facts of one person's world that decide staleness: views, each member's random
    /// changes and free reloads.
    struct Facts {
        var views: [SimTime] = []
        var changes: [[SimTime]] = []
        var free: [[SimTime]] = []
        /// Each member's charged requests when every one is refused.
        var requests: [[SimTime]] = []
    }

    static func facts(_ s: Scenario, person: Int) throws -> Facts {
        let world = try WorldBuilder(scenario: s).build(person: person, replication: 0)
        var f = Facts()
        f.views = world.views.map(\.time).filter { $0 < s.durationMs }
        f.changes = Array(repeating: [], count: s.widgets.count)
        for c in world.randomChanges where c.time < s.durationMs { f.changes[Int(c.widget)].append(c.time) }
        let recorder = RecordingBudget(NoCharges())
        _ = try simulate(s, person: person, budget: recorder, ranking: StaticRanking())
        f.free = Array(repeating: [], count: s.widgets.count)
        for r in recorder.reloads where !r.charged { f.free[r.instance].append(r.time) }
        f.requests = Array(repeating: [], count: s.widgets.count)
        for d in recorder.decisions { f.requests[d.instance].append(d.time) }
        return f
    }

    /// Stale member views when member `w` also reloads at `extra`, counted view by view:
    /// a view at t is stale when some change c ≤ t has no reload in [c, t].
    static func stale(_ f: Facts, widget w: Int, extra: [SimTime]) -> Int {
        let reloads = (f.free[w] + extra).sorted()
        var n = 0
        for t in f.views {
            let last = reloads.last { $0 <= t }
            if f.changes[w].contains(where: { c in c <= t && (last == nil || last! < c) }) { n += 1 }
        }
        return n
    }

    /// The fewest stale member views of any choice of at most `k` reload instants among
    /// every member's change and view instants (every instant a reload could differ at),
    /// whether or not the widget asked then.
    static func bruteForce(_ f: Facts, k: Int) -> Int {
        var candidates: [(w: Int, t: SimTime)] = []
        for w in f.changes.indices {
            for t in Set(f.changes[w] + f.views).sorted() { candidates.append((w, t)) }
        }
        var best = Int.max
        everyChoice(of: candidates, atMost: k, widgets: f.changes.count) { chosen in
            best = min(best, f.changes.indices.reduce(0) { $0 + stale(f, widget: $1, extra: chosen[$1]) })
        }
        return best
    }

    /// Calls `body` with every choice of at most `k` of `candidates`, as each widget's
    /// chosen instants.
    static func everyChoice(of candidates: [(w: Int, t: SimTime)], atMost k: Int, widgets: Int,
                            _ body: ([[SimTime]]) throws -> Void) rethrows {
        var chosen: [[SimTime]] = Array(repeating: [], count: widgets)
        func visit(_ from: Int, _ left: Int) throws {
            try body(chosen)
            guard left > 0 else { return }
            for j in from ..< candidates.count {
                chosen[candidates[j].w].append(candidates[j].t)
                try visit(j + 1, left - 1)
                chosen[candidates[j].w].removeLast()
            }
        }
        try visit(0, k)
    }

    /// A budget that grants a request of an instance only at one of its listed instants:
    /// it holds an earlier request until the next one (deferred) and refuses the rest.
    final class Scripted: BudgetPolicy {
        let times: [[SimTime]]
        init(_ times: [[SimTime]]) { self.times = times.map { $0.sorted() } }
        func begin(instances: Int) {}
        func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
            if times[instance].contains(now) { return .grant }
            guard let next = times[instance].first(where: { $0 > now }) else { return .deny(because: .quotaExhausted) }
            return .deferUntil(next, because: .notYetReleased)
        }
        func didReload(instance: Int, charged: Bool, at now: SimTime) {}
    }

    /// The fewest stale member views of any budget that grants the widget's requests at
    /// at most `k` instants, each a member's change or an instant it asked at when every
    /// request is refused (the instants the bound's optimum lies at), run through the
    /// engine: every such choice is a budget's, reachable or not.
    static func requestBruteForce(_ s: Scenario, person: Int, _ f: Facts, k: Int) throws -> Int64 {
        var candidates: [(w: Int, t: SimTime)] = []
        for w in f.changes.indices {
            for t in Set(f.changes[w] + f.requests[w]).sorted() { candidates.append((w, t)) }
        }
        var best = Int64.max
        try everyChoice(of: candidates, atMost: k, widgets: f.changes.count) { chosen in
            let c = try simulate(s, person: person, budget: Scripted(chosen), ranking: StaticRanking())
            best = min(best, total(c, .staleMemberViews))
        }
        return best
    }

    /// The ceiling's bound for one person: the stale member views with no charged reload,
    /// less the views its plan saves.
    static func bound(_ s: Scenario, person: Int, perDay: Double) throws -> Int64 {
        let none = try simulate(s, person: person, budget: NoCharges(), ranking: StaticRanking())
        let oracle = OracleBudget(perDay: perDay)
        _ = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
        return total(none, .staleMemberViews) - Int64(oracle.plannedSavedViews)
    }

    /// On a few tiny worlds (two members, one or two days), the ceiling's stale member
    /// views through the engine equal the fewest of every budget granting requests at at
    /// most K instants, and its bound; it charges no more than K; and the requests cost
    /// it something against reloads at any instant.
    @Test(arguments: [(1, 0.5), (2, 0.25), (2, 0.5), (2, 0.75)])
    func equalsBruteForce(days: Int, perDay: Double) throws {
        let s = Self.smallScenario(days: days, views: 5, sessions: 2, changes: [2, 1.5])
        let k = OracleBudget.reloads(perDay: perDay, instances: 2, days: days)
        #expect(k >= 1 && k <= 3)
        var someSaved = false
        for person in 0 ..< 3 {
            let f = try Self.facts(s, person: person)
            let counts = try simulate(s, person: person, budget: OracleBudget(perDay: perDay), ranking: StaticRanking())
            let stale = total(counts, .staleMemberViews)
            #expect(stale == (try Self.requestBruteForce(s, person: person, f, k: k)), "person \(person)")
            #expect(stale == (try Self.bound(s, person: person, perDay: perDay)), "person \(person)")
            #expect(stale >= Int64(Self.bruteForce(f, k: k)), "person \(person)")
            #expect(total(counts, .charged) <= Int64(k))
            if stale < Int64(Self.bruteForce(f, k: 0)) { someSaved = true }
        }
        #expect(someSaved, "the worlds give the ceiling something to save")
    }

    /// Where a change comes before the member has asked since its last free reload, a
    /// reload at the change is out of reach: with more reloads than changes, reloads at
    /// every change would leave no stale view, while the ceiling leaves some, no
    /// fewer than reloads of every member at each change, or at the first request since
    /// the last free reload before it when that comes later (its bound, which its plan
    /// counts).
    @Test func requestsBindTheCeiling() throws {
        let s = Self.smallScenario(days: 2, views: 40, sessions: 12, changes: [8, 6])
        var bound = 0
        for person in 0 ..< 3 {
            let f = try Self.facts(s, person: person)
            let counts = try simulate(s, person: person, budget: OracleBudget(perDay: 64), ranking: StaticRanking())
            #expect(f.changes.indices.allSatisfy { Self.stale(f, widget: $0, extra: f.changes[$0]) == 0 })
            let reachable = f.changes.indices.map { w in
                f.changes[w].compactMap { c -> SimTime? in
                    let since = f.free[w].last { $0 < c } ?? .min
                    return f.requests[w].first { $0 >= since }.map { max($0, c) }
                }
            }
            let least = f.changes.indices.reduce(0) { $0 + Self.stale(f, widget: $1, extra: reachable[$1]) }
            let stale = total(counts, .staleMemberViews)
            #expect(stale >= Int64(least))
            #expect(Int64(least) == (try Self.bound(s, person: person, perDay: 64)))
            if least > 0 { bound += 1 }
        }
        #expect(bound > 0)
    }

    /// More reloads never leave more stale views; with more than there are changes, no
    /// more than under `unlimited` (which grants every request at once) are left, and
    /// the reloads charged never exceed the budget.
    @Test func monotoneInPerDayAndUnlimitedAtMost() throws {
        let s = Self.smallScenario(days: 3, views: 40, sessions: 6, changes: [12, 30, 4], pushFraction: 0.3)
        for person in 0 ..< 2 {
            var previous = Int64.max
            for perDay in [0.0, 0.5, 1, 2, 4, 8, 16, 64] {
                let c = try simulate(s, person: person, budget: OracleBudget(perDay: perDay), ranking: StaticRanking())
                let stale = total(c, .staleMemberViews)
                #expect(stale <= previous, "per_day \(perDay)")
                #expect(total(c, .charged) <= Int64(OracleBudget.reloads(perDay: perDay, instances: 3, days: 3)))
                previous = stale
            }
            let unlimited = try simulate(s, person: person, budget: UnlimitedBudget(), ranking: StaticRanking())
            #expect(previous <= total(unlimited, .staleMemberViews))
            let none = try simulate(s, person: person, budget: NoCharges(), ranking: StaticRanking())
            let zero = try simulate(s, person: person, budget: OracleBudget(perDay: 0), ranking: StaticRanking())
            #expect(total(zero, .staleMemberViews) == total(none, .staleMemberViews))
            #expect(total(zero, .charged) == 0)
        }
    }

    /// Every real budget, person by person, leaves at least as many stale member views as
    /// the ceiling given that person's own charged reloads.
    @Test(arguments: ["unlimited", "daily_quota", "view_weighted", "ios_like", "predictive", "token_bucket"])
    func neverMoreStaleThanARealBudget(_ name: String) throws {
        let s = Self.smallScenario(days: 4, views: 60, sessions: 8, changes: [10, 30, 3], seed: 9, pushFraction: 0.3)
        for person in 0 ..< 3 {
            let real = BudgetPolicies.named(name)!.make(PolicyParameters([:]))
            let c = try simulate(s, person: person, budget: real, ranking: StaticRanking())
            let charged = total(c, .charged)
            let perDay = Double(charged) / Double(3 * 4)
            let ceiling = try simulate(s, person: person, budget: OracleBudget(perDay: perDay), ranking: StaticRanking())
            #expect(total(ceiling, .charged) <= charged)
            #expect(total(ceiling, .staleMemberViews) <= total(c, .staleMemberViews), "\(name), person \(person)")
            #expect(try Self.bound(s, person: person, perDay: perDay) <= total(c, .staleMemberViews))
        }
    }

    /// Only the counted run is traced, not the rehearsal: one trace line per charged
    /// reload counted, each at a random change of its member or at an instant the member
    /// asked at when every request is refused; and the same person run twice by one
    /// engine gives the same counts (the plan is made afresh each time).
    @Test func onlyTheCountedRunIsTracedAndRunsRepeat() throws {
        let s = Self.smallScenario(days: 2, views: 30, sessions: 4, changes: [10, 5], pushFraction: 0.3)
        let f = try Self.facts(s, person: 1)
        let trace = CollectingTrace()
        let world = try WorldBuilder(scenario: s).build(person: 1, replication: 0)
        let engine = PersonEngine(scenario: s, budget: OracleBudget(perDay: 2), ranking: StaticRanking())
        engine.trace = trace
        let first = engine.run(world)
        let charged = trace.lines.filter { $0.decision == "reloaded, charged" }
        #expect(Int64(charged.count) == total(first, .charged) && charged.count >= 4)
        var atChanges = 0
        for line in charged {
            let w = s.widgets.firstIndex { $0.id == line.widget }!
            let t = f.changes[w].first { $0 == line.time }
            if t != nil { atChanges += 1 }
            #expect(t != nil || f.requests[w].contains(line.time), "a charged reload at a change or a request")
        }
        #expect(atChanges > 0)
        let second = engine.run(world)
        #expect(second.widget == first.widget && second.person == first.person)
    }

    /// The ceiling is listed, reads the future (the engine rehearses it), and says it is
    /// no real policy.
    @Test func registeredAsTheCeiling() {
        let d = BudgetPolicies.named("oracle")!
        #expect(d.summary.contains("not a real policy"))
        #expect(d.make(PolicyParameters([:])) is any FutureReadingBudget)
        #expect(BudgetPolicies.all.last?.name == "oracle")
    }
}
