import Foundation
import Mustache

/// `<batch>/report.html`: the page of a `widgetsim batch` folder, which answers the
/// batch's question at a glance — per scenario, the best pair for each goal against that
/// scenario's baseline (`Recommendation`), a row per scenario linking to its own page,
/// and the goals' metrics drawn side by side across the scenarios.
///
/// Reads the batch's `comparison.csv` (for the scenarios' order) and, in each scenario's
/// folder, `summary.csv`, `comparison.csv` (a study's at its baseline point) and, when
/// present, `run.json` and `study.csv`; every input is read and checked before anything is
/// written. The figures' data and scripts go to the batch folder's `report/`, written as
/// the run page's are (`ReportPage.write`).
public enum BatchPage {
    /// A batch folder: it holds the batch's `comparison.csv` and no `summary.csv` of its own
    /// (a run's folder always holds one).
    public static func isBatchFolder(_ folder: URL) -> Bool {
        let fm = FileManager.default
        return fm.fileExists(atPath: folder.appendingPathComponent("comparison.csv").path)
            && !fm.fileExists(atPath: folder.appendingPathComponent("summary.csv").path)
    }

    /// Builds `report.html` and `report/` in the batch folder `folder`.
    public static func build(in folder: URL, gnuplot: String? = nil) throws(ReportPage.BuildError) -> ReportPage.Written {
        let runs: [BatchRun]
        do {
            runs = try scenarioFolders(folder).map { name throws(ReportInputError) in
                try BatchRun.read(folder.appendingPathComponent(name), name: name)
            }
        } catch {
            throw .input(error)
        }
        guard let drawer = Gnuplot.start(gnuplot) else { throw .gnuplotMissing }
        let charts = goalCharts(runs)
        let page = try ReportPage.write(charts, in: folder, gnuplot: drawer) { svgs in
            BatchPageValues(folder.lastPathComponent, runs, charts, svgs).render()
        }
        return ReportPage.Written(page: page, charts: charts.map(\.name), absentSections: [])
    }

    /// The scenarios' folders in the batch: those named in the batch's `comparison.csv`, in
    /// its order, then the other folders holding a run's `summary.csv` (a study's rows are
    /// not in the batch's file), by name.
    static func scenarioFolders(_ folder: URL) throws(ReportInputError) -> [String] {
        let table = try CSVTable.read("comparison.csv", in: folder, hint: "written by `widgetsim batch`")
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: folder.path)) ?? []).filter { name in
            !name.hasPrefix(".") && fm.fileExists(atPath: folder.appendingPathComponent(name).appendingPathComponent("summary.csv").path)
        }
        if names.contains("report") {
            throw .damaged(file: "report/", line: nil,
                           problem: "a scenario's report is in report/, the folder this page keeps its figures in; rename the scenario and run the batch again")
        }
        guard !names.isEmpty else {
            throw .damaged(file: "comparison.csv", line: nil,
                           problem: "no scenario's folder (one holding summary.csv) is beside it, so there is no batch to draw")
        }
        let listed = table.column(["scenario"]).map { c in Figures.unique(table.rows.map { $0[c] }) } ?? []
        return listed.filter(names.contains) + names.filter { !listed.contains($0) }.sorted()
    }

    /// The goals' metrics as charts, one per goal the batch has.
    static func goalCharts(_ runs: [BatchRun]) -> [Chart] {
        Recommendation.Goal.all.compactMap { goal in
            Figures.scenarios(runs, goal: goal, series: seriesPairs(runs, goal: goal))
        }
    }

    /// The pairs a goal's chart draws: every pair when the batch runs at most eight,
    /// else the scenarios' baselines, then the pairs their recommendations name.
    static func seriesPairs(_ runs: [BatchRun], goal: Recommendation.Goal) -> [PairKey] {
        let all = Figures.unique(runs.flatMap(\.comparison.pairs))
        if all.count <= 8 { return all }
        return Figures.unique(runs.compactMap(\.comparison.baseline)
            + runs.flatMap { run in run.recommendations.first { $0.goal == goal }?.named.map(\.pair) ?? [] })
    }
}

/// One scenario of a batch, as its folder holds it.
struct BatchRun {
    /// The folder's name (the scenario's name).
    var name: String
    var identity: RunIdentity
    var comparison: ComparisonTable
    /// A study's points, and the point shown (its baseline point).
    var studyPoints: Int?
    var point: String?
    /// The page to link to, relative to the batch folder: the scenario's report.html,
    /// or its comparison.csv when it has no page.
    var link: String
    var recommendations: [Recommendation]

    static func read(_ folder: URL, name: String) throws(ReportInputError) -> BatchRun {
        do {
            var identity = try SummaryFacts.read(folder).identity
            try RunJSON.read(folder, into: &identity)
            let study = try StudyTable.read(folder)
            let point = study?.baselinePoint
            let comparison = try ComparisonTable.read(folder, point: point)
            let hasPage = FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.html").path)
            return BatchRun(name: name, identity: identity, comparison: comparison,
                            studyPoints: study.map { Set($0.rows.map(\.point)).count }, point: point,
                            link: name + (hasPage ? "/report.html" : "/comparison.csv"),
                            recommendations: Recommendation.make(comparison))
        } catch {
            // The file named from the batch folder: `<scenario>/comparison.csv:3: …`.
            switch error {
            case .missing(let file, let hint): throw .missing(file: name + "/" + file, hint: hint)
            case .damaged(let file, let line, let problem): throw .damaged(file: name + "/" + file, line: line, problem: problem)
            }
        }
    }
}

extension Figures {
    /// A goal's metric across a batch's scenarios, side by side: for each scenario, a
    /// point per pair of `series` that it ran, with its 95% interval over replications,
    /// the scenario's baseline ringed. Nil when no scenario has the metric.
    static func scenarios(_ runs: [BatchRun], goal: Recommendation.Goal, series: [PairKey]) -> Chart? {
        let m = goal.metric
        let shown = Array(series.prefix(palette.count))
        var rows: [[ChartValue]] = []
        var drawn: [Int] = []
        var column: String?
        for (s, run) in runs.enumerated() {
            guard let name = run.comparison.name(of: m), let byPair = run.comparison.entries[name] else { continue }
            column = column ?? name
            // The scenario's points side by side around its tick, 0.12 apart (0.6 at most in all).
            let present = shown.indices.filter { byPair[shown[$0]]?.value != nil }
            let step = present.count < 2 ? 0 : min(0.12, 0.6 / Double(present.count - 1))
            for (j, k) in present.enumerated() {
                let pair = shown[k], e = byPair[pair]!.value
                let x = Double(s) + (Double(j) - Double(present.count - 1) / 2) * step
                rows.append([.label(run.name), .label(Recommendation.name(pair)), .number(Double(k)), .number(x),
                             .number(e.mean * m.scale), .number((e.halfWidth ?? 0) * m.scale),
                             .number(pair == run.comparison.baseline ? 1 : 0)])
                if !drawn.contains(k) { drawn.append(k) }
            }
        }
        guard let column, !rows.isEmpty else { return nil }
        let name = "scenarios_\(goal.name)", file = "\(name).csv"
        // gnuplot refuses a series without a point: only the pairs drawn somewhere are plotted.
        var plots = drawn.sorted().map { k in
            "\(gp(file)) skip 1 using 4:($3==\(k) ? $5 : NaN):($5-$6):($5+$6) with yerrorbars pt \(pointType(k)) ps 0.9 lw 1.5 lc \(colour(k)) title \(gp(Recommendation.name(shown[k])))"
        }
        if rows.contains(where: { if case .number(1?) = $0[6] { true } else { false } }) {
            plots.append("\(gp(file)) skip 1 using 4:($7==1 ? $5 : NaN) with points pt 6 ps 2.2 lw 2 lc rgb 'black' title 'baseline'")
        }
        // Scenario names as the x axis's ticks, slanted when they would not fit side by side.
        let names = runs.map(\.name)
        let tics = names.enumerated().map { "\(gp($1)) \($0)" }.joined(separator: ", ")
        let crowded = Double(names.map(\.count).reduce(0, +) + 2 * names.count) * LabelPlacement.charWidth > 520
        let body = """
        set xrange [-0.5:\(Double(runs.count) - 0.5)]
        set xtics (\(tics))\(crowded ? " rotate by -30 left" : "")
        set grid noxtics
        set xlabel 'scenario'
        set ylabel \(gp(label(m, column, "")))
        set key outside right top vertical Left reverse samplen 1.5 font ',10'
        set autoscale yfix
        set offsets 0, 0, graph 0.06, graph 0.06
        plot \(plots.joined(separator: ", \\\n     "))
        """
        let better = m.lowerIsBetter ? "lower is better" : "higher is better"
        let which = series.count == Figures.unique(runs.flatMap(\.comparison.pairs)).count
            ? "every pair" : "each scenario's baseline and the pairs its \(goal.name) recommendation names"
        return Chart(name: name,
                     caption: "\(goal.name.prefix(1).uppercased() + goal.name.dropFirst()), `\(column)`, in each scenario: \(which), each with its 95% interval over "
                         + "replications; the ringed point is the scenario's baseline; \(better)."
                         + (shown.count < series.count ? " The first \(shown.count) of \(series.count) pairs are drawn." : ""),
                     data: [(file, ChartData.csv(["scenario", "pair", "series", "x", "value", "ci95_half_width", "baseline"], rows))],
                     body: body, width: 760, height: crowded ? 460 : 420, marks: rows.count)
    }
}

/// The values the batch page's template renders.
struct BatchPageValues {
    struct Goal: Sendable { var name: String; var metric: String }
    struct Cell: Sendable { var goal: String; var verdict: String; var low: String; var high: String; var html: String }
    struct Sentence: Sendable { var html: String }
    struct Scenario: Sendable {
        var name: String; var link: String; var people: String; var days: String; var warmupDays: String
        var replications: String; var pairs: Int; var baseline: String; var note: String
        var cells: [Cell]; var sentences: [Sentence]
    }

    var title: String
    var description: String
    var intro: String
    var goals: [Goal]
    var scenarios: [Scenario]
    var charts: [Page.Figure]

    init(_ title: String, _ runs: [BatchRun], _ charts: [Chart], _ svgs: [String: String]) {
        self.title = title
        description = "\(runs.count) scenario\(runs.count == 1 ? "" : "s") run by `widgetsim batch`, each with its own page: "
            + runs.map(\.name).joined(separator: ", ") + "."
        description = markup(description)
        intro = markup("For each scenario, the best budget × ranking pair for each goal — accuracy (`accuracy`), freshness "
            + "(`stale_member_share`) and cost (`charged_reloads_per_widget_day`) — with its paired difference to that scenario's "
            + "baseline and the 95% interval (from the scenario's `comparison.csv`; differences in percentage points for shares). "
            + "A pair is better only when its interval misses zero; pairs whose intervals overlap the leader's are tied, and "
            + "named together: a tie is never called best.")
        let goals = Recommendation.Goal.all
        self.goals = goals.map { g in Goal(name: g.name, metric: g.metric.names[0]) }
        scenarios = runs.map { run in
            let id = run.identity
            let cells = goals.map { g -> Cell in
                guard let r = run.recommendations.first(where: { $0.goal == g }) else {
                    return Cell(goal: g.name, verdict: "absent", low: "", high: "", html: "–")
                }
                let s = r.named.first
                // At most three pairs named in the table; the sentences below name every one.
                let names = r.named.map { "`\(Recommendation.name($0.pair))`" }
                let pairs = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
                return Cell(goal: g.name, verdict: r.verdictWord, low: s.map { String($0.low) } ?? "", high: s.map { String($0.high) } ?? "",
                            html: markup(r.verdictWord + (pairs.isEmpty ? "" : ": " + pairs))
                                + (r.differenceText.isEmpty ? "" : "<br>" + markup(r.differenceText)))
            }
            let note = run.studyPoints.map { n in "a study of \(n) points; its baseline point" + (run.point.map { " (\($0))" } ?? "") + " is shown" } ?? ""
            return Scenario(name: run.name, link: run.link, people: id.people, days: id.days,
                            warmupDays: id.warmupDays.isEmpty ? "0" : id.warmupDays, replications: id.replications,
                            pairs: run.comparison.pairs.count, baseline: run.comparison.baseline.map(Recommendation.name) ?? "not run",
                            note: note, cells: cells, sentences: run.recommendations.map { Sentence(html: markup($0.sentence)) })
        }
        self.charts = charts.map { Page.Figure($0, svgs) }
    }

    func render() -> String {
        // The templates are constants of this program, checked by the tests: they parse.
        let library = MustacheLibrary(templates: [
            "page": try! MustacheTemplate(string: BatchPageValues.template),
            "chart": try! MustacheTemplate(string: PageTemplate.chart),
            "style": try! MustacheTemplate(string: PageTemplate.style),
        ])
        return library.render(self, withTemplate: "page")!
    }

    static let template = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>WidgetSim batch: {{title}}</title>
    {{> style}}
    </head>
    <body>
    <h1>WidgetSim batch: {{title}}</h1>
    <p class="lead">{{{description}}}</p>
    <nav><a href="#recommend">Recommendations</a><a href="#scenarios">Scenarios</a><a href="#side-by-side">Side by side</a><a href="#answers">In words</a></nav>

    <h2 id="recommend">Recommendations</h2>
    <p>{{{intro}}}</p>
    <div class="scroll"><table class="headline stack" id="batch-recommend-table">
    <thead><tr><th class="pair">scenario</th><th class="pair">baseline</th>{{#goals}}<th class="pair">{{name}} (<code>{{metric}}</code>)</th>{{/goals}}</tr></thead>
    <tbody>
    {{#scenarios}}<tr data-scenario="{{name}}"><td class="pair"><a href="{{link}}">{{name}}</a></td><td class="pair" data-label="baseline"><code>{{baseline}}</code></td>{{#cells}}<td class="pair" data-label="{{goal}}" data-goal="{{goal}}" data-verdict="{{verdict}}" data-low="{{low}}" data-high="{{high}}">{{{html}}}</td>{{/cells}}</tr>
    {{/scenarios}}
    </tbody>
    </table></div>

    <h2 id="scenarios">Scenarios</h2>
    <p>One row per scenario (on a phone, one block); its name opens the scenario's own page (its trade-offs, learning curves, differences and reasons).</p>
    <div class="scroll"><table class="headline stack" id="scenarios-table">
    <thead><tr><th class="pair">scenario</th><th>people</th><th>days</th><th>warm-up days</th><th>replications</th><th>pairs</th><th class="pair">baseline</th><th class="pair">note</th></tr></thead>
    <tbody>
    {{#scenarios}}<tr data-scenario="{{name}}"><td class="pair"><a href="{{link}}">{{name}}</a></td><td data-label="people">{{people}}</td><td data-label="days">{{days}}</td><td data-label="warm-up days">{{warmupDays}}</td><td data-label="replications">{{replications}}</td><td data-label="pairs">{{pairs}}</td><td class="pair" data-label="baseline"><code>{{baseline}}</code></td><td class="pair">{{note}}</td></tr>
    {{/scenarios}}
    </tbody>
    </table></div>

    <h2 id="side-by-side">The scenarios side by side</h2>
    <p>Each goal's metric in every scenario (from the scenarios' <code>comparison.csv</code>): where a pair stays ahead across scenarios, and where the scenarios disagree.</p>
    <div class="single">
    {{#charts}}
    {{> chart}}
    {{/charts}}
    </div>

    <h2 id="answers">The recommendations in words</h2>
    {{#scenarios}}
    <h3 id="scenario-{{name}}">{{name}}</h3>
    <ul class="answers" data-scenario="{{name}}">
    {{#sentences}}<li>{{{html}}}</li>
    {{/sentences}}
    </ul>
    {{/scenarios}}
    <p class="files">Each figure's data and gnuplot script are in report/ beside this page; <code>cd report &amp;&amp; gnuplot NAME.gp</code> redraws one. <code>widgetsim report FOLDER</code> redraws this page from the scenarios' CSVs.</p>
    </body>
    </html>

    """#
}
