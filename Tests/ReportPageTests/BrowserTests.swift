import Foundation
import Testing
@testable import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

/// The page as a reader's browser shows it: every figure present and drawn, nothing fetched
/// from the network, and the numbers those of the CSVs.
@Suite("report.html in headless Chromium", .serialized)
struct BrowserTests {
    /// Checks that each figure the page was built with is in the DOM as an inline SVG with
    /// its title, and draws at least as many marks (points, bars) as its data has.
    func checkFigures(_ dom: String, _ written: ReportPage.Written, _ marks: [String: Int]) throws {
        #expect(!written.charts.isEmpty)
        for name in written.charts {
            guard let figure = dom.element(starting: "<figure class=\"chart\" id=\"chart-\(name)\"", ending: "</figure>") else {
                Issue.record("figure \(name) is missing from the DOM")
                continue
            }
            #expect(figure.contains("<svg"), "\(name): no svg element")
            #expect(figure.contains("<title>\(name)</title>"), "\(name): the svg has no title")
            let drawing = figure.components(separatedBy: "</defs>").last ?? ""
            // Points are <use> of gnuplot's point shapes; bars and bands are filled polygons.
            let drawn = drawing.occurrences(of: "href=\"#gpPt") + drawing.occurrences(of: "<polygon")
            let expected = try #require(marks[name])
            #expect(expected > 0)
            #expect(drawn >= expected, "\(name): \(drawn) marks drawn, \(expected) data points")
        }
    }

    func expectOffline(_ page: URL, _ load: Browser.Load) throws {
        #expect(load.pageRequests.isEmpty, "the page requested \(load.pageRequests)")
        let html = try String(contentsOf: page, encoding: .utf8)
        for pattern in ["<script", "<link", "<img", "<iframe", "@import", "src=", "url(http"] {
            #expect(!html.contains(pattern), "the page holds \(pattern)")
        }
    }

    @Test("the tiny run's page: every chart drawn, offline, numbers from the CSVs, screenshot")
    func tinyPage() throws {
        let folder = try tinyRunFolder()
        let written = try ReportPage.build(in: folder)
        let inputs = try Inputs.read(folder)
        let marks = Dictionary(uniqueKeysWithValues: Sections.make(inputs).flatMap(\.charts).map { ($0.name, $0.marks) })
        #expect(Set(written.charts).isSuperset(of: ["tradeoff_reloads_staleness", "tradeoff_energy_staleness", "learning",
                                                    "difference_accuracy", "difference_stale_view_share"]))
        // A run writes reasons.csv: only the studies section waits for its file.
        #expect(written.absentSections == ["studies"])

        let load = try Browser.load(written.page)
        try checkFigures(load.dom, written, marks)
        try expectOffline(written.page, load)
        #expect(load.dom.contains("This section needs study.csv"))

        // The table's figures are comparison.csv's, pair by pair.
        let comparison = try csvRows(folder.appendingPathComponent("comparison.csv"))
        var checked = 0
        for row in comparison where ["accuracy", "stale_view_share", "reloads_per_widget_day", "energy"].contains(row["metric"]!) {
            let tr = try #require(load.dom.element(
                starting: "data-budget=\"\(row["budget"]!)\" data-ranking=\"\(row["ranking"]!)\"", ending: "</tr>"))
            let cell = try #require(tr.element(starting: "<td data-metric=\"\(row["metric"]!)\"", ending: "</td>"))
            let mean = try #require(cell.element(starting: "data-mean=\"", ending: "\" ")).dropFirst(11).dropLast(2)
            #expect(Double(mean) == Double(row["mean"]!), "\(row["budget"]!) × \(row["ranking"]!) \(row["metric"]!)")
            let scale = row["metric"] == "accuracy" || row["metric"] == "stale_view_share" ? 100.0 : 1.0
            let value = Double(row["mean"]!)! * scale
            let shown = String(format: abs(value) >= 1000 ? "%.0f" : abs(value) >= 100 ? "%.1f" : "%.2f", value)
            #expect(cell.contains(">\(shown) ± "), "\(cell) should show \(shown)")
            checked += 1
        }
        #expect(checked == 16)

        // The learning curve's points are daily.csv's pooled accuracy (Σ hits ÷ Σ views_wanted).
        let daily = try csvRows(folder.appendingPathComponent("daily.csv"))
        let curve = try csvRows(folder.appendingPathComponent("report/learning.csv"))
        for day in 0 ..< 2 {
            let rows = daily.filter { $0["budget"] == "unlimited" && $0["ranking"] == "time_of_day" && $0["day"] == String(day) }
            #expect(rows.count == 3)
            let pooled = rows.map { Double($0["hits"]!)! }.reduce(0, +) / rows.map { Double($0["views_wanted"]!)! }.reduce(0, +)
            let plotted = try #require(Double(curve[day]["\"time_of_day\""] ?? ""))
            #expect(abs(plotted - pooled * 100) < 1e-9)
        }
        // The trade-off's points are the means of comparison.csv: charged reloads per
        // widget-day where the reports have them, else all reloads.
        let tradeOff = try csvRows(folder.appendingPathComponent("report/tradeoff_reloads_staleness.csv"))
        let reloadMetric = comparison.contains { $0["metric"] == "charged_reloads_per_widget_day" }
            ? "charged_reloads_per_widget_day" : "reloads_per_widget_day"
        for point in tradeOff {
            let budget = point["\"budget\""]!.trimmingCharacters(in: ["\""]), ranking = point["\"ranking\""]!.trimmingCharacters(in: ["\""])
            let reloads = comparison.first { $0["budget"] == budget && $0["ranking"] == ranking && $0["metric"] == reloadMetric }!
            #expect(Double(point["\"x\""]!) == Double(reloads["mean"]!))
        }

        let png = Browser.screenshotFolder.appendingPathComponent("tiny.png")
        try Browser.screenshot(written.page, to: png, height: 4200)
        #expect(try Data(contentsOf: png).count > 50_000)
    }

    @Test("a run with reasons.csv and study.csv: the why and studies sections drawn")
    func studyPage() throws {
        let folder = try tinyRunFolder()
        // The fixtures replace the run's own reasons.csv (their counts are known).
        for name in ["reasons.csv", "study.csv"] {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            try FileManager.default.copyItem(at: fixture(name), to: folder.appendingPathComponent(name))
        }
        let written = try ReportPage.build(in: folder)
        #expect(written.absentSections.isEmpty)
        let inputs = try Inputs.read(folder)
        let marks = Dictionary(uniqueKeysWithValues: Sections.make(inputs).flatMap(\.charts).map { ($0.name, $0.marks) })
        #expect(written.charts.contains("reasons_refusal"))
        #expect(written.charts.contains("reasons_missed_view"))
        // The study.csv of `widgetsim run scenarios/tiny.yaml --replications 3 --sweep
        // budgets.daily_quota.per_day=12,24,48`: six headline metrics × one parameter.
        #expect(written.charts.filter { $0.hasPrefix("study_") }.count == 6)
        #expect(inputs.study?.parameters == ["budgets.daily_quota.per_day"])
        #expect(inputs.study?.rows.count == 3 * 4)

        let load = try Browser.load(written.page)
        try checkFigures(load.dom, written, marks)
        try expectOffline(written.page, load)
        #expect(!load.dom.contains("This section needs"))

        // Reason counts are per replication: pending_request under daily_quota × static is
        // Σ over 3 replications and 2 days of (3 + 2 + day + rep + 5), divided by 3.
        let bars = try csvRows(folder.appendingPathComponent("report/reasons_refusal.csv"))
        let row = try #require(bars.first { $0["\"pair\""] == "\"daily_quota / static\"" })
        var total = 0.0
        for rep in 0 ..< 3 { for day in 0 ..< 2 { total += Double(10 + day + rep) } }
        let expected = total / 3
        #expect(Double(row["\"pending_request\""]!) == expected)

        let png = Browser.screenshotFolder.appendingPathComponent("study.png")
        try Browser.screenshot(written.page, to: png, height: 6400)
        #expect(try Data(contentsOf: png).count > 50_000)
    }

    @Test("the network probe sees a page that fetches from elsewhere")
    func probeCanFail() throws {
        let folder = temporaryFolder()
        let page = folder.appendingPathComponent("bad.html")
        try #"<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"></body></html>"#
            .write(to: page, atomically: true, encoding: .utf8)
        let load = try Browser.load(page)
        #expect(load.pageRequests == ["http://example.invalid/x.png"])
    }
}

/// The page laid out at a desktop's 1280 pixels and a phone's 390: what can be measured.
@Suite("report.html laid out at 1280 and 390 px", .serialized)
struct LayoutTests {
    func check(_ page: URL, width: Int) throws {
        let layout = try Browser.layout(page, width: width)
        #expect(layout.viewport == Double(width))
        #expect(layout.scrollWidth <= layout.viewport, "at \(width) px the page is \(layout.scrollWidth) px wide")
        #expect(layout.overlaps.isEmpty, "at \(width) px, text over text: \(layout.overlaps)")
        #expect(layout.cut.isEmpty, "at \(width) px, text cut at a chart's edge: \(layout.cut)")
        #expect(layout.empty.isEmpty, "empty charts: \(layout.empty)")
        #expect(!layout.widths.isEmpty)
        // On a desktop every table fits its box; on a phone a wide one scrolls inside it.
        if width >= 1000 {
            #expect(layout.overflowing.isEmpty, "at \(width) px these tables scroll: \(layout.overflowing)")
            #expect(layout.scrolledCharts.isEmpty, "at \(width) px these charts scroll: \(layout.scrolledCharts)")
        }
        // A chart is never squeezed below a readable width; a narrow screen scrolls it.
        for (id, w) in layout.widths { #expect(w >= min(500, Double(width) - 40), "\(id) is \(w) px wide at \(width) px") }
    }

    @Test("the tiny run's page: no text over text, nothing cut, nothing wider than the screen")
    func tiny() throws {
        let folder = try tinyRunFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let written = try ReportPage.build(in: folder)
        try check(written.page, width: 1280)
        try check(written.page, width: 390)
    }

    @Test("the default scenario's 35 pairs and the two-parameter study: no text over text, nothing cut, nothing too wide")
    func manyPairsAndAStudy() throws {
        var s = try ScenarioLoader.load(path: repositoryRoot.appendingPathComponent("scenarios/default.yaml").path)
        s.people = 4
        s.days = 3
        s.warmupDays = 1
        s.replications = 2
        let folder = temporaryFolder().appendingPathComponent("default")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        var options = RunOptions(outputFolder: folder, threads: 1)
        options.widgetDays = false
        guard case .finished = try RunJob.execute(s, options) else { throw TestFailure("the run did not finish") }
        let written = try ReportPage.build(in: folder)
        try check(written.page, width: 1280)
        try check(written.page, width: 390)
        let png = Browser.screenshotFolder.appendingPathComponent("default.png")
        try Browser.screenshot(written.page, to: png, height: 9000)

        let study = try StudyPageTests().studyRun()
        defer { try? FileManager.default.removeItem(at: study.deletingLastPathComponent()) }
        let studyPage = try ReportPage.build(in: study)
        try check(studyPage.page, width: 1280)
        try check(studyPage.page, width: 390)
    }

    @Test("a page with the targets table: every column in view at 1280 px, nothing too wide at 390")
    func targetsTable() throws {
        let folder = try TargetsTests().targetsRun()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let written = try ReportPage.build(in: folder)
        #expect(try String(contentsOf: written.page, encoding: .utf8).contains("id=\"targets-table\""))
        try check(written.page, width: 1280)
        try check(written.page, width: 390)
    }

    @Test("a batch's page, with a study among its scenarios: no text over text, nothing cut, no empty chart, nothing too wide")
    func batchPage() throws {
        let work = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("batch")
        let scenarios = ["tiny.yaml", "validation/evening-freeze.yaml", "study-budget.yaml"]
            .map { repositoryRoot.appendingPathComponent("scenarios/" + $0).path }
        let r = try runProgram(try widgetsimBinary(), ["batch"] + scenarios
            + ["--people", "2", "--days", "2", "--warmup-days", "0", "--replications", "2", "--out", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let page = out.appendingPathComponent("report.html")
        #expect(try String(contentsOf: page, encoding: .utf8).occurrences(of: "<figure class=\"chart\"") == 3)
        try check(page, width: 1280)
        try check(page, width: 390)
        // On a phone the batch's tables stack their cells: neither scrolls.
        let phone = try Browser.layout(page, width: 390)
        #expect(phone.overflowing.isEmpty, "at 390 px these tables scroll: \(phone.overflowing)")
        try Browser.screenshot(page, to: Browser.screenshotFolder.appendingPathComponent("batch.png"), height: 5000)
    }

    @Test("the measure sees text over text and a page wider than the screen")
    func measureCanFail() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("bad.html")
        try """
            <!DOCTYPE html><html><body><div style="width:900px">wide</div>
            <figure class="chart" id="chart-x"><svg width="300" height="100"><path d="M0 0 L10 10"/>
            <text x="10" y="50">-800000</text><text x="30" y="50">600000</text><text x="280" y="90">cut off here</text></svg></figure>
            </body></html>
            """.write(to: page, atomically: true, encoding: .utf8)
        let layout = try Browser.layout(page, width: 390)
        #expect(layout.scrollWidth > 390)
        #expect(layout.overlaps == ["chart-x: «-800000» / «600000»"])
        #expect(layout.cut == ["chart-x: «cut off here»"])
    }
}
