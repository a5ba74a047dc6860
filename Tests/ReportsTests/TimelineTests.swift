import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling

/// A ranking that keeps the person's order and records each member's current relevance
/// at every view.
final class RelevanceProbe: RankingPolicy {
    var seen: [(time: SimTime, relevance: [Double?])] = []
    func begin(members: Int, stream: RandomStream) { seen.removeAll() }
    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        seen.append((view.time, history.currentRelevance))
    }
}

/// Runs one person of `s`, returning the engine (its history) and the person's world.
func simulateWorld(
    _ s: Scenario, person: Int = 0, budget: any BudgetPolicy = UnlimitedBudget(),
    ranking: any RankingPolicy = StaticRanking()
) throws -> (engine: PersonEngine, world: PersonWorld, counts: PersonCounts) {
    let world = try WorldBuilder(scenario: s).build(person: person, replication: 0)
    let engine = PersonEngine(scenario: s, budget: budget, ranking: ranking)
    let counts = engine.run(world)
    return (engine, world, counts)
}

/// Timelines and relevance entries (MODEL §3, §5).
@Suite struct TimelineTests {
    func calendar(
        horizon: Int64, lead: Int64, duration: Int64, perDay: Double = 6, spacing: Int64 = 5 * Milliseconds.minute
    ) -> WidgetSpec {
        var content = ContentSpec()
        content.scheduledPerDay = perDay
        var w = widget("calendar", base: 0.3, reload: .atEnd, horizon: horizon, content: content,
                       relevance: .scheduled(score: 10, baseline: 1, leadMs: lead, durationMs: duration))
        w.timeline.entrySpacingMs = spacing
        return w
    }

    /// Duration 0 keeps a scheduled score until the next relevance, the timeline's entry
    /// at the end of the event (`scheduled_length` after its change), which carries the
    /// baseline: from each change's lead on, the score holds until the event ends.
    @Test(arguments: [0, 10, 45, 120]) func scheduledDurationZeroLastsUntilTheEventEnds(lengthMinutes: Int) throws {
        let lead = 10 * Milliseconds.minute, length = Int64(lengthMinutes) * Milliseconds.minute
        var w = calendar(horizon: 24 * Milliseconds.hour, lead: lead, duration: 0)
        w.content.scheduledLengthMs = length
        let s = scenario(people: 1, days: 3, widgets: [widget("weather", base: 0.3), w])
        let probe = RelevanceProbe()
        let (_, world, _) = try simulateWorld(s, ranking: probe)
        let changes = world.scheduled[1]
        #expect(changes.count > 5)
        var inWindow = 0, outside = 0
        for (t, r) in probe.seen {
            let within = changes.contains { $0 - lead <= t && t < $0 + length }
            #expect(r[1] == (within ? 10 : 1), "view at \(t)")
            if within { inWindow += 1 } else { outside += 1 }
        }
        #expect(inWindow > 5 && outside > 50)
    }

    /// Each relevance entry is recorded once: the history at the end is the same with a
    /// 1-hour and a 12-hour horizon, and holds one baseline entry for the first timeline
    /// plus, per scheduled change, its score and the baseline after it.
    @Test func relevanceHistoryDoesNotDependOnTheHorizonOrReloads() throws {
        let lead = 30 * Milliseconds.minute, duration = 30 * Milliseconds.minute
        var histories: [(count: Int, baselineShare: Double, distinct: Int)] = []
        for horizon in [Milliseconds.hour, 12 * Milliseconds.hour] {
            let s = scenario(people: 1, days: 2, widgets: [
                widget("weather", base: 0.3), calendar(horizon: horizon, lead: lead, duration: duration),
            ])
            let (engine, world, _) = try simulateWorld(s)
            let c = world.scheduled[1]
            #expect(c.count > 5 && c.last! < s.durationMs - 5 * Milliseconds.hour, "windows all in the run's timelines")
            let gaps = zip(c, c.dropFirst()).filter { $1 - lead > $0 + duration }.count
            let expected = 1 + c.count + gaps + 1
            let h = engine.history
            #expect(h.relevanceCount(member: 1) == expected, "horizon \(horizon)")
            histories.append((h.relevanceCount(member: 1), h.shareAtOrBelow(member: 1, score: 1), h.distinctScores(member: 1)))
        }
        #expect(histories[0] == histories[1])
    }

    /// Periodic changes every p, entries at least s > p apart: after a reload at r on
    /// the p-grid, entries are at r + k·s and entry k shows its content until the first
    /// change after it, p − (k·s mod p) later; the rest of the s is stale. Views are
    /// uniform within entries, so the stale share is 1 − mean_k (p − (k·s mod p)) / s.
    @Test(arguments: [(2, 5), (2, 6), (3, 5)])
    func periodicContentCloserThanTheSpacingIsStale(periodMinutes: Int, spacingMinutes: Int) throws {
        let p = Int64(periodMinutes) * Milliseconds.minute, sp = Int64(spacingMinutes) * Milliseconds.minute
        var content = ContentSpec()
        content.periodicMs = p
        var w = widget("clock", base: 1, reload: .never, horizon: Milliseconds.day, content: content)
        w.timeline.entrySpacingMs = sp
        let s = scenario(people: 10, days: 3, widgets: [w]) { $0.sessionsPerDay = PerPersonRate(mean: 0) }
        let t = try run(s).totals[0][0]
        // One cycle of phases: lcm(p, s) / s entries.
        let cycle = periodMinutes / gcd(periodMinutes, spacingMinutes)
        var fresh = 0.0, stalenessSquares = 0.0
        for k in 0 ..< cycle {
            let f = Double(p - Int64(k) * sp % p)
            fresh += f
            stalenessSquares += (Double(sp) - f) * (Double(sp) - f) / 2
        }
        let share = 1 - fresh / Double(cycle) / Double(sp)
        let views = Double(t.sum(WidgetCounter.views))
        let stale = Double(t.sum(.staleViews))
        let sd = (views * share * (1 - share)).squareRoot()
        #expect(abs(stale - views * share) <= 4 * sd, "stale \(stale / views), expected \(share)")
        // Mean staleness of a view: ∫ over a cycle of the staleness, divided by its length.
        let meanStaleness = stalenessSquares / Double(cycle) / Double(sp)
        let observed = Double(t.sum(.stalenessMs)) / views
        #expect(abs(observed - meanStaleness) <= 0.1 * meanStaleness, "staleness \(observed) ms, expected \(meanStaleness)")
    }

    func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// `atEnd` asks again at the last entry's date (at least one spacing after the
    /// reload), not at the end of the horizon.
    @Test func atEndAsksAgainAtTheLastEntry() throws {
        let horizon = 6 * Milliseconds.hour, spacing = 5 * Milliseconds.minute
        let s = scenario(people: 1, days: 3, widgets: [calendar(horizon: horizon, lead: 0, duration: 0, perDay: 10)]) {
            $0.sessionsPerDay = PerPersonRate(mean: 0)
        }
        let spy = RecordingBudget(UnlimitedBudget())
        let (_, world, _) = try simulateWorld(s, budget: spy)
        let changes = world.scheduled[0]
        func lastEntry(_ r: SimTime) -> SimTime {
            var e = r
            while let c = changes.first(where: { $0 > e }) {
                let n = max(c, e + spacing)
                if n > r + horizon { break }
                e = n
            }
            return e
        }
        let asks = spy.decisions.filter { $0.reason == .timeline }.map(\.time)
        #expect(asks.count > 10)
        var beforeHorizonEnd = 0
        for t in asks {
            let r = try #require(spy.reloads.last { $0.time < t }?.time)
            #expect(t == max(lastEntry(r), r + spacing), "ask at \(t) after a reload at \(r)")
            if t < r + horizon { beforeHorizonEnd += 1 }
        }
        #expect(beforeHorizonEnd > 5)
    }

    /// A breaking story lasts its duration: a reload without news (here every 10
    /// minutes) keeps it in force; only a reload that brings news starts a new one.
    @Test func aBreakingStoryOutlastsReloadsWithoutNews() throws {
        var news = ContentSpec()
        news.randomPerDay = 12
        let duration = Milliseconds.hour
        let s = scenario(people: 1, days: 3, widgets: [
            widget("weather", base: 0.3),
            widget("news", base: 0.3, reload: .after(10 * Milliseconds.minute), content: news,
                   relevance: .breaking(score: 8, baseline: 1, durationMs: duration)),
        ]) { $0.sessionsPerDay = PerPersonRate(mean: 0) }
        let probe = RelevanceProbe(), spy = RecordingBudget(UnlimitedBudget())
        let (engine, world, _) = try simulateWorld(s, budget: spy, ranking: probe)
        let changes = world.randomChanges.filter { $0.widget == 1 }.map(\.time)
        let reloads = spy.reloads.filter { $0.instance == 1 }.map(\.time)
        // A reload is fresh when a change came after the reload before it.
        var fresh: [SimTime] = []
        var previous = SimTime.min
        for r in reloads {
            if changes.contains(where: { $0 > previous && $0 <= r }) { fresh.append(r) }
            previous = r
        }
        #expect(fresh.count > 20)
        var inStory = 0
        for (t, r) in probe.seen where t >= reloads[0] {
            let story = fresh.last { $0 <= t }.map { t < $0 + duration } ?? false
            #expect(r[1] == (story ? 8 : 1), "view at \(t)")
            if story { inStory += 1 }
        }
        #expect(inStory > 50)
        // Entries: the first timeline's baseline, then a story per fresh reload and the
        // baseline at its end, unless the next story began before (or the run ended).
        let ended = fresh.indices.filter { i in
            let end = fresh[i] + duration
            return end <= s.durationMs && (i + 1 == fresh.count || fresh[i + 1] >= end)
        }.count
        #expect(ended < fresh.count, "some stories are cut short")
        #expect(engine.history.relevanceCount(member: 1) == 1 + fresh.count + ended)
    }

    /// Scores drawn from levels give a widget a diverse history: with three levels and a
    /// baseline, `ios_like` may rotate it 3 times in 24 h (soft quota 3), which two
    /// distinct scores never allow.
    @Test func levelsMakeTheHigherRotationTiersReachable() throws {
        var w = calendar(horizon: 12 * Milliseconds.hour, lead: 30 * Milliseconds.minute,
                         duration: 30 * Milliseconds.minute, perDay: 12)
        w.relevanceLevels = [
            RelevanceLevel(score: 10, share: 0.2), RelevanceLevel(score: 5, share: 0.3), RelevanceLevel(score: 2, share: 0.5),
        ]
        w.content.scheduledProfile = HourProfile.flat
        let s = scenario(people: 6, days: 6, widgets: [widget("weather", base: 0.3), w],
                         rankings: [PolicyChoice(name: "ios_like")])
        var most = 0
        for person in 0 ..< 6 {
            let spy = RecordingRanking(RankingPolicies.named("ios_like")!.make(PolicyParameters()))
            let (engine, _, _) = try simulateWorld(s, person: person, ranking: spy)
            #expect(engine.history.distinctScores(member: 1) == 4)
            var starts: [SimTime] = []
            var previous = 0
            for (t, top) in spy.tops {
                if top == 1 && previous != 1 { starts.append(t) }
                previous = top
            }
            for (i, t) in starts.enumerated() {
                most = max(most, starts[...i].filter { $0 > t - Milliseconds.day }.count)
            }
        }
        #expect(most >= 3)
    }

    /// The same draws whatever the policies: the history of a widget with levels is the
    /// same under two budgets.
    @Test func levelScoresAreTheSameUnderEveryPolicy() throws {
        var w = calendar(horizon: 12 * Milliseconds.hour, lead: 0, duration: 30 * Milliseconds.minute)
        w.relevanceLevels = [RelevanceLevel(score: 10, share: 0.5), RelevanceLevel(score: 3, share: 0.5)]
        let s = scenario(people: 1, days: 3, widgets: [widget("weather", base: 0.3), w])
        let a = try simulateWorld(s).engine.history
        let quota = BudgetPolicies.named("daily_quota")!.make(PolicyParameters(["per_day": .number(2)]))
        let b = try simulateWorld(s, budget: quota).engine.history
        #expect(a.relevanceCount(member: 1) > 10)
        for score in [1.0, 3, 10] {
            #expect(a.shareAtOrBelow(member: 1, score: score) == b.shareAtOrBelow(member: 1, score: score))
        }
    }
}
