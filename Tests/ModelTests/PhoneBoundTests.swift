import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// The bound of the budgets that cannot read the future (`oracle` with `knows: rates`,
/// `PhoneBound`, MODEL §4 "What a phone can reach"): its shortest paths against brute
/// force over every choice of reload instants, a closed form, and every real budget.
@Suite struct PhoneBoundTests {
    typealias Facts = OracleBudgetTests.Facts

    /// The levels of a person's world: Λ of each widget's changes no push announces.
    static func levels(_ s: Scenario, person: Int) throws -> PhoneBound.Levels {
        let world = try WorldBuilder(scenario: s).build(person: person, replication: 0)
        return PhoneBound.Levels(hours: world.hours, scenario: s)
    }

    /// Each member's announced changes in a person's world.
    static func announced(_ s: Scenario, person: Int) throws -> [[SimTime]] {
        let world = try WorldBuilder(scenario: s).build(person: person, replication: 0)
        return PhoneBound.announcedChanges(world: world, scenario: s)
    }

    /// The person's bound, with the facts of its rehearsal and its announced changes
    /// (none: the bound without them).
    static func bound(_ s: Scenario, _ f: Facts, _ levels: PhoneBound.Levels, announced: [[SimTime]] = []) -> PhoneBound {
        PhoneBound(segments: PhoneBound.segments(
            views: f.views, members: s.stack.members, free: { f.free[$0] }, requests: { f.requests[$0] },
            added: { _ in 0 }, end: s.durationMs, level: levels.level,
            announced: { announced.isEmpty ? [] : announced[$0] }))
    }

    /// The expected stale member views when each member reloads, besides its free
    /// reloads, at `chosen`, counted view by view: a view at v is stale when an announced
    /// change came in (r, v), r its member's last reload at or before v, else with chance
    /// 1 − exp(−Λ(r + 1 ms, v)) from the unannounced changes.
    static func expected(_ f: Facts, members: [Int], _ levels: PhoneBound.Levels, chosen: [[SimTime]],
                         announced: [[SimTime]] = []) -> Double {
        var sum = 0.0
        for w in members {
            let reloads = ([0] + f.free[w] + chosen[w]).sorted()
            for v in f.views {
                let r = reloads.last { $0 <= v }!
                if !announced.isEmpty && announced[w].contains(where: { $0 > r && $0 < v }) {
                    sum += 1
                    continue
                }
                let x = levels.level(w, v) - levels.level(w, r + 1)
                if x > 0 { sum += 1 - exp(-x) }
            }
        }
        return sum
    }

    /// Every instant a charged reload of member `w` could come at that might matter: in
    /// each stretch between free reloads, the first request since the stretch's start,
    /// every view after it and every midpoint between those views.
    static func instants(_ f: Facts, member w: Int, end: SimTime) -> [SimTime] {
        let opens = [0] + f.free[w]
        var result: [SimTime] = []
        for (k, open) in opens.enumerated() {
            let close = k + 1 < opens.count ? opens[k + 1] : end
            guard let q = f.requests[w].first(where: { $0 >= open }), q < close else { continue }
            let seen = f.views.filter { $0 >= q && $0 < close }
            result.append(q)
            result += seen
            for (a, b) in zip(seen, seen.dropFirst()) { result.append((a + b) / 2) }
        }
        return Set(result).sorted()
    }

    /// Whether each member's charged reloads in `chosen` come when it asks: after one, the
    /// next in the same stretch between free reloads at or after `next`.
    static func keepsTheAsks(_ f: Facts, chosen: [[SimTime]], next: PhoneBound.NextAsk) -> Bool {
        for w in chosen.indices {
            var last: SimTime?
            for c in chosen[w].sorted() {
                if let l = last, !f.free[w].contains(where: { $0 > l && $0 <= c }), c < next(w, l) { return false }
                last = c
            }
        }
        return true
    }

    /// The least of `expected` over every choice of at most `k` instants of `instants`
    /// (and the instant of each announced change, when they are given) that keeps the
    /// asks (when `next` is given).
    static func bruteForce(_ f: Facts, members: [Int], _ levels: PhoneBound.Levels, k: Int, end: SimTime,
                           announced: [[SimTime]] = [], next: PhoneBound.NextAsk? = nil) -> Double {
        var candidates: [(w: Int, t: SimTime)] = []
        for w in members {
            var times = instants(f, member: w, end: end)
            if !announced.isEmpty {
                let opens = [0] + f.free[w]
                for c in announced[w] where c < end {
                    // A reload at the change itself, once a request since the last free reload allows one.
                    let open = opens.last { $0 <= c }!
                    if let q = f.requests[w].first(where: { $0 >= open }), q <= c { times.append(c) }
                }
            }
            for t in Set(times).sorted() { candidates.append((w, t)) }
        }
        var best = Double.infinity
        OracleBudgetTests.everyChoice(of: candidates, atMost: k, widgets: f.free.count) { chosen in
            if let next, !keepsTheAsks(f, chosen: chosen, next: next) { return }
            best = min(best, expected(f, members: members, levels, chosen: chosen, announced: announced))
        }
        return best
    }

    /// On tiny worlds (two members, one or two days, a few views, announced changes given
    /// in advance), the exact least equals brute force over every choice of at most K
    /// instants (views, midpoints between them, first requests, the announced changes);
    /// the price's bound is at most it and its plan charges no more than K and expects no
    /// less. A view after an announced change, with no reload of its member in between,
    /// is stale for certain: the least is at least the least without them, and above it
    /// where an announced change falls between two views.
    @Test(arguments: [(1, 0), (1, 1), (1, 2), (1, 4), (1, 6), (2, 1), (2, 3)])
    func exactEqualsBruteForce(days: Int, k: Int) throws {
        let s = OracleBudgetTests.smallScenario(days: days, views: 5, sessions: 2, changes: [6, 3], pushFraction: 0.3)
        var saved = false, higher = false
        for person in 0 ..< 3 {
            let f = try OracleBudgetTests.facts(s, person: person)
            let levels = try Self.levels(s, person: person)
            let announced = try Self.announced(s, person: person)
            let bound = Self.bound(s, f, levels, announced: announced)
            let exact = bound.exact(k)
            let without = Self.bound(s, f, levels).exact(k)
            #expect(exact >= without - 1e-9)
            if exact > without + 1e-6 { higher = true }
            let brute = Self.bruteForce(f, members: s.stack.members, levels, k: k, end: s.durationMs, announced: announced)
            #expect(abs(exact - brute) < 1e-9, "person \(person): exact \(exact), brute force \(brute)")
            let l = bound.lagrangian(k)
            #expect(l.bound <= exact + 1e-9 && exact <= l.planStale + 1e-9, "person \(person)")
            #expect(l.planReloads <= k)
            let none = Self.expected(f, members: s.stack.members, levels, chosen: [[], []], announced: announced)
            #expect(abs(bound.withoutCharges - none) < 1e-9)
            if exact < bound.withoutCharges - 1e-6 { saved = true }
        }
        #expect(k == 0 || saved, "the worlds give the bound something to save")
        #expect(higher, "some announced change falls between views")
    }

    /// The widget asks again only its reload policy's interval after a reload, or at a
    /// push to its kind. With that rule the least is at most brute force over every choice
    /// of instants that keeps it (a reload counted at a view may have come right after the
    /// view before, so it is no more than that), and at least the least without it, above
    /// it where two reloads would come closer; `oracle` plans with it, and its plan run
    /// through the engine charges no more than K.
    @Test(arguments: [(1, 3), (1, 4), (2, 3)])
    func theWidgetAsksOnlyAfterItsInterval(days: Int, k: Int) throws {
        var s = OracleBudgetTests.smallScenario(days: days, views: 8, sessions: 1, changes: [12, 6], pushFraction: 0.2)
        for w in s.widgets.indices { s.widgets[w].timeline.reload = .after(8 * Milliseconds.hour) }
        var higher = false
        for person in 0 ..< 3 {
            let f = try OracleBudgetTests.facts(s, person: person)
            let world = try WorldBuilder(scenario: s).build(person: person, replication: 0)
            let levels = PhoneBound.Levels(hours: world.hours, scenario: s)
            let announced = PhoneBound.announcedChanges(world: world, scenario: s)
            let next = PhoneBound.nextAsk(world: world, scenario: s)
            let bound = PhoneBound(segments: PhoneBound.segments(
                views: f.views, members: s.stack.members, free: { f.free[$0] }, requests: { f.requests[$0] },
                added: { _ in 0 }, end: s.durationMs, level: levels.level, announced: { announced[$0] }, next: next))
            let exact = bound.exact(k)
            let brute = Self.bruteForce(f, members: s.stack.members, levels, k: k, end: s.durationMs,
                                        announced: announced, next: next)
            #expect(exact <= brute + 1e-9, "person \(person): exact \(exact), brute force \(brute)")
            let unasked = Self.bound(s, f, levels, announced: announced).exact(k)
            #expect(exact >= unasked - 1e-9)
            if exact > unasked + 1e-6 { higher = true }
            let l = bound.lagrangian(k)
            #expect(l.bound <= exact + 1e-9 && exact <= l.planStale + 1e-9 && l.planReloads <= k)
            let oracle = OracleBudget(perDay: Double(k) / Double(2 * days), knows: .views)
            let counts = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
            #expect(total(counts, .charged) <= Int64(k))
            #expect(abs(oracle.expected!.bound - l.bound) < 1e-9)
        }
        #expect(higher, "some planned reloads would come closer than the widget asks")
    }

    /// A push asks every widget of its kind; without one, the widget asks its interval after
    /// the reload (`after`), one entry spacing after it (`at_end`) or never.
    @Test func theNextAskIsTheIntervalOrAPushToTheKind() throws {
        var s = OracleBudgetTests.smallScenario(days: 2, views: 5, sessions: 1, changes: [12, 0, 6], pushFraction: 0.5)
        s.widgets[0].kind = "stocks"
        s.widgets[1].kind = "stocks"
        s.widgets[1].timeline.reload = .atEnd
        s.widgets[2].timeline.reload = .never
        let world = try WorldBuilder(scenario: s).build(person: 0, replication: 0)
        let next = PhoneBound.nextAsk(world: world, scenario: s)
        let first = try #require(world.pushes.first { $0.widget == 0 }).time
        let third = try #require(world.pushes.first { $0.widget == 2 }).time
        let spacing = s.widgets[1].timeline.entrySpacingMs
        #expect(next(0, first - 1) == min(first, first - 1 + 30 * Milliseconds.minute))
        #expect(next(1, first - 1) == min(first, first - 1 + spacing))
        #expect(next(2, third - 1) == third)
        let lastPush = try #require(world.pushes.last { $0.widget == 2 }).time
        #expect(next(2, lastPush) == .max)
        #expect(next(1, lastPush) <= lastPush + spacing)
    }

    /// The announced changes are the world's pushes: each, plus its latency, is a push
    /// that comes before the run's end, and every push is one of them.
    @Test(arguments: [0.0, 0.7])
    func theAnnouncedChangesAreTheWorldsPushes(sigma: Double) throws {
        var s = OracleBudgetTests.smallScenario(days: 3, views: 5, sessions: 2, changes: [24, 6], pushFraction: 0.4)
        for w in s.widgets.indices { s.widgets[w].content.pushLatencySigma = sigma }
        let world = try WorldBuilder(scenario: s).build(person: 1, replication: 0)
        let announced = PhoneBound.announcedChanges(world: world, scenario: s)
        for w in s.widgets.indices {
            let changes = world.randomChanges.filter { Int($0.widget) == w }.map(\.time)
            #expect(announced[w].allSatisfy { changes.contains($0) } && announced[w] == announced[w].sorted())
            #expect(announced[w].count >= world.pushTimes[w].count && !world.pushTimes[w].isEmpty)
            if sigma == 0 {
                let latency = s.widgets[w].content.pushLatencyMedianMs
                #expect(announced[w].map { $0 + latency }.filter { $0 < s.durationMs } == world.pushTimes[w])
            }
        }
    }

    /// One member, a constant rate λ, views every d from d on after a free reload at 0,
    /// every view reachable: the views after each reload (the free one counting as a view
    /// at 0) cost c(m) = Σ_{j<m} (1 − e^{−λ(jd − 1 ms)}), convex in m, so the best K
    /// reloads split the n + 1 into K + 1 runs as even as can be.
    @Test(arguments: [0, 1, 2, 3, 7, 19, 40])
    func evenViewsAtAConstantRate(k: Int) {
        let lambda = 2.0 / Double(Milliseconds.hour), d: Int64 = 10 * Milliseconds.minute, n = 40
        let seg = PhoneBound.Segment(
            member: 0, firstView: 0, start: lambda,
            at: (0 ..< n).map { lambda * Double(Int64($0 + 1) * d) },
            after: (0 ..< n).map { lambda * Double(Int64($0 + 1) * d + 1) }, reachable: 0, end: Int64(n + 1) * d)
        let bound = PhoneBound(segments: [seg])
        // c(m) = (m − 1) − e^λ · Σ_{j=1}^{m−1} x^j, x = e^{−λd}.
        let x = exp(-lambda * Double(d))
        func c(_ m: Int) -> Double {
            m <= 1 ? 0 : Double(m - 1) - exp(lambda) * x * (1 - pow(x, Double(m - 1))) / (1 - x)
        }
        let runs = min(k, n) + 1, points = n + 1
        let q = points / runs, r = points % runs
        let closed = Double(r) * c(q + 1) + Double(runs - r) * c(q)
        #expect(abs(bound.exact(k) - closed) < 1e-9, "exact \(bound.exact(k)) against \(closed)")
        let l = bound.lagrangian(k)
        #expect(abs(l.bound - closed) < 1e-6, "bound \(l.bound) against \(closed)")
        #expect(abs(l.planStale - closed) < 1e-6 && l.planReloads == min(k, n), "plan \(l.planStale), \(l.planReloads) reloads")
    }

    /// Λ of a widget over the run is (1 − push_fraction) × its random changes a day ×
    /// days, whatever its profile and the person's time zone.
    @Test func levelsAreTheUnannouncedRate() throws {
        var s = OracleBudgetTests.smallScenario(days: 3, views: 5, sessions: 2, changes: [24, 6], pushFraction: 0.3)
        s.widgets[1].content.randomProfile = HourProfile.office
        s.timeZone = "America/New_York"
        let levels = try Self.levels(s, person: 0)
        #expect(abs(levels.level(0, s.durationMs) - 0.7 * 24 * 3) < 1e-9)
        #expect(abs(levels.level(1, s.durationMs) - 0.7 * 6 * 3) < 1e-9)
        #expect(levels.level(0, 0) == 0)
        #expect(abs(levels.level(0, Milliseconds.hour) - 0.7) < 1e-9)
    }

    /// Over 30 people, every real budget leaves on average at least the bound's stale
    /// member views at its own cost (the bound counts only changes no push announces),
    /// within three standard errors, whether the bound knows the views or their rate.
    @Test(arguments: ["unlimited", "daily_quota", "view_weighted", "ios_like", "predictive", "token_bucket"],
          [OracleBudget.Knowledge.views, .rates])
    func belowEveryRealBudget(_ name: String, knows: OracleBudget.Knowledge) throws {
        var s = OracleBudgetTests.smallScenario(days: 3, views: 40, sessions: 6, changes: [12, 30, 4], seed: 9,
                                                pushFraction: 0.3)
        s.people = 30
        var gaps: [Double] = []
        for person in 0 ..< s.people {
            let real = BudgetPolicies.named(name)!.make(PolicyParameters([:]))
            let c = try simulate(s, person: person, budget: real, ranking: StaticRanking())
            let perDay = Double(total(c, .charged)) / Double(3 * 3)
            let oracle = OracleBudget(perDay: perDay, knows: knows, stretchMs: 15 * Milliseconds.minute)
            _ = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
            let bound = oracle.expected!.bound
            gaps.append(Double(total(c, .staleMemberViews)) - bound)
        }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        let sd = sqrt(gaps.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(gaps.count - 1))
        #expect(mean + 3 * sd / sqrt(Double(gaps.count)) >= 0, "\(name): mean \(mean), sd \(sd)")
    }

    /// The rate of views the bound reads under `knows: rates` is the person's own (drawn
    /// around the mean, made again from the world's stream): over 30 people whose daily
    /// views vary by half their mean, each one's views in 20 days are within four
    /// standard deviations of its integral, and the squared deviations average near 1.
    @Test func theRateOfViewsIsThePersons() throws {
        var s = OracleBudgetTests.smallScenario(days: 20, views: 40, sessions: 2, changes: [6])
        s.person.viewsPerDay = PerPersonRate(mean: 40, cv: 0.5)
        s.person.standBy = StandByModel()
        let builder = try WorldBuilder(scenario: s)
        var squares = 0.0
        for person in 0 ..< 30 {
            let world = builder.build(person: person, replication: 0)
            let levels = PhoneBound.Levels(hours: world.hours, scenario: s)
            let rate = PhoneBound.ViewRate(world: world, scenario: s, levels: levels, hours: world.hours)
            let cuts = ([0] + rate.changes.filter { $0 > 0 && $0 < s.durationMs } + [s.durationMs])
            var expected = 0.0
            for (a, b) in zip(cuts, cuts.dropFirst()) where b > a { expected += rate.rate(a) * Double(b - a) }
            let seen = Double(world.views.filter { $0.time < s.durationMs }.count)
            let z = (seen - expected) / expected.squareRoot()
            #expect(abs(z) < 4, "person \(person): \(seen) views against \(expected)")
            squares += z * z
        }
        #expect(squares / 30 < 2, "mean squared deviation \(squares / 30)")
    }

    /// One member, constant rates of views ν and of changes λ, one segment of length T
    /// reachable from its start, K reloads: placed anywhere, the best are evenly spread,
    /// leaving (K + 1) · ν (L − (1 − e^{−λL})/λ) with L = T/(K + 1). The stretches of
    /// `knows: rates` give at most that, and less by at most 2ν · stretch a reload.
    @Test(arguments: [0, 1, 4, 9])
    func evenReloadsAtConstantRates(k: Int) {
        let hour = Double(Milliseconds.hour)
        let nu = 6 / hour, lambda = 2 / hour, length: SimTime = 10 * Milliseconds.hour + 7 * Milliseconds.minute
        let step: SimTime = 5 * Milliseconds.minute
        var cuts = Array(stride(from: 0, to: length, by: Int(step)))
        cuts.append(length)
        let seg = PhoneBound.Segment(
            member: 0, firstView: 0, start: 0, at: cuts.dropLast().map { lambda * Double($0) },
            after: cuts.dropFirst().map { lambda * Double($0) },
            weight: zip(cuts, cuts.dropFirst()).map { nu * Double($1 - $0) },
            scale: zip(cuts, cuts.dropFirst()).map { -nu * expm1(-lambda * Double($1 - $0)) / lambda },
            times: Array(cuts.dropLast()), reachable: 0, end: length)
        let block = Double(length) / Double(k + 1)
        let closed = Double(k + 1) * nu * (block + expm1(-lambda * block) / lambda)
        let bound = PhoneBound(segments: [seg]).lagrangian(k).bound
        #expect(bound <= closed + 1e-9, "bound \(bound) above the optimum \(closed)")
        #expect(bound >= closed - 2 * Double(k) * nu * Double(step) - 1e-9, "bound \(bound) against \(closed)")
        if k == 0 { #expect(abs(bound - closed) < 1e-9) }
    }

    /// Where the widget asks a minute after each reload and no push announces a change,
    /// the bound's plan can be run as planned: over 40 people its stale member views,
    /// counted by the engine, average what it expects (within three standard errors), at
    /// or above the bound, and its plan charges its K.
    @Test func itsPlanRunAsPlannedCountsWhatItExpects() throws {
        let widgets = [12.0, 30].enumerated().map { i, perDay in
            var c = ContentSpec()
            c.randomPerDay = perDay
            return widget("w\(i)", base: 0.2, reload: .after(Milliseconds.minute), content: c)
        }
        let s = scenario(people: 40, days: 3, seed: 21, widgets: widgets) { p in
            p.viewsPerDay = PerPersonRate(mean: 40, cv: 0)
            p.sessionsPerDay = PerPersonRate(mean: 4, cv: 0)
        }
        var gaps: [Double] = [], bounds = 0.0, plans = 0.0
        for person in 0 ..< s.people {
            let oracle = OracleBudget(perDay: 2, knows: .views)
            let c = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
            #expect(total(c, .charged) == 12 && oracle.plannedReloads == 12, "person \(person)")
            let e = oracle.expected!
            gaps.append(Double(total(c, .staleMemberViews)) - e.plan)
            bounds += e.bound
            plans += e.plan
        }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        let sd = sqrt(gaps.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(gaps.count - 1))
        #expect(abs(mean) <= 3 * sd / sqrt(Double(gaps.count)), "counted − expected: mean \(mean), sd \(sd)")
        #expect(bounds <= plans && plans <= 1.01 * bounds, "bound \(bounds), plan \(plans)")
    }

    /// At a low cost (one charged reload per instance-day), the ceiling, which reads the
    /// changes, leaves fewer stale member views than the bound expects for most people,
    /// and the bound is well above none: knowing when changes come is worth something
    /// the bound does not give away.
    @Test func theFutureIsWorthSomething() throws {
        var s = OracleBudgetTests.smallScenario(days: 3, views: 40, sessions: 6, changes: [12, 30, 4], seed: 9,
                                                pushFraction: 0.3)
        s.people = 10
        var below = 0
        for person in 0 ..< s.people {
            let oracle = OracleBudget(perDay: 1, knows: .views)
            let planRun = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
            let e = oracle.expected!
            #expect(e.bound > 0.5 * e.withoutCharges && e.bound < e.withoutCharges && e.bound <= e.plan + 1e-9)
            #expect(total(planRun, .charged) <= 9)
            let ceiling = try simulate(s, person: person, budget: OracleBudget(perDay: 1), ranking: StaticRanking())
            if Double(total(ceiling, .staleMemberViews)) < e.bound { below += 1 }
        }
        #expect(below >= 8, "the ceiling below the bound for \(below) of 10 people")
    }
}
