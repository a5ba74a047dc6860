import EngineTestSupport
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

/// The terminal table's first- and last-week accuracy columns.
@Suite struct SummaryTableWeekTests {
    func learningScenario(days: Int, warmup: Int = 0) -> Scenario {
        let widgets = [
            widget("news", base: 2, peaks: [InterestPeak(hour: 8, widthHours: 1, factor: 4)]),
            widget("mail", base: 1, peaks: [InterestPeak(hour: 18, widthHours: 1, factor: 4)]),
            widget("weather", base: 1),
        ]
        var s = scenario(people: 3, days: days, seed: 5, widgets: widgets,
                         rankings: [PolicyChoice(name: "static"), PolicyChoice(name: "time_of_day")])
        s.replications = 2
        s.warmupDays = warmup
        s.baseline = PolicyPair(budget: "unlimited", ranking: "static")
        return s
    }

    /// Pooled accuracy of replication `rep`, pair `p`, over `days`.
    func accuracy(_ r: RunResult, _ p: Int, _ rep: Int, _ days: Range<Int>) -> Double {
        let t = r.totals[rep][p]
        return Double(t.sum(.hits, days: days)) / Double(t.sum(.viewsWanted, days: days))
    }

    @Test func weekColumnsShowFirstAndLastSevenMeasuredDays() throws {
        let r = try run(learningScenario(days: 16, warmup: 1))
        let text = SummaryTable.render(r)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))")
        let header = try #require(lines.first { $0.hasPrefix("budget") })
        #expect(header.contains("accuracy   wk1→last  charged/wd"), "\(header)")
        let names = header.split(separator: " ", omittingEmptySubsequences: true)
        #expect(names.count > 4)
        // Measured days are 1…15: the first week is 1..<8, the last 9..<16.
        for (p, pair) in r.pairs.enumerated() {
            // The pair's row: under its budget's line, the ranking indented.
            let group = try #require(lines.firstIndex(of: pair.budget))
            let row = try #require(lines[group...].first { $0.hasPrefix("  \(pair.ranking) ") })
            let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let means = cells.flatMap { $0.split(separator: "→") }.compactMap { $0.split(separator: "±").first.flatMap { Double($0) } }
            let first = (0 ..< 2).map { accuracy(r, p, $0, 1 ..< 8) }.reduce(0, +) / 2 * 100
            let last = (0 ..< 2).map { accuracy(r, p, $0, 9 ..< 16) }.reduce(0, +) / 2 * 100
            // Columns: accuracy, wk1→last (two numbers), …
            #expect(abs(means[1] - first) < 0.051, "\(row)")
            #expect(abs(means[2] - last) < 0.051, "\(row)")
            #expect(abs(means[1] - means[2]) > 0 || first == last)
        }
        #expect(lines.contains { $0.contains("last wk") && $0.contains("higher is better") })
    }

    @Test func shortRunsHaveNoWeekColumns() throws {
        let text = SummaryTable.render(try run(learningScenario(days: 13)))
        #expect(!text.contains("wk1"))
    }
}
