import Foundation
import Testing
@testable import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

/// The targets section of report.html: present with the numbers of the run's own CSVs
/// when the run holds the pairs it compares, absent otherwise.
@Suite("report.html targets")
struct TargetsTests {
    /// The tiny scenario over two weeks, three replications, with the rankings and the
    /// budgets the targets compare, run into a fresh folder (CSVs and page).
    func targetsRun() throws -> URL {
        let tiny = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        guard let cut = tiny.range(of: "\nbudgets:") else { throw TestFailure("scenarios/tiny.yaml has no budgets: section") }
        let text = String(tiny[..<cut.lowerBound]).replacingOccurrences(of: "days: 2\n", with: "days: 14\n") + """

            replications: 3
            budgets: [ios_like, predictive, view_weighted]
            rankings: [static, empirical_bayes, oracle]
            baseline: {budget: ios_like, ranking: static}

            """
        let folder = temporaryFolder()
        let path = folder.appendingPathComponent("targets.yaml")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let s = try ScenarioLoader.load(path: path.path)
        let out = folder.appendingPathComponent("run")
        var options = RunOptions(outputFolder: out, threads: 1)
        options.widgetDays = false
        guard case .finished = try RunJob.execute(s, options) else { throw TestFailure("the run did not finish") }
        return out
    }

    /// Student t_{0.975, 2}: three replications.
    static let t2 = 4.302652729911275

    /// Mean and 95% half-width of three values.
    func interval(_ v: [Double]) -> (mean: Double, half: Double) {
        let m = v.reduce(0, +) / Double(v.count)
        let sd = (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)).squareRoot()
        return (m, Self.t2 * sd / Double(v.count).squareRoot())
    }

    @Test("a run with the policies: every target, its figure and interval from daily.csv and summary.csv")
    func sectionFromTheRunsCSVs() throws {
        let folder = try targetsRun()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let targets = try #require(Targets.make(try Inputs.read(folder)))
        // Two weeks, the gap share, three budget targets.
        #expect(targets.rows.count == 6)
        #expect(targets.intro.contains("3 replications"))
        #expect(targets.intro.contains("block of 3 people"))

        // Week 2 (days 7…13) under ios_like, the baseline's budget, recomputed here.
        let daily = try csvRows(folder.appendingPathComponent("daily.csv"))
        func hits(_ ranking: String, _ rep: String?, _ days: Range<Int>) -> Double {
            var h = 0.0, w = 0.0
            for r in daily where r["budget"] == "ios_like" && r["ranking"] == ranking && (rep == nil || r["replication"] == rep)
                && days.contains(Int(r["day"]!)!) {
                h += Double(r["hits"]!)!
                w += Double(r["views_wanted"]!)!
            }
            return h / w
        }
        let week2 = 7 ..< 14
        let pooled = hits("empirical_bayes", nil, week2) - hits("static", nil, week2)
        let perRep = ["0", "1", "2"].map { hits("empirical_bayes", $0, week2) - hits("static", $0, week2) }
        let row = targets.rows[1]
        #expect(row.target.contains("week 2 (days 8–14)"))
        #expect(row.pairs == "under ios_like")
        #expect(abs(Double(row.value)! - pooled) < 1e-12)
        let (_, half) = interval(perRep)
        #expect(abs(Double(row.low)! - (pooled - half)) < 1e-9)
        #expect(abs(Double(row.high)! - (pooled + half)) < 1e-9)
        #expect(row.met == (pooled - half > 0 ? "met" : "not met"))

        // The gap captured in the last week: pooled accuracies.
        let gap = (hits("empirical_bayes", nil, week2) - hits("static", nil, week2))
            / (hits("oracle", nil, week2) - hits("static", nil, week2))
        #expect(abs(Double(targets.rows[2].value)! - gap) < 1e-12)
        #expect(targets.rows[2].met == (gap >= 0.5 ? "met" : "not met"))

        // predictive's stale-view share below ios_like's, under static (the baseline's ranking).
        let summary = try csvRows(folder.appendingPathComponent("summary.csv"))
        func column(_ budget: String, _ name: String) -> [Double] {
            summary.filter { $0["budget"] == budget && $0["ranking"] == "static" }
                .sorted { $0["replication"]! < $1["replication"]! }.map { Double($0[name]!)! }
        }
        let p = column("predictive", "stale_view_share"), i = column("ios_like", "stale_view_share")
        let reduction = 1 - (p.reduce(0, +) / 3) / (i.reduce(0, +) / 3)
        let stale = targets.rows[4]
        #expect(stale.pairs == "under static")
        #expect(abs(Double(stale.value)! - reduction) < 1e-12)
        let (_, staleHalf) = interval(zip(p, i).map { 1 - $0 / $1 })
        #expect(abs(Double(stale.high)! - (reduction + staleHalf)) < 1e-9)
        #expect(stale.met == (reduction >= 0.2 ? "met" : "not met"))
        let c = zip(column("predictive", "charged_reloads_per_widget_day"), column("ios_like", "charged_reloads_per_widget_day"))
            .map { $0 - $1 }
        #expect(abs(Double(targets.rows[3].value)! - c.reduce(0, +) / 3) < 1e-9)

        // The page shows the section, its numbers as the rows hold them.
        let r = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(r.status == 0, "\(r.err)")
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<h2 id=\"targets\">Targets</h2>"))
        #expect(html.contains("<a href=\"#targets\">"))
        #expect(html.contains("data-value=\"\(row.value)\" data-low=\"\(row.low)\" data-high=\"\(row.high)\""))
        #expect(html.contains("data-value=\"\(stale.value)\""))
    }

    @Test("a run without those policies has no targets section")
    func absentWithoutThePolicies() throws {
        let folder = try tinyRunFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(Targets.make(try Inputs.read(folder)) == nil)
        let r = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(r.status == 0, "\(r.err)")
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(!html.contains("id=\"targets\""))
        #expect(!html.contains("#targets"))
    }
}
