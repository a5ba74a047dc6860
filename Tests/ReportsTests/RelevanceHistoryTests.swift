import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling

/// A ranking that forwards to another and records, at each view, what it was shown of
/// member `member` (its current relevance and the size of its history) and its proposal.
final class HistoryProbe: RankingPolicy {
    let inner: any RankingPolicy
    let member: Int
    var seen: [(time: SimTime, current: Double?, entries: Int, top: Int)] = []
    init(_ inner: any RankingPolicy, member: Int) {
        self.inner = inner
        self.member = member
    }
    func begin(members: Int, stream: RandomStream) {
        seen.removeAll()
        inner.begin(members: members, stream: stream)
    }
    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        inner.rank(view, history: history, order: &order)
        seen.append((view.time, history.currentRelevance[member], history.relevanceCount(member: member), order[0]))
    }
    func observe(_ outcome: ViewOutcome, history: StackHistory) { inner.observe(outcome, history: history) }
    func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
        inner.observeDonation(member: member, at: time, hour: hour, weekday: weekday)
    }
    func observePush(member: Int, at time: SimTime) { inner.observePush(member: member, at: time) }
}

/// A widget's relevance history by entry date, and what the rankings make of it over
/// weeks (MODEL §5 "Relevance history", "Duration 0").
@Suite struct RelevanceHistoryTests {
    static let rankings = ["relevance", "hybrid", "ios_like", "empirical_bayes"]

    /// A weather widget with a constant score, and a calendar whose meetings raise its
    /// score `lead` before them.
    func stack(
        horizon: Int64, reload: ReloadPolicy = .atEnd, lead: Int64 = 30 * Milliseconds.minute,
        duration: Int64 = 30 * Milliseconds.minute, perDay: Double = 4, days: Int = 7, people: Int = 2
    ) -> Scenario {
        var content = ContentSpec()
        content.scheduledPerDay = perDay
        let calendar = widget("calendar", base: 0.3, reload: reload, horizon: horizon, content: content,
                              relevance: .scheduled(score: 10, baseline: 1, leadMs: lead, durationMs: duration))
        return scenario(people: people, days: days, widgets: [
            widget("weather", base: 0.3, relevance: .constant(score: 1)), calendar,
        ], rankings: Self.rankings.map { PolicyChoice(name: $0) })
    }

    /// What every view of `person` shows `name` of the calendar, and the rotations by day.
    func views(_ s: Scenario, _ name: String, person: Int = 0)
        throws -> (seen: [(time: SimTime, current: Double?, entries: Int, top: Int)], rotations: [Int64]) {
        let probe = HistoryProbe(RankingPolicies.named(name)!.make(PolicyParameters()), member: 1)
        let (_, _, counts) = try simulateWorld(s, person: person, ranking: probe)
        return (probe.seen, (0 ..< s.days).map { counts[$0, .rotations] })
    }

    /// At each view the calendar's history holds exactly its entries dated up to the
    /// view: the opening entry of its first timeline, and per meeting its score from
    /// `lead` before it and the baseline after it (unless the next meeting's score has
    /// begun) — none of the entries its 12-hour timelines already hold for later.
    @Test func theHistoryAtAViewHoldsTheEntriesDatedUpToIt() throws {
        let lead = 30 * Milliseconds.minute, duration = 30 * Milliseconds.minute
        let s = stack(horizon: 12 * Milliseconds.hour, days: 3, people: 1)
        let spy = RecordingBudget(UnlimitedBudget())
        let probe = HistoryProbe(StaticRanking(), member: 1)
        let (_, world, _) = try simulateWorld(s, budget: spy, ranking: probe)
        let c = world.scheduled[1]
        #expect(c.count > 6)
        let first = try #require(spy.reloads.first { $0.instance == 1 }?.time)
        // Every meeting window still open at the first reload, then the rest.
        let open = c.indices.filter { c[$0] + duration > first }
        let inside = open.first.map { c[$0] - lead <= first } ?? false
        var checked = 0
        for v in probe.seen where v.time >= first {
            var expected = inside ? 0 : 1
            for (j, k) in open.enumerated() {
                if c[k] - lead <= v.time { expected += 1 }
                let next = j + 1 < open.count ? c[open[j + 1]] - lead : .max
                if next > c[k] + duration && c[k] + duration <= v.time { expected += 1 }
            }
            #expect(v.entries == expected, "view at \(v.time)")
            checked += 1
        }
        #expect(checked > 100)
    }

    /// With several members whose entries fall due at interleaved dates (a calendar's
    /// meetings, a news widget's stories and the baselines at their ends), each member's
    /// history at every view holds exactly its entries dated up to the view: the one
    /// comparison per view against the earliest date due misses none.
    @Test func everyMembersEntriesJoinAtTheirDate() throws {
        let lead = 30 * Milliseconds.minute, meeting = 30 * Milliseconds.minute, story = Milliseconds.hour
        var news = ContentSpec()
        news.randomPerDay = 12
        var meetings = ContentSpec()
        meetings.scheduledPerDay = 6
        let s = scenario(people: 1, days: 3, widgets: [
            widget("weather", base: 0.3, relevance: .constant(score: 1)),
            widget("calendar", base: 0.3, reload: .atEnd, horizon: 12 * Milliseconds.hour, content: meetings,
                   relevance: .scheduled(score: 10, baseline: 1, leadMs: lead, durationMs: meeting)),
            widget("news", base: 0.3, reload: .after(10 * Milliseconds.minute), content: news,
                   relevance: .breaking(score: 8, baseline: 1, durationMs: story)),
        ]) { $0.sessionsPerDay = PerPersonRate(mean: 0) }
        let spy = RecordingBudget(UnlimitedBudget())
        let calendar = HistoryProbe(StaticRanking(), member: 1), probe = HistoryProbe(calendar, member: 2)
        let (_, world, _) = try simulateWorld(s, budget: spy, ranking: probe)
        // The calendar: the opening entry, then per meeting window open at the first
        // reload its score from its start and the baseline at its end (unless the next
        // has begun).
        let c = world.scheduled[1]
        let first = try #require(spy.reloads.first { $0.instance == 1 }?.time)
        let open = c.indices.filter { c[$0] + meeting > first }
        let inside = open.first.map { c[$0] - lead <= first } ?? false
        func calendarEntries(_ t: SimTime) -> Int {
            var n = inside ? 0 : 1
            for (j, k) in open.enumerated() {
                if c[k] - lead <= t { n += 1 }
                let next = j + 1 < open.count ? c[open[j + 1]] - lead : .max
                if next > c[k] + meeting && c[k] + meeting <= t { n += 1 }
            }
            return n
        }
        // The news: the opening baseline, then per reload that brings news its story, and
        // the baseline at the story's end unless the next story began before.
        let changes = world.randomChanges.filter { $0.widget == 2 }.map(\.time)
        let reloads = spy.reloads.filter { $0.instance == 2 }.map(\.time)
        var fresh: [SimTime] = []
        var previous = SimTime.min
        for r in reloads {
            if changes.contains(where: { $0 > previous && $0 <= r }) { fresh.append(r) }
            previous = r
        }
        #expect(fresh.count > 10 && fresh.first! > reloads.first!)
        func newsEntries(_ t: SimTime) -> Int {
            var n = 1
            for (i, f) in fresh.enumerated() where f <= t {
                n += 1
                let end = f + story
                if end <= t && (i + 1 == fresh.count || fresh[i + 1] >= end) { n += 1 }
            }
            return n
        }
        #expect(calendar.seen.count == probe.seen.count && probe.seen.count > 100)
        for (a, b) in zip(calendar.seen, probe.seen) where a.time >= max(first, reloads[0]) {
            #expect(a.entries == calendarEntries(a.time), "calendar at \(a.time)")
            #expect(b.entries == newsEntries(b.time), "news at \(b.time)")
        }
    }

    /// The horizon and how often the widget reloads change no ranking's decisions: the
    /// proposals at every view and the rotations of every day are the same with a 1-hour
    /// and a 12-hour horizon, and with reloads at the end of each timeline or every 15
    /// minutes.
    @Test(arguments: rankings)
    func horizonAndReloadsChangeNoDecision(name: String) throws {
        let variants = [
            stack(horizon: Milliseconds.hour), stack(horizon: 12 * Milliseconds.hour),
            stack(horizon: 12 * Milliseconds.hour, reload: .after(15 * Milliseconds.minute)),
        ]
        for person in 0 ..< 2 {
            let a = try views(variants[0], name, person: person)
            #expect(a.rotations.reduce(0, +) > 0, "\(name) rotates")
            for s in variants.dropFirst() {
                let b = try views(s, name, person: person)
                #expect(a.rotations == b.rotations, "\(name), person \(person)")
                #expect(a.seen.count == b.seen.count)
                let differ = zip(a.seen, b.seen).first { $0.current != $1.current || $0.entries != $1.entries || $0.top != $1.top }
                #expect(differ == nil, "\(name), person \(person): first difference at \(differ.map { "\($0.0.time)" } ?? "")")
            }
        }
    }

    /// A calendar alternating its meeting score and its baseline keeps rotating in, in
    /// the fourth week as in the first, under every ranking that reads relevance.
    @Test(arguments: rankings)
    func anAlternatingWidgetKeepsRotatingForFourWeeks(name: String) throws {
        let s = stack(horizon: 12 * Milliseconds.hour, days: 28, people: 3)
        var firstWeek: Int64 = 0, lastWeek: Int64 = 0, lastDay: Int64 = 0
        for person in 0 ..< 3 {
            let r = try views(s, name, person: person).rotations
            firstWeek += r[0 ..< 7].reduce(0, +)
            lastWeek += r[21 ..< 28].reduce(0, +)
            lastDay += r[27]
        }
        #expect(firstWeek > 0, "\(name)")
        #expect(lastDay > 0, "\(name) on day 27")
        #expect(2 * lastWeek >= firstWeek, "\(name): \(firstWeek) rotations in week 1, \(lastWeek) in week 4")
    }

    /// Duration 0 holds a meeting's score until the widget's next relevance entry, which
    /// comes when the meeting ends and carries the baseline: with the default meeting
    /// length (30 minutes) it behaves exactly as a duration of 30 minutes, and the
    /// baseline is shown between meetings.
    @Test(arguments: rankings)
    func durationZeroEndsWithTheMeeting(name: String) throws {
        let zero = stack(horizon: 12 * Milliseconds.hour, duration: 0)
        let thirty = stack(horizon: 12 * Milliseconds.hour, duration: 30 * Milliseconds.minute)
        for person in 0 ..< 2 {
            let a = try views(zero, name, person: person), b = try views(thirty, name, person: person)
            #expect(a.rotations == b.rotations, "\(name), person \(person)")
            #expect(a.seen.count == b.seen.count)
            #expect(zip(a.seen, b.seen).allSatisfy { $0.current == $1.current && $0.entries == $1.entries && $0.top == $1.top })
            #expect(a.seen.filter { $0.current == 1 }.count > a.seen.count / 2, "the baseline is shown")
        }
    }
}
