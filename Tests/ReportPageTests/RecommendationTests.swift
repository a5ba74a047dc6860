import Foundation
import Testing
@testable import WidgetSimReportPage

/// The recommendations section's verdicts, on comparisons built by hand.
@Suite("report.html recommendations")
struct RecommendationTests {
    static let baseline = PairKey(budget: "unlimited", ranking: "static")

    /// A comparison of `accuracy` (and nothing else): pair → (value, difference, half-width of the difference).
    func comparison(_ pairs: [(PairKey, Double, Double?, Double?)], metric: String = "accuracy") -> ComparisonTable {
        var c = ComparisonTable()
        c.pairs = pairs.map(\.0)
        c.baseline = Self.baseline
        for (pair, value, diff, half) in pairs {
            c.entries[metric, default: [:]][pair] = (Estimate(mean: value, halfWidth: 0.01),
                                                     diff.map { Estimate(mean: $0, halfWidth: half) })
        }
        return c
    }

    func pair(_ r: String, budget: String = "unlimited") -> PairKey { PairKey(budget: budget, ranking: r) }

    @Test("a clear winner: better than the baseline beyond noise, no other interval reaching its own")
    func clearWinner() throws {
        let c = comparison([(Self.baseline, 0.3255, nil, nil),
                            (pair("empirical_bayes"), 0.3351, 0.0096, 0.0005),
                            (pair("time_of_day"), 0.3290, 0.0035, 0.0010),
                            (pair("relevance"), 0.3200, -0.0055, 0.0020)])
        let r = try #require(Recommendation.make(c, goal: .accuracy))
        #expect(r.verdict == .best(pair("empirical_bayes")))
        #expect(r.verdictWord == "best")
        #expect(r.named.count == 1)
        #expect(abs(r.named[0].difference - 0.96) < 1e-9)
        #expect(abs(r.named[0].halfWidth! - 0.05) < 1e-9)
        #expect(r.sentence.hasPrefix("`unlimited/empirical_bayes` shows the wanted widget on top 0.96 ± 0.05 points more often than the baseline `unlimited/static`"))
        #expect(r.sentence.contains("best pair on accuracy"))
        // Backticks become code, never raw.
        let html = markup(r.sentence)
        #expect(!html.contains("`"))
        #expect(html.contains("<code>unlimited/empirical_bayes</code>"))
    }

    @Test("a tie: intervals overlapping the leader's are named together, none called best")
    func tie() throws {
        let c = comparison([(Self.baseline, 0.3255, nil, nil),
                            (pair("empirical_bayes"), 0.3351, 0.0096, 0.0030),
                            (pair("thompson"), 0.3330, 0.0075, 0.0020),
                            (pair("time_of_day"), 0.3290, 0.0020, 0.0010)])
        let r = try #require(Recommendation.make(c, goal: .accuracy))
        #expect(r.verdict == .tie([pair("empirical_bayes"), pair("thompson")]))
        #expect(r.verdictWord == "tie")
        #expect(!r.sentence.contains("best pair"))
        #expect(r.sentence.contains("none is best"))
        #expect(r.sentence.contains("`unlimited/empirical_bayes` and `unlimited/thompson`"))
        // A pair whose interval reaches zero still ties when it overlaps the leader's.
        let weak = comparison([(Self.baseline, 0.3255, nil, nil),
                               (pair("empirical_bayes"), 0.3351, 0.0096, 0.0030),
                               (pair("thompson"), 0.3280, 0.0025, 0.0045)])
        #expect(try #require(Recommendation.make(weak, goal: .accuracy)).verdict == .tie([pair("empirical_bayes"), pair("thompson")]))
    }

    @Test("a tie whose other pairs' differences print alike names one figure, not a range from it to itself")
    func tieOfEqualFigures() throws {
        let c = comparison([(Self.baseline, 0.3255, nil, nil),
                            (pair("empirical_bayes"), 0.3351, 0.0096, 0.0030),
                            (pair("thompson"), 0.3329, 0.00741, 0.0020),
                            (pair("hybrid"), 0.3330, 0.00744, 0.0020)])
        let r = try #require(Recommendation.make(c, goal: .accuracy))
        #expect(r.verdict == .tie([pair("empirical_bayes"), pair("hybrid"), pair("thompson")]))
        #expect(r.sentence.hasSuffix("the others differ from the baseline by 0.74 points."), "\(r.sentence)")
    }

    @Test("nothing better than the baseline beyond noise: the page says so")
    func noneBetter() throws {
        let c = comparison([(Self.baseline, 0.3255, nil, nil),
                            (pair("empirical_bayes"), 0.3260, 0.0005, 0.0010),
                            (pair("time_of_day"), 0.3200, -0.0055, 0.0020)])
        let r = try #require(Recommendation.make(c, goal: .accuracy))
        #expect(r.verdict == .noneBetter)
        #expect(r.named.isEmpty)
        #expect(r.sentence.contains("no pair does better than the baseline `unlimited/static` beyond noise"))
    }

    @Test("lower is better for cost and freshness: a cheaper budget wins, a dearer one never does")
    func lowerIsBetter() throws {
        var c = comparison([(Self.baseline, 40, nil, nil),
                            (pair("static", budget: "quota"), 12, -28, 1.5),
                            (pair("static", budget: "fixed_interval"), 60, 20, 2)],
                           metric: "charged_reloads_per_widget_day")
        let r = try #require(Recommendation.make(c, goal: .cost))
        #expect(r.verdict == .best(pair("static", budget: "quota")))
        #expect(r.sentence.hasPrefix("`quota/static` charges 28.0 ± 1.5 fewer reloads per widget-day than the baseline"))
        // Freshness reads stale_member_share, in points.
        c.entries["stale_member_share"] = [Self.baseline: (Estimate(mean: 0.10, halfWidth: nil), nil),
                                           pair("static", budget: "quota"): (Estimate(mean: 0.30, halfWidth: nil), Estimate(mean: 0.20, halfWidth: 0.01))]
        let f = try #require(Recommendation.make(c, goal: .freshness))
        #expect(f.verdict == .noneBetter)
        #expect(Recommendation.make(c).map(\.goal.name) == ["freshness", "cost"])
    }

    @Test("labels placed around points never overlap one another, nor any point")
    func labelsApart() {
        // Five points, three of them almost on top of one another.
        let points: [(x: Double, y: Double)] = [(100, 100), (104, 102), (108, 98), (400, 200), (402, 200)]
        let texts = ["unlimited", "daily_quota", "fixed_interval", "predictive", "ios_like"]
        let placed = LabelPlacement.place(points, texts, width: 700, height: 370)
        for i in placed.indices {
            for j in placed.indices where j != i { #expect(!placed[i].box.overlaps(placed[j].box), "\(texts[i]) and \(texts[j])") }
            for p in points {
                let r = LabelPlacement.pointRadius
                #expect(!placed[i].box.overlaps(.init(x0: p.x - r, y0: p.y - r, x1: p.x + r, y1: p.y + r)), "\(texts[i]) over a point")
            }
            #expect(placed[i].box.x0 >= 0 && placed[i].box.x1 <= 700)
        }
    }

    @Test("week one: the paired difference in accuracy over the first seven measured days, over replications")
    func weekOne() throws {
        let eb = pair("empirical_bayes")
        var c = comparison([(Self.baseline, 0.30, nil, nil), (eb, 0.33, 0.03, 0.001)])
        c.pairs = [Self.baseline, eb]
        var d = DailyTable()
        d.days = 9
        d.warmupDays = 1
        d.pairs = c.pairs
        // Per replication, per day of week one: the baseline 30 hits of 100, empirical_bayes 32, 33, 34.
        for (p, hits) in [(Self.baseline, [30.0, 30, 30]), (eb, [32.0, 33, 34])] {
            for (r, h) in hits.enumerated() {
                for day in 0 ..< 9 { d.counts[p, default: [:]]["\(r)", default: [:]][day] = day == 0 ? (0, 0) : (h, 100) }
            }
        }
        let all = Recommendation.make(c, daily: d)
        #expect(all.map(\.goal.name) == ["accuracy", "accuracy in week one"])
        let r = try #require(all.last)
        #expect(r.verdict == .best(eb))
        // Differences of 1, 2 and 3 points (± 2.48) reach zero: no better than the baseline.
        var close = d
        for r in 0 ..< 3 { for day in 1 ..< 9 { close.counts[eb]!["\(r)"]![day] = (Double(31 + r), 100) } }
        #expect(Recommendation.make(c, daily: close).last?.verdict == .noneBetter)
        // Differences 2, 3, 4 points: mean 3, sd 1, t(0.975, 2) · 1 / √3.
        #expect(abs(r.named[0].difference - 3) < 1e-9)
        #expect(abs(r.named[0].halfWidth! - 4.302652729911275 / 3.0.squareRoot()) < 1e-9)
        #expect(r.sentence.hasPrefix("`unlimited/empirical_bayes` shows the wanted widget on top 3.00 ± 2.48 points more often in week one than the baseline"))
        // A run of a week or less has no separate week one.
        d.days = 8
        #expect(Recommendation.make(c, daily: d).count == 1)
    }
}
