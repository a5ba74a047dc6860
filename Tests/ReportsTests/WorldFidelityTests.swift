import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling

/// The exogenous world against MODEL §2: per-widget session processes, donations that
/// carry configurations, audio sessions, widgets added during the run, StandBy, and
/// Widget Suggestions.
@Suite struct WorldFidelityTests {
    /// Runs one person through a fresh engine and returns the counts, the engine (its
    /// history holds that person's donations) and the world.
    func simulateWithEngine(
        _ s: Scenario, person: Int, budget: any BudgetPolicy = UnlimitedBudget(),
        ranking: any RankingPolicy = StaticRanking()
    ) throws -> (PersonCounts, PersonEngine, PersonWorld) {
        let builder = try WorldBuilder(scenario: s)
        let engine = PersonEngine(scenario: s, budget: budget, ranking: ranking)
        let world = builder.build(person: person, replication: 0)
        return (engine.run(world), engine, world)
    }

    // MARK: - Feedback draws

    /// With swipe and tap probabilities of 0 or 1 the feedback stream is not drawn:
    /// every view's flags are the certain outcomes, and nothing else of the world
    /// depends on the probabilities (other streams are untouched).
    @Test(arguments: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.25, 1.0)])
    func feedbackOfCertainOutcomes(swipe: Double, tap: Double) throws {
        func world(_ swipe: Double, _ tap: Double) throws -> [ViewRecord] {
            let s = scenario(people: 1, days: 2, widgets: [widget("a", base: 0.5), widget("b", base: 0.3)]) { p in
                p.swipeProbability = swipe
                p.tapProbability = tap
            }
            return try WorldBuilder(scenario: s).build(person: 0, replication: 0).views
        }
        let views = try world(swipe, tap)
        let baseline = try world(0.5, 0.5)
        #expect(views.count == baseline.count && views.count > 100)
        #expect(zip(views, baseline).allSatisfy { $0.time == $1.time && $0.wanted == $1.wanted })
        if swipe == 0 || swipe == 1 { #expect(views.allSatisfy { $0.wouldSwipe == (swipe == 1) }) }
        if tap == 0 || tap == 1 { #expect(views.allSatisfy { $0.wouldTap == (tap == 1) }) }
        if swipe == 0.25 {
            // Drawn: about a quarter swipe (binomial, 4 standard deviations).
            let n = Double(views.count), k = Double(views.filter(\.wouldSwipe).count)
            #expect(abs(k - 0.25 * n) <= 4 * (0.25 * 0.75 * n).squareRoot())
        }
    }

    // MARK: - Sessions: each widget its own Poisson process

    /// A and B with equal flat interest; A's interest bursts × 20 for 30 min after each
    /// of its pushes (30 changes a day, all announced).
    func burstingPair(people: Int = 40, days: Int = 2) -> Scenario {
        var news = ContentSpec()
        news.randomPerDay = 30
        news.pushFraction = 1
        var a = widget("a", base: 0.5, content: news)
        a.interest.afterPush = Burst(factor: 20, afterMs: 30 * Milliseconds.minute)
        let b = widget("b", base: 0.5)
        return scenario(people: people, days: days, widgets: [a, b]) { p in
            p.sessionsPerDay = PerPersonRate(mean: 20, cv: 0)
            p.sessionProfile = HourProfile.flat
        }
    }

    /// Length of the union of [p, p + after] over `pushes`, within [0, end).
    static func burstCoverage(_ pushes: [SimTime], after: Int64, end: SimTime) -> Int64 {
        var covered: Int64 = 0
        var reach: SimTime = .min
        for p in pushes {
            let a = max(p, reach), b = min(p + after, end)
            if b > a { covered += b - a }
            reach = max(reach, p + after)
        }
        return covered
    }

    @Test func eachWidgetsSessionsArePoissonWithItsOwnIntegratedRate() throws {
        // Fails on a session process of fixed total rate split by interest share: there
        // A's bursts take B's sessions (B's mean falls from 800 to about 400 here).
        let s = burstingPair()
        let builder = try WorldBuilder(scenario: s)
        let perMs = 20.0 / Double(Milliseconds.day)  // r(t), flat
        var expectedA = 0.0, expectedB = 0.0
        var countA = 0, countB = 0
        for person in 0 ..< s.people {
            let w = builder.build(person: person, replication: 0)
            // Rate of w: r · λ_w(t) / Σ λ̄ = r · 0.5 · burst / 1.
            let covered = Self.burstCoverage(w.pushTimes[0], after: 30 * Milliseconds.minute, end: s.durationMs)
            expectedA += perMs * 0.5 * (Double(s.durationMs) + 19 * Double(covered))
            expectedB += perMs * 0.5 * Double(s.durationMs)
            countA += w.sessions.filter { $0.widget == 0 }.count
            countB += w.sessions.filter { $0.widget == 1 }.count
        }
        #expect(expectedB == 800)
        #expect(expectedA > 2 * expectedB, "the bursts must matter: \(expectedA)")
        // Poisson: variance = mean; 4 standard deviations.
        #expect(abs(Double(countB) - expectedB) < 4 * expectedB.squareRoot(), "B: \(countB) vs \(expectedB)")
        #expect(abs(Double(countA) - expectedA) < 4 * expectedA.squareRoot(), "A: \(countA) vs \(expectedA)")
    }

    @Test func withoutBurstsSessionsPerDayIsTheDaysMean() throws {
        var s = burstingPair(people: 60, days: 2)
        s.widgets[0].interest.afterPush = nil
        let builder = try WorldBuilder(scenario: s)
        var count = 0
        for person in 0 ..< s.people { count += builder.build(person: person, replication: 0).sessions.count }
        let expected = 20.0 * Double(s.people * s.days)
        #expect(abs(Double(count) - expected) < 4 * expected.squareRoot(), "\(count) vs \(expected)")
    }

    // MARK: - Donations carry configurations

    /// Two stocks instances (AAPL, TSLA) in the stack; sessions of the AAPL widget
    /// donate AAPL, TSLA or GOOG with weights 1, 1, 2.
    func stocks() -> Scenario {
        var aapl = widget("aapl", base: 1, kind: "stocks")
        aapl.configuration = ["symbol": "AAPL"]
        aapl.donatedConfigurations = [
            DonatedConfiguration(["symbol": "AAPL"], weight: 1),
            DonatedConfiguration(["symbol": "TSLA"], weight: 1),
            DonatedConfiguration(["symbol": "GOOG"], weight: 2),
        ]
        var tsla = widget("tsla", base: 1e-9, kind: "stocks")
        tsla.configuration = ["symbol": "TSLA"]
        return scenario(people: 20, days: 3, widgets: [aapl, tsla]) { p in
            p.donationProbability = 1
            p.sessionsPerDay = PerPersonRate(mean: 30, cv: 0)
        }
    }

    @Test func aDonationReachesTheInstanceWhoseConfigurationItCarriesOrNone() throws {
        // Fails when the configuration is never read: every donation then goes to the
        // session's own widget (AAPL), none to TSLA and none is lost.
        let s = stocks()
        var sessions = 0, toAAPL = 0, toTSLA = 0
        for person in 0 ..< s.people {
            let (counts, engine, world) = try simulateWithEngine(s, person: person)
            for d in 0 ..< s.days { #expect(counts[d, .donations] == counts[d, .sessions]) }
            sessions += world.sessions.filter { $0.widget == 0 }.count
            toAAPL += engine.history.donations[0]
            toTSLA += engine.history.donations[1]
        }
        // Binomial shares 1/4, 1/4 (GOOG, 1/2, matches no instance); 4 sd.
        let n = Double(sessions)
        let sd = (n * 0.25 * 0.75).squareRoot()
        #expect(abs(Double(toAAPL) - n / 4) < 4 * sd, "\(toAAPL) of \(sessions)")
        #expect(abs(Double(toTSLA) - n / 4) < 4 * sd, "\(toTSLA) of \(sessions)")
    }

    // MARK: - Audio and navigation sessions

    @Test func pushesDuringAnAudioSessionAreFree() throws {
        var news = ContentSpec()
        news.randomPerDay = 48
        news.pushFraction = 1
        var player = widget("player", base: 0.2, content: news)
        var audio = AudioSessionModel(perDay: 6)
        audio.profile = HourProfile.flat
        audio.medianMs = Milliseconds.hour
        audio.sigma = 0
        player.audioSessions = audio
        let s = scenario(people: 30, days: 2, widgets: [player, widget("other", base: 0.2)],
                         budgets: [PolicyChoice(name: "daily_quota")]) { p in
            p.sessionsPerDay = PerPersonRate(mean: 1, cv: 0)
        }
        var starts = 0
        var audioReloads: Int64 = 0
        for person in 0 ..< s.people {
            let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(PolicyParameters()))
            let (counts, _, world) = try simulateWithEngine(s, person: person, budget: spy)
            starts += world.audioStarts.count
            for d in 0 ..< s.days {
                audioReloads += counts[d, widget: 0, .reloadAudio]
                #expect(counts[d, widget: 1, .reloadAudio] == 0, "another app's widget")
            }
            // No charged request of the player while one of its audio sessions runs.
            let spans = world.audioStarts.map { ($0.time, $0.time + Milliseconds.hour) }
            for d in spy.decisions where d.instance == 0 && d.reason == .background {
                #expect(!spans.contains { $0.0 <= d.time && d.time < $0.1 }, "charged push at \(d.time)")
            }
        }
        // Poisson starts: 6 a day; every start reloads the player for free too.
        let expected = 6.0 * Double(s.people * s.days)
        #expect(abs(Double(starts) - expected) < 4 * expected.squareRoot(), "\(starts) vs \(expected)")
        // Pushes at 48 a day hit about a quarter of the day in audio sessions.
        #expect(audioReloads > Int64(starts) + 200, "\(audioReloads) audio reloads, \(starts) starts")
    }

    // MARK: - Widgets added during the run

    @Test func anAddedWidgetExistsFromItsAdditionWithAFreeFirstReload() throws {
        var late = widget("late", base: 0.5, reload: .after(30 * Milliseconds.minute))
        let added = Milliseconds.day + 10 * Milliseconds.hour
        late.addedAfterMs = added
        let s = scenario(people: 5, days: 3, widgets: [widget("first", base: 0.5), late],
                         budgets: [PolicyChoice(name: "daily_quota")])
        for person in 0 ..< s.people {
            let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(PolicyParameters()))
            let (counts, _, world) = try simulateWithEngine(s, person: person, budget: spy)
            let reloads = spy.reloads.filter { $0.instance == 1 }
            #expect(reloads.first?.time == added && reloads.first?.charged == false)
            #expect(counts[1, widget: 1, .reloadWidgetAdded] == 1)
            #expect(counts[0, widget: 1, .views] == 0 && counts[0, widget: 1, .reloadTimeChange] == 0)
            #expect(counts[2, widget: 1, .reloadTimeChange] == 1)
            // No interest, so no session and no wanted view, before it exists; never on top then.
            #expect(!world.sessions.contains { $0.widget == 1 && $0.start < added })
            #expect(!world.views.contains { $0.wanted == 1 && $0.time < added })
            // Never on top (nor seen) before it exists, though static ranking proposes it second.
            #expect(counts[0, .views] > 0 && counts[0, widget: 1, .views] == 0)
        }
    }

    @Test func anAddedWidgetsBudgetStartsWithALearningPeriod() {
        let policy = ViewWeightedBudget(
            minPerDay: 5, maxPerDay: 50, viewsForMax: 100, learningPeriodMs: Milliseconds.day,
            minSpacingMs: 0, refusal: RefusalRule(timelineRetryMs: nil, backgroundRetryMs: nil))
        policy.begin(instances: 2)
        let added = 4 * Milliseconds.day + Milliseconds.hour
        policy.didAdd(instance: 1, at: added)
        #expect(policy.budget(of: 0, at: added + Milliseconds.hour) == 5)
        #expect(policy.budget(of: 1, at: added + Milliseconds.hour) == 50)
        #expect(policy.budget(of: 1, at: added + Milliseconds.day + 1) == 5)
        // Its average counts only the days since its addition: 100 views on day 4
        // make day 5's budget the maximum (the other instance's 100 over 5 days do not).
        for k in 0 ..< 100 {
            policy.didView(instance: 1, at: added + Int64(k))
            policy.didView(instance: 0, at: added + Int64(k))
        }
        #expect(policy.budget(of: 1, at: 5 * Milliseconds.day) == 50)
        #expect(policy.budget(of: 0, at: 5 * Milliseconds.day) == 5 + 45 * 100 / 500)

        // Midnight days, whose whole balance is at hand at once (with the person's days
        // the same balance is released through the day).
        let ios = IOSLikeBudget(initialPerDay: 12, linearUpTo: 30, perInstanceMax: 50, totalPerDay: 750,
                                refusal: RefusalRule(timelineRetryMs: nil, backgroundRetryMs: nil), budgetDay: .midnight)
        ios.begin(instances: 2)
        // Day 0 spends the initial budget; by day 3 instance 1 (never viewed) has 1 a day.
        let day3 = 3 * Milliseconds.day
        var granted = 0
        while ios.decide(instance: 1, reason: .timeline, at: day3) == .grant { granted += 1 }
        #expect(granted == 1)
        ios.didAdd(instance: 1, at: day3 + 1)
        granted = 0
        while ios.decide(instance: 1, reason: .timeline, at: day3 + 2) == .grant { granted += 1 }
        #expect(granted == 12, "an added instance starts afresh with the initial budget")
    }

    // MARK: - StandBy

    /// StandBy display refreshes come at the system's rate (MODEL §2), free. Each is a
    /// reload, so a widget asking every 30 minutes never comes due in StandBy: the
    /// refresh every 15 minutes comes first (`SystemRateTests` has a widget whose own
    /// requests do).
    @Test func standByGlancesHappenAndItsDisplayRefreshesAreFree() throws {
        var standBy = StandByModel()
        standBy.startHour = 23
        standBy.spreadMs = 0
        standBy.sigma = 0
        standBy.medianMs = 7 * Milliseconds.hour
        standBy.viewsPerHour = 2
        let s = scenario(people: 20, days: 3, widgets: [widget("clock", base: 1, reload: .after(30 * Milliseconds.minute))],
                         budgets: [PolicyChoice(name: "daily_quota")]) { p in
            p.viewProfile = HourProfile.waking  // no ordinary view from 23:00 to 07:00
            p.standBy = standBy
        }
        var glances: Int64 = 0
        for person in 0 ..< s.people {
            let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(PolicyParameters()))
            let (counts, _, world) = try simulateWithEngine(s, person: person, budget: spy)
            // UTC: 23:00 → 06:00 each night; the night before the start is in StandBy
            // until 06:00, the last night is cut at the run's end.
            #expect(world.standByStarts == [0] + (0 ..< 3).map { Int64($0) * Milliseconds.day + 23 * Milliseconds.hour })
            #expect(world.standByEnds.first == 6 * Milliseconds.hour && world.standByEnds.last == s.durationMs)
            let spans = zip(world.standByStarts, world.standByEnds).map { ($0, $1) }
            #expect(!spy.decisions.contains { d in spans.contains { $0.0 <= d.time && d.time < $0.1 } },
                    "no charged request in StandBy")
            var standByReloads: Int64 = 0
            for d in 0 ..< s.days {
                glances += counts[d, .standByViews]
                standByReloads += counts[d, widget: 0, .reloadStandBy]
            }
            // At each period's start and every 15 min in it: 24 + 28 + 28 + 4.
            #expect(standByReloads == 84, "\(standByReloads)")
        }
        // Glances: Poisson, 2 an hour over 6 + 7 + 7 + 1 hours per person.
        let expected = 2.0 * 21 * Double(s.people)
        #expect(abs(Double(glances) - expected) < 4 * expected.squareRoot(), "\(glances) vs \(expected)")
    }

    // MARK: - Widget Suggestions

    func suggestions(on: Bool) -> Scenario {
        var s = scenario(people: 10, days: 2, widgets: [
            widget("a", base: 0.3), widget("b", base: 0.3), widget("maps", base: 1.5),
        ]) { p in
            p.donationProbability = 1
            p.sessionsPerDay = PerPersonRate(mean: 40, cv: 0)
        }
        s.stack = StackSpec(members: [0, 1])
        s.stack.suggestable = [2]
        s.stack.widgetSuggestions = on
        return s
    }

    @Test func widgetSuggestionsShowAWidgetFromOutsideTheStackWhenItsDonationsAreStrong() throws {
        let off = try run(suggestions(on: false)).totals[0][0]
        let on = try run(suggestions(on: true)).totals[0][0]
        let d = 0 ..< 2
        #expect(off.sum(.suggestionsShown, days: d) == 0)
        let shown = on.sum(.suggestionsShown, days: d), wanted = on.sum(.suggestionsWanted, days: d)
        #expect(shown > 100 && wanted > 0 && wanted < shown, "\(wanted) of \(shown)")
        // maps is wanted with probability 1.5 / (0.5 + 2.1) at a view; a suggestion is
        // shown after its donations, so it is wanted at least that often.
        #expect(Double(wanted) / Double(shown) > 0.4, "\(wanted) of \(shown)")
        // The stack's own columns do not change: same world, suggestions counted apart.
        #expect(off.sum(.hits, days: d) == on.sum(.hits, days: d))
        #expect(off.sum(.viewsWanted, days: d) == on.sum(.viewsWanted, days: d))
        // People want maps too: fewer views want a member than there are views.
        #expect(Double(on.sum(.viewsWanted, days: d)) < 0.4 * Double(on.sum(PersonCounter.views, days: d)))
    }

    /// Brute-force check of the rule against the donations of one person.
    @Test func theSuggestionRuleCountsDonationsInTheWindow() {
        let rule = WidgetSuggestions(candidates: [3, 1], widgets: 4)
        #expect(rule.suggestion(at: 0) == nil)
        rule.observeDonation(instance: 3, at: 1_000)
        #expect(rule.suggestion(at: 2_000) == nil, "one donation is not enough")
        rule.observeDonation(instance: 1, at: 2_000)
        rule.observeDonation(instance: 1, at: 3_000)
        #expect(rule.suggestion(at: 3_000) == 1)
        rule.observeDonation(instance: 3, at: 4_000)
        #expect(rule.suggestion(at: 4_000) == 0, "ties go to the first listed")
        rule.observeDonation(instance: 0, at: 4_500)  // a stack member: not a candidate
        #expect(rule.suggestion(at: 1_000 + WidgetSuggestions.windowMs) == 1, "the first donation left the window")
        #expect(rule.suggestion(at: 5_000 + WidgetSuggestions.windowMs) == nil)
    }

    // MARK: - Common random numbers and determinism

    /// Every new process at once, under two budgets and two rankings.
    func everything() -> Scenario {
        var s = suggestions(on: true)
        var news = ContentSpec()
        news.randomPerDay = 20
        news.pushFraction = 1
        s.widgets[0].content = news
        s.widgets[0].audioSessions = AudioSessionModel(perDay: 3)
        s.widgets[1].addedAfterMs = 30 * Milliseconds.hour
        s.widgets[1].kind = "a"
        s.widgets[1].configuration = ["x": "1"]
        s.widgets[0].donatedConfigurations = [DonatedConfiguration([:]), DonatedConfiguration(["x": "1"])]
        s.person.standBy = StandByModel()
        s.budgets = [PolicyChoice(name: "daily_quota"), PolicyChoice(name: "view_weighted")]
        s.rankings = [PolicyChoice(name: "static"), PolicyChoice(name: "most_recent_donation")]
        return s
    }

    @Test func theNewProcessesAreTheSameUnderEveryPolicyAndThreadCount() throws {
        let s = everything()
        let one = try run(s, threads: 1), two = try run(s, threads: 2)
        let d = 0 ..< s.days
        let world: [PersonCounter] = [
            .sessions, .donations, .audioSessions, .standByViews, .suggestionsShown, .suggestionsWanted, .views,
        ]
        let first = one.totals[0][0]
        #expect(first.sum(.audioSessions, days: d) > 0 && first.sum(.standByViews, days: d) > 0)
        #expect(first.sum(.suggestionsShown, days: d) > 0 && first.sum(.reloadWidgetAdded, days: d) == Int64(s.people))
        for p in one.pairs.indices {
            for c in world { #expect(one.totals[0][p].sum(c, days: d) == first.sum(c, days: d), "\(c)") }
            #expect(one.totals[0][p].person == two.totals[0][p].person)
            #expect(one.totals[0][p].widget == two.totals[0][p].widget)
        }
    }
}
