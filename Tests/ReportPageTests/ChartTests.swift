import Foundation
import Testing
@testable import WidgetSimReportPage

/// Charts built from constructed tables: what each draws, checked in its script and data.
@Suite("report.html charts")
struct ChartTests {
    @Test("eleven refusal codes get eleven colours; a code never counted gets none")
    func reasonColours() throws {
        var r = ReasonsTable()
        let codes = (1 ... 11).map { "code_\($0)" }
        let pair = PairKey(budget: "b", ranking: "r")
        r.counts["refusal"] = [pair: Dictionary(uniqueKeysWithValues: codes.map { ($0, 1.0) })]
        r.reasonsByKind["refusal"] = codes
        let chart = try #require(Figures.reasons(r, kind: "refusal", pairs: [pair]))
        let colours = chart.body.split(separator: "\n").filter { $0.hasPrefix("set linetype ") && $0.contains(" lc rgb ") }
        #expect(colours.count == 11)
        #expect(Set(colours.map { $0.split(separator: "'")[1] }).count == 11)
        #expect(chart.body.contains("set linetype cycle 11"))
    }

    @Test("a forest of long pair names and six-digit differences: its x tick labels fit side by side")
    func forestTickLabelsFit() throws {
        let baseline = PairKey(budget: "daily_quota", ranking: "static")
        let others = [PairKey(budget: "view_weighted", ranking: "empirical_bayes"), PairKey(budget: "unlimited", ranking: "empirical_bayes")]
        var c = ComparisonTable()
        c.pairs = [baseline] + others
        c.baseline = baseline
        c.entries["energy"] = [baseline: (Estimate(mean: 134313, halfWidth: 1847), nil),
                               others[0]: (Estimate(mean: 55727, halfWidth: 2722), Estimate(mean: -595969.5, halfWidth: 1538)),
                               others[1]: (Estimate(mean: 204553, halfWidth: 2438), Estimate(mean: 423662.1, halfWidth: 734))]
        let chart = try #require(Figures.forest(c, .energy, unit: ""))
        // The demo page drew −750000 … 750000 every 250000 in a plot area some 300 px wide,
        // seven labels of seven characters running together.
        let line = try #require(chart.body.split(separator: "\n").first { $0.hasPrefix("set xtics ") })
        let step = try #require(Double(line.split(separator: " ")[2]))
        #expect(step >= 500000, "\(line)")
    }

    @Test("learning curves: a 95% band per ranking over replications, the static line drawn last")
    func learningBands() throws {
        var d = DailyTable()
        d.days = 2
        let rankings = ["static", "empirical_bayes"]
        d.pairs = rankings.map { PairKey(budget: "u", ranking: $0) }
        for p in d.pairs {
            d.byPair[p] = [DailyTable.Day(warmup: false, accuracy: 0.3, ceiling: 0.4), DailyTable.Day(warmup: false, accuracy: 0.31, ceiling: 0.4)]
            // Three replications: 30, 33 and 36 hits of 100 on day 0.
            d.counts[p] = ["0": [0: (30, 100), 1: (30, 100)], "1": [0: (33, 100), 1: (30, 100)], "2": [0: (36, 100), 1: (30, 100)]]
        }
        let chart = try #require(Figures.learning(d, budget: "u", staticRanking: "static"))
        let rows = chart.data[0].text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let header = rows[0]
        let low = try #require(header.firstIndex(of: "\"empirical_bayes ci95_low\""))
        let high = try #require(header.firstIndex(of: "\"empirical_bayes ci95_high\""))
        // mean 33, sd 3, t(0.975, 2) = 4.302652729911275: 33 ± 7.452...
        let h = 4.302652729911275 * 3 / 3.0.squareRoot()
        #expect(abs(Double(rows[1][low])! - (33 - h)) < 1e-9)
        #expect(abs(Double(rows[1][high])! - (33 + h)) < 1e-9)
        // Day 1: every replication the same, a band of zero width.
        #expect(Double(rows[2][low]) == 30 && Double(rows[2][high]) == 30)
        let plot = chart.body.components(separatedBy: "plot ").last!
        #expect(plot.components(separatedBy: ", \\").last!.contains("static (fixed order)"))
        #expect(plot.contains("filledcurves"))
    }
}
