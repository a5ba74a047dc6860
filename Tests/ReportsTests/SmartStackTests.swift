import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// Rotation accuracy against what the interest model says it must be (MODEL §5, §6).
@Suite struct SmartStackTests {
    /// |observed − expected| within 4 standard deviations.
    func close(_ observed: Double, _ expected: Double, sd: Double) -> Bool { abs(observed - expected) <= 4 * sd }

    /// Without rotation limits (a ranking alone), oracle meets the ceiling.
    @Test func oracleAccuracyEqualsTheBayesCeiling() throws {
        var s = scenario(
            people: 30, days: 3,
            widgets: [
                widget("a", base: 0.5, peaks: [InterestPeak(hour: 8, widthHours: 2, factor: 4)]),
                widget("b", base: 0.4, peaks: [InterestPeak(hour: 13, widthHours: 2, factor: 4)]),
                widget("c", base: 0.3, peaks: [InterestPeak(hour: 19, widthHours: 2, factor: 4)]),
            ],
            rankings: [PolicyChoice(name: "oracle")])
        s.stack.rotationLimits = .none
        let t = try run(s).totals[0][0]
        // Hits are a sum of Bernoulli(p_v) with Σ p_v = Σ max P(wanted = w); its variance
        // is Σ p_v (1 − p_v) ≤ Σ p_v.
        let expectedHits = Double(t.sum(.bestChanceNano)) / 1e9
        let hits = Double(t.sum(.hits))
        #expect(close(hits, expectedHits, sd: expectedHits.squareRoot()))
        // Views with a wanted member likewise against Σ P(some member wanted).
        let expectedWanted = Double(t.sum(.wantedChanceNano)) / 1e9
        #expect(close(Double(t.sum(.viewsWanted)), expectedWanted, sd: expectedWanted.squareRoot()))
        #expect(hits > 1000)
    }

    @Test func staticAccuracyIsTheFirstWidgetsShareInAStationaryScenario() throws {
        // Flat interest, no bursts: P(wanted = a | some wanted) = 0.5 / (0.5 + 0.3 + 0.2).
        let s = scenario(people: 30, days: 3, widgets: [
            widget("a", base: 0.5), widget("b", base: 0.3), widget("c", base: 0.2),
        ])
        let t = try run(s).totals[0][0]
        let n = Double(t.sum(.viewsWanted))
        let p = 0.5
        let accuracy = Double(t.sum(.hits)) / n
        #expect(close(accuracy, p, sd: (p * (1 - p) / n).squareRoot()))
        // And the stack never rotates.
        #expect(t.sum(.rotations) == 0)
    }

    @Test func timeOfDayBeatsStaticOnAStrongDailyPattern() throws {
        // Three widgets, each wanted mostly in its own part of the day; the ranking
        // alone, without the system's rotation limits.
        var s = scenario(
            people: 10, days: 14,
            widgets: [
                widget("morning", base: 0.3, peaks: [InterestPeak(hour: 8, widthHours: 2, factor: 10)]),
                widget("noon", base: 0.3, peaks: [InterestPeak(hour: 13, widthHours: 2, factor: 10)]),
                widget("evening", base: 0.3, peaks: [InterestPeak(hour: 19, widthHours: 2, factor: 10)]),
            ],
            rankings: [PolicyChoice(name: "static"), PolicyChoice(name: "time_of_day")]) { p in
                p.sessionsPerDay = PerPersonRate(mean: 15)
                p.donationProbability = 1
            }
        s.stack.rotationLimits = .none
        let r = try run(s)
        let fixed = totals(r, "unlimited", "static"), learned = totals(r, "unlimited", "time_of_day")
        let a0 = Double(fixed.sum(.hits)) / Double(fixed.sum(.viewsWanted))
        let a1 = Double(learned.sum(.hits)) / Double(learned.sum(.viewsWanted))
        #expect(a1 > a0 + 0.15, "time_of_day \(a1) vs static \(a0)")
    }

    @Test func relevanceIgnoresTheScaleOfAWidgetsScores() throws {
        func stack(scale: Double) -> Scenario {
            var news = ContentSpec()
            news.randomPerDay = 20
            news.pushFraction = 0.5
            var calendar = ContentSpec()
            calendar.scheduledPerDay = 4
            calendar.scheduledProfile = HourProfile.office
            return scenario(
                people: 8, days: 4,
                widgets: [
                    widget("weather", base: 0.4, relevance: .constant(score: 1)),
                    widget("news", base: 0.3, reload: .after(30 * Milliseconds.minute), content: news,
                           relevance: .breaking(score: 8 * scale, baseline: 1 * scale, durationMs: Milliseconds.hour)),
                    widget("calendar", base: 0.3, reload: .atEnd, horizon: 6 * Milliseconds.hour, content: calendar,
                           relevance: .scheduled(score: 10, baseline: 1, leadMs: 30 * Milliseconds.minute, durationMs: 30 * Milliseconds.minute)),
                ],
                budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(20)]))],
                rankings: [PolicyChoice(name: "relevance")])
        }
        let plain = try run(stack(scale: 1)).totals[0][0]
        let scaled = try run(stack(scale: 1000)).totals[0][0]
        #expect(plain == scaled)
        #expect(plain.sum(.rotations) > 0, "the scenario must make relevance rotate")
    }

    @Test func rankingPoliciesSeeTheSameWorld() throws {
        var news = ContentSpec()
        news.randomPerDay = 20
        news.pushFraction = 0.5
        let s = scenario(
            people: 6, days: 3,
            widgets: [
                widget("a", base: 0.4, content: news, relevance: .breaking(score: 5, baseline: 1, durationMs: Milliseconds.hour)),
                widget("b", base: 0.3, peaks: [InterestPeak(hour: 9, factor: 3)], content: news, interactive: true),
                widget("c", base: 0.3, relevance: .constant(score: 1)),
            ],
            budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(12)]))],
            rankings: RankingPolicies.all.map { PolicyChoice(name: $0.name) })
        let r = try run(s)
        let exogenous: [PersonCounter] = [.views, .viewsWanted, .sessions, .donations, .pushes, .contentChanges,
                                          .timeChanges, .environmentChanges, .bestChanceNano, .wantedChanceNano]
        let reference = r.totals[0][0]
        for p in 1 ..< r.pairs.count {
            for c in exogenous {
                for d in 0 ..< s.days {
                    #expect(r.totals[0][p].value(day: d, c) == reference.value(day: d, c), "\(r.pairs[p]) \(c) day \(d)")
                }
            }
        }
    }
}
