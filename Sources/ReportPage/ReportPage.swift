import Foundation
import Mustache
import WidgetSimExecution
import WidgetSimReports

/// `report.html`: a run's CSVs drawn for people, in one self-contained page, with each
/// figure's data and gnuplot script kept in `report/` beside it.
///
/// Reads `summary.csv`, `daily.csv` and `comparison.csv` (required), `run.json`,
/// `reasons.csv` and `study.csv` (each when present); every input is read and checked
/// before anything is written. The figures are drawn by gnuplot's SVG terminal into a
/// temporary folder; the page and `report/` replace the old ones only when all of it is done.
public enum ReportPage {
    /// Why `report.html` could not be built; nothing was written.
    public enum BuildError: Error, CustomStringConvertible {
        /// A report file is missing or damaged.
        case input(ReportInputError)
        /// gnuplot is not installed.
        case gnuplotMissing
        /// gnuplot failed on a chart; its message.
        case gnuplotFailed(String)

        /// The message, for the person who asked for the page.
        public var description: String {
            switch self {
            case .input(let e): return e.description
            case .gnuplotMissing:
                return "gnuplot is not installed (Debian: apt-get install gnuplot-nox; scripts/demo and scripts/test install it)"
            case .gnuplotFailed(let text): return "gnuplot failed: \(text)"
            }
        }

        /// Bad input exits 2; a missing or failing tool, 1.
        public var exitCode: Int32 {
            if case .input = self { return 2 }
            return 1
        }
    }

    /// What was written, for callers that report it.
    public struct Written: Sendable {
        /// The page written: `report.html` in the folder.
        public var page: URL
        /// The charts drawn, by name (their files' base name in `report/`), in page order.
        public var charts: [String]
        /// The anchors of the sections left out because their input file is absent
        /// (`reasons.csv`, `study.csv`, `run.json`).
        public var absentSections: [String]
    }

    /// Builds `report.html` and `report/` in `folder` from its CSVs, drawn by `started`
    /// (a gnuplot started earlier, `Gnuplot.start`) or else by `gnuplot` (an executable's
    /// path; by default gnuplot on the `PATH`).
    public static func build(in folder: URL, gnuplot: String? = nil, started: Gnuplot? = nil) throws(BuildError) -> Written {
        defer { started?.cancel() }
        let inputs: Inputs
        do {
            inputs = try Inputs.read(folder)
        } catch {
            throw .input(error)
        }
        guard let drawer = started ?? Gnuplot.start(gnuplot) else { throw .gnuplotMissing }
        let sections = Sections.make(inputs)
        let charts = sections.flatMap(\.charts)

        let page = try write(charts, in: folder, gnuplot: drawer) { svgs in Page(inputs, sections, svgs).render() }
        return Written(page: page, charts: charts.map(\.name),
                       absentSections: sections.compactMap { $0.absent == nil ? nil : $0.anchor })
    }

    /// Parses the page's templates on a thread of their own, so that a page built later
    /// (after a run) finds them parsed.
    public static func prepare() {
        Thread.detachNewThread { _ = Page.templates }
    }

    /// Draws `charts` with `gnuplot` in a temporary folder inside `folder`, renders the page
    /// from their SVGs (by chart name), then swaps in `report/` and `report.html`, a rename
    /// each, so that a reader never sees a page whose figures' files are missing. While
    /// gnuplot draws, the page is rendered, a marker where each SVG goes (`SVGSlots`), and
    /// the charts' data and scripts are flushed to the disk. Returns the page's URL.
    static func write(_ charts: [Chart], in folder: URL, gnuplot: Gnuplot,
                      page render: ([String: String]) -> String) throws(BuildError) -> URL {
        defer { gnuplot.cancel() }
        let fm = FileManager.default
        let temporary = folder.appendingPathComponent(".report-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0 ... .max))")
        let chartsFolder = temporary.appendingPathComponent("report")
        defer { try? fm.removeItem(at: temporary) }
        // The data and scripts, open until their flush has ended.
        let files = OpenFiles()
        defer { files.close() }
        do {
            try fm.createDirectory(at: chartsFolder, withIntermediateDirectories: true)
            for chart in charts {
                for (file, text) in chart.data {
                    try files.create(chartsFolder.appendingPathComponent(file), text)
                }
                try files.create(chartsFolder.appendingPathComponent("\(chart.name).gp"), chart.script)
            }
        } catch let error as ReportError {
            throw .gnuplotFailed("cannot write into \(temporary.path): \(error)")
        } catch {
            throw .gnuplotFailed("cannot write into \(temporary.path): \(error.localizedDescription)")
        }
        gnuplot.draw(charts.map { "\($0.name).gp" }, in: chartsFolder)
        files.flushInBackground()
        let slots = SVGSlots(charts.map(\.name))
        let draft = render(slots.markers)
        try gnuplot.finish()

        var svgs: [String: String] = [:]
        for chart in charts {
            let url = chartsFolder.appendingPathComponent("\(chart.name).svg")
            guard let bytes = fm.contents(atPath: url.path), let svg = inlineSVG(Array(bytes)) else {
                throw .gnuplotFailed("\(chart.name).gp drew no SVG")
            }
            svgs[chart.name] = svg
        }
        let html = slots.fill(draft, with: svgs) ?? render(svgs)
        let page = folder.appendingPathComponent("report.html")
        let finalCharts = folder.appendingPathComponent("report")
        do {
            let draftPage = temporary.appendingPathComponent("report.html")
            let rest = OpenFiles()
            defer { rest.close() }
            try rest.create(draftPage, html)
            // Every file of the page on the disk before the first move, gnuplot's SVGs too.
            let flushed = Set(files.paths)
            for name in try fm.contentsOfDirectory(atPath: chartsFolder.path).sorted()
            where !flushed.contains(chartsFolder.appendingPathComponent(name).path) {
                try rest.open(chartsFolder.appendingPathComponent(name))
            }
            try rest.flush()
            try files.waitForFlush()
            OutputFolder.synchronize(chartsFolder)
            let old = temporary.appendingPathComponent("old-report")
            if fm.fileExists(atPath: finalCharts.path) { try fm.moveItem(at: finalCharts, to: old) }
            try fm.moveItem(at: chartsFolder, to: finalCharts)
            if rename(draftPage.path, page.path) != 0 {
                throw CocoaError(.fileWriteUnknown)
            }
            OutputFolder.synchronize(folder)
        } catch let error as ReportError {
            throw .gnuplotFailed("cannot write report.html into \(folder.path): \(error)")
        } catch {
            throw .gnuplotFailed("cannot write report.html into \(folder.path): \(error.localizedDescription)")
        }
        return page
    }

    /// An SVG file's bytes as an element inside the page: from its `<svg` on, without the
    /// XML declaration; nil when they are not UTF-8 or hold no `<svg`.
    static func inlineSVG(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        let tag = Array("<svg".utf8)
        var i = bytes.startIndex
        while let start = bytes[i...].firstIndex(of: tag[0]) {
            if bytes[start...].starts(with: tag) { return String(decoding: bytes[start...], as: UTF8.self) }
            i = start + 1
        }
        return nil
    }

    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Everything the page reads from a run's folder.
struct Inputs {
    var identity: RunIdentity
    var comparison: ComparisonTable
    var daily: DailyTable
    var reasons: ReasonsTable?
    var study: StudyTable?
    /// An exploring study's answer (`ExploreAnswer`), which opens the study section.
    var answer: String?
    /// Per pair and replication, the figures of summary.csv the targets section reads.
    var perReplication: [PairKey: [String: [String: Double]]] = [:]

    static func read(_ folder: URL) throws(ReportInputError) -> Inputs {
        let summary = try SummaryFacts.read(folder)
        var identity = summary.identity
        try RunJSON.read(folder, into: &identity)
        // A study's other sections show one point: its baseline point.
        let study = try StudyTable.read(folder)
        let point = study?.baselinePoint
        let perReplication = study == nil ? summary.perReplication : try SummaryFacts.read(folder, point: point).perReplication
        return Inputs(identity: identity, comparison: try ComparisonTable.read(folder, point: point),
                      daily: try DailyTable.read(folder, point: point),
                      reasons: try ReasonsTable.read(folder, point: point), study: study,
                      answer: ExploreAnswer.sentence(folder: folder), perReplication: perReplication)
    }
}

/// A titled part of the page holding figures, or saying which file it would need.
struct Section {
    var anchor: String
    var title: String
    var intro: String
    var charts: [Chart]
    var absent: String?
    var layout = "single"
    /// Shown first, before the headline table (the recommendations).
    var lead = false
    /// HTML shown after the figures (the study's steps).
    var html = ""
}

enum Sections {
    static func make(_ inputs: Inputs) -> [Section] {
        let c = inputs.comparison
        var sections: [Section] = []

        sections.append(Section(anchor: "recommend", title: "Recommendations",
                                intro: "", charts: Figures.budgetTradeOff(c).map { [$0] } ?? [], lead: true))

        let reloads: HeadlineMetric = c.name(of: .chargedPerWidgetDay) != nil ? .chargedPerWidgetDay : .reloadsPerWidgetDay
        let tradeOffs = [
            Figures.tradeOff(c, name: "tradeoff_reloads_staleness", x: reloads, y: .staleShare,
                             caption: "Reloads against stale views: one point per budget × ranking pair (colour: ranking; shape: budget), "
                                 + "95% intervals over replications as bars. The dashed line joins the pairs on the Pareto front: "
                                 + "no other pair has both fewer reloads and fewer stale views. Lower-left is better."),
            Figures.tradeOff(c, name: "tradeoff_energy_staleness", x: .energy, y: .staleness,
                             caption: "Energy spent on reloads against mean staleness at stale views, as above. Lower-left is better."),
        ].compactMap { $0 }
        sections.append(Section(anchor: "tradeoffs", title: "Trade-offs",
                                intro: "What each pair pays in reloads and energy for fresh content.",
                                charts: tradeOffs))

        let ceiling = BudgetCeiling.make(c, ceilings: inputs.identity.ceilings)
        sections.append(Section(anchor: "ceiling", title: "Budgets against the ceiling",
                                intro: "", charts: [],
                                absent: ceiling == nil ? "This section needs budgets with `charged_reloads_per_widget_day` and "
                                    + "`stale_member_share` in comparison.csv." : nil,
                                html: ceiling?.html ?? ""))

        let budgets = Figures.unique(inputs.daily.pairs.map(\.budget))
        let budget = c.baseline.map(\.budget).flatMap { budgets.contains($0) ? $0 : nil } ?? budgets.first ?? ""
        let rankings = inputs.daily.pairs.map(\.ranking)
        let learning = Figures.learning(inputs.daily, budget: budget,
                                        staticRanking: rankings.contains("static") ? "static" : nil)
        sections.append(Section(anchor: "learning", title: "Learning over time",
                                intro: "How fast each ranking learns what its people want (from daily.csv). A ranking that looks "
                                    + "weak over a short run may overtake a fixed stack once it has seen a few weeks.",
                                charts: learning.map { [$0] } ?? []))

        let forests = HeadlineMetric.headline.compactMap { m in Figures.forest(c, m, unit: "") }
        sections.append(Section(anchor: "differences", title: "Paired differences to the baseline",
                                intro: "Replication r of every pair simulates the same people, so each pair is compared with the "
                                    + "baseline replication by replication (from comparison.csv): an interval that misses zero is a real difference.",
                                charts: forests,
                                absent: c.baseline == nil ? "The baseline pair was not run, so there are no paired differences." : nil,
                                layout: "grid"))

        if let reasons = inputs.reasons {
            let kinds = reasons.reasonsByKind.keys.sorted()
            let pair = c.baseline ?? c.pairs.first
            sections.append(Section(anchor: "why", title: "Why: refusals and missed views",
                                    intro: "The reason codes recorded where each decision was made (from reasons.csv); codes never counted are left out.",
                                    charts: kinds.compactMap { Figures.reasons(reasons, kind: $0, pairs: c.pairs) },
                                    html: pair.flatMap { WidgetReasons.make(reasons, pair: $0)?.html } ?? ""))
        } else {
            sections.append(Section(anchor: "why", title: "Why: refusals and missed views",
                                    intro: "Refusal and missed-view reasons per pair, as stacked bars.", charts: [],
                                    absent: "This section needs \(ReasonsTable.file), which this run's folder does not hold."))
        }

        if let study = inputs.study {
            var charts: [Chart] = []
            for p in study.parameters {
                for m in study.metrics {
                    let chart = inputs.answer != nil
                        ? Figures.exploreScatter(study, parameter: p, metric: m, index: charts.count + 1)
                        : Figures.study(study, parameter: p, metric: m, index: charts.count + 1)
                    if let chart { charts.append(chart) }
                }
            }
            sections.append(Section(anchor: "studies", title: "Studies",
                                    intro: (inputs.answer.map { $0 + " " } ?? "")
                                        + "Each headline metric against each study parameter (from study.csv). "
                                        + "The other sections show the study's baseline point"
                                        + (study.baselinePoint.map { " (point \($0))" } ?? "") + ".",
                                    charts: charts, layout: "grid",
                                    html: inputs.answer == nil ? StudySteps.html(study, metric: study.metrics.contains("stale_view_share")
                                        ? "stale_view_share" : study.metrics.first ?? "") : ""))
        } else {
            sections.append(Section(anchor: "studies", title: "Studies",
                                    intro: "Each headline metric against each study parameter.", charts: [],
                                    absent: "This section needs \(StudyTable.file), written by runs of a scenario with a `study:` section; this run's folder does not hold it."))
        }
        return sections
    }
}

/// The values the template renders (plain structs: Mustache reads them by reflection).
struct Page {
    struct Row: Sendable { var name: String; var value: String }
    struct Link: Sendable { var anchor: String; var title: String }
    struct Column: Sendable { var column: String; var label: String }
    struct Cell: Sendable { var metric: String; var mean: String; var halfWidth: String; var text: String }
    struct HeadlineRow: Sendable { var budget: String; var ranking: String; var baseline: Bool; var cells: [Cell] }
    struct Figure: Sendable {
        var name: String; var caption: String; var svg: String; var files: String; var marks: Int

        /// A chart as the `chart` partial shows it, with its SVG from `svgs` (by chart name).
        init(_ chart: Chart, _ svgs: [String: String]) {
            self.init(name: chart.name, caption: markup(chart.caption), svg: svgs[chart.name] ?? "",
                      files: chart.data.map { "report/" + $0.file }.joined(separator: " · "), marks: chart.marks)
        }

        init(name: String, caption: String, svg: String, files: String, marks: Int) {
            self.name = name; self.caption = caption; self.svg = svg; self.files = files; self.marks = marks
        }
    }
    struct FigureSection: Sendable {
        var anchor: String; var title: String; var intro: String; var absent: String?; var layout: String; var charts: [Figure]
        var html: String
    }
    struct Meaning: Sendable { var name: String; var meaning: String }
    struct Answer: Sendable {
        var goal: String; var metric: String; var verdict: String; var pairs: String; var difference: String
        var differenceMean: String; var low: String; var high: String; var sentence: String
    }
    struct Recommend: Sendable { var intro: String; var answers: [Answer]; var charts: [Figure] }

    var identity: RunIdentity
    var description: String
    var identityRows: [Row]
    var sections: [Link]
    var baseline: String?
    var headlineColumns: [Column]
    var headlineRows: [HeadlineRow]
    var figureSections: [FigureSection]
    var legend: [Meaning]
    /// The targets section, when the run holds the pairs it needs.
    var targets: Targets?
    /// The recommendations, the page's first section.
    var recommend: Recommend?

    init(_ inputs: Inputs, _ sections: [Section], _ svgs: [String: String]) {
        let id = inputs.identity
        let c = inputs.comparison
        identity = id
        description = "Scenario \(id.scenario): \(id.people) people, \(id.days) days (\(id.warmupDays.isEmpty ? "0" : id.warmupDays) warm-up), "
            + "\(id.replications) replication\(id.replications == "1" ? "" : "s"), \(c.pairs.count) budget × ranking pairs."
        identityRows = [
            Row(name: "scenario", value: id.scenario), Row(name: "seed", value: id.seed),
            Row(name: "people", value: id.people), Row(name: "days", value: id.days),
            Row(name: "warm-up days", value: id.warmupDays.isEmpty ? "0" : id.warmupDays),
            Row(name: "replications", value: id.replications),
            Row(name: "WidgetSim version", value: id.version.isEmpty ? "(no run.json)" : id.version),
            Row(name: "git commit", value: id.commit.isEmpty ? "unknown" : id.commit),
            Row(name: "command line", value: id.commandLine.isEmpty ? "unknown" : id.commandLine),
            Row(name: "finished", value: id.finished.isEmpty ? "unknown" : id.finished),
        ]
        targets = Targets.make(inputs)
        self.sections = [Link(anchor: "recommend", title: "Recommendations"), Link(anchor: "headline", title: "Headline figures")]
            + (targets == nil ? [] : [Link(anchor: "targets", title: "Targets")])
            + sections.filter { !$0.lead }.map { Link(anchor: $0.anchor, title: $0.title) } + [Link(anchor: "legend", title: "Legend")]
        baseline = c.baseline?.description
        let metrics = HeadlineMetric.headline.compactMap { m in c.name(of: m).map { (m, $0) } }
        headlineColumns = metrics.map { Column(column: $0.1, label: tableLabel($0.0, $0.1)) }
        headlineRows = c.pairs.map { pair in
            HeadlineRow(budget: pair.budget, ranking: pair.ranking, baseline: pair == c.baseline, cells: metrics.map { m, name in
                guard let e = c.entries[name]?[pair]?.value else { return Cell(metric: name, mean: "", halfWidth: "", text: "–") }
                return Cell(metric: name, mean: String(e.mean), halfWidth: e.halfWidth.map { String($0) } ?? "",
                            text: formatEstimate(e, scale: m.scale))
            })
        }
        func figure(_ chart: Chart) -> Figure { Figure(chart, svgs) }
        figureSections = sections.filter { !$0.lead }.map { s in
            FigureSection(anchor: s.anchor, title: s.title, intro: markup(s.intro), absent: s.absent.map(markup), layout: s.layout,
                          charts: s.charts.map(figure), html: s.html)
        }
        if let lead = sections.first(where: \.lead) {
            let answers = Recommendation.make(c, daily: inputs.daily).map { r in
                let d = r.named.first
                return Answer(goal: r.goal.name, metric: r.column, verdict: r.verdictWord,
                              pairs: r.named.map { Recommendation.name($0.pair) }.joined(separator: ", "),
                              difference: r.differenceText,
                              differenceMean: d.map { String($0.difference) } ?? "",
                              low: d.map { String($0.low) } ?? "", high: d.map { String($0.high) } ?? "",
                              sentence: markup(r.sentence))
            }
            let base = c.baseline.map { "`\(Recommendation.name($0))`" } ?? "the baseline pair (not run)"
            recommend = Recommend(
                intro: markup("The best budget × ranking pair for each goal — accuracy (`accuracy`), freshness "
                    + "(`stale_member_share`, the budget's own staleness) and cost (`charged_reloads_per_widget_day`) — judged by its "
                    + "paired difference to the baseline \(base) with its 95% interval (from `comparison.csv`; differences in "
                    + "percentage points for shares). A pair is better only when its interval misses zero; pairs whose "
                    + "intervals overlap the leader's are tied, and named together."),
                answers: answers, charts: lead.charts.map(figure))
        }
        let meanings = Dictionary(Metrics.all.map { ($0.name, $0.meaning) }, uniquingKeysWith: { a, _ in a })
        legend = metrics.map { Meaning(name: $0.1, meaning: meanings[$0.1] ?? $0.0.label) }
    }

    /// The page's templates, parsed once (`ReportPage.prepare` parses them ahead). They are
    /// constants of this program, checked by the tests: they parse.
    static let templates = MustacheLibrary(templates: [
        "page": try! MustacheTemplate(string: PageTemplate.text),
        "chart": try! MustacheTemplate(string: PageTemplate.chart),
        "style": try! MustacheTemplate(string: PageTemplate.style),
    ])

    func render() -> String {
        Page.templates.render(self, withTemplate: "page")!
    }
}

func tableLabel(_ m: HeadlineMetric, _ column: String) -> String {
    var text = m.label
    if column.hasSuffix("_minutes") { text += " (min)" } else if column.hasSuffix("_seconds") { text += " (s)" }
    return text
}

/// `mean ± half-width` with decimals chosen by the size of the mean.
func formatEstimate(_ e: Estimate, scale: Double) -> String {
    let mean = e.mean * scale
    let a = abs(mean)
    let decimals = a >= 1000 ? 0 : a >= 100 ? 1 : 2
    var text = String(format: "%.\(decimals)f", mean)
    if let h = e.halfWidth { text += " ± " + String(format: "%.\(decimals)f", h * scale) }
    return text
}
