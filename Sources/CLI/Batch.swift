import ArgumentParser
import Dispatch
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReportPage
import WidgetSimReports

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run many scenario files into one report folder.",
        discussion: """
        Runs each scenario (a folder stands for the .yaml files in it) into
        <out>/<scenario name>/, as `widgetsim run` would (its CSVs and its
        report.html), then writes <out>/comparison.csv with every scenario's
        comparison rows. Every file is checked before any runs.

        <out>/report.html (its figures' files in <out>/report/) answers the batch
        at a glance: per scenario, the best pair for each goal (accuracy,
        freshness as stale_member_share, cost) with its paired 95% interval
        against that scenario's baseline, tied pairs named together; a row per
        scenario linking to its own report.html; and each goal's metric drawn
        for every scenario side by side. --no-report skips it with the
        scenarios' pages; --resume redraws it; `widgetsim report <out>` redraws
        it from the folder. A scenario named `report` is refused, its folder
        being the page's figure folder.

        An interrupted batch loses nothing finished: with --resume, scenarios whose
        reports are complete (same file, same options) are skipped and a scenario
        that was under way continues from its finished blocks.

        Example:
          widgetsim batch scenarios/ --replications 5 --out reports/sweep
        """)

    @Argument(help: "Scenario files, or folders of them.")
    var inputs: [String]

    @Option(help: "Report folder.")
    var out: String = "reports/batch"

    @OptionGroup var overrides: OverrideOptions

    @Option(help: "Worker threads. (default: every core)")
    var threads: Int?

    @Flag(help: "Skip finished scenarios and continue interrupted ones.")
    var resume = false

    @Flag(help: "Skip widget_days.csv.")
    var noWidgetDays = false

    @Flag(help: "Skip the batch's and each scenario's report.html and report/ (the CSVs are written as usual).")
    var noReport = false

    @Flag(help: "Print only the final lines: no progress, no summary table.")
    var quiet = false

    @Flag(inversion: .prefixedNo, help: "Show progress on standard error: one rewritten line on a terminal, plain lines otherwise (a log, a pipe). (default: on, off with --quiet)")
    var progress: Bool?

    func run() throws {
        let files = try expand(inputs)
        var prepared: [(Scenario, Provenance)] = []
        var studies: [Study] = []
        var failed = false
        let noStudyOptions = try StudyOptions.parse([])
        for file in files {
            do {
                let (study, provenance) = try prepareStudy(file, overrides, noStudyOptions)
                prepared.append((study.first, provenance))
                studies.append(study)
            } catch { failed = true }
        }
        if failed { throw ExitCode(2) }
        var seen: [String: String] = [:]
        for ((s, p), file) in zip(prepared, files) {
            if let other = seen[s.name] {
                printError("widgetsim batch: \(file) and \(other) are both named `\(s.name)`; their reports would share a folder")
                throw ExitCode(2)
            }
            seen[s.name] = p.scenarioPath
        }
        if !noReport, let p = prepared.first(where: { $0.0.name == "report" }) {
            printError("widgetsim batch: \(p.1.scenarioPath) is named `report`; its folder would be the batch page's report/ (rename the scenario, or use --no-report)")
            throw ExitCode(2)
        }
        let root = URL(fileURLWithPath: out)
        for (index, (s, provenance)) in prepared.enumerated() {
            let folder = root.appendingPathComponent(s.name)
            if resume && RunRecord.finishedRun(in: folder, scenarioText: provenance.scenarioText, overrides: provenance.overrides) {
                print("[\(index + 1)/\(prepared.count)] \(s.name): finished earlier, skipped")
                continue
            }
            let start = DispatchTime.now().uptimeNanoseconds
            var options = RunOptions(outputFolder: folder, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
            options.startedAt = start
            options.notice = { @Sendable text in printError("widgetsim batch: \(s.name): \(text)") }
            options.widgetDays = !noWidgetDays
            options.resume = resume
            options.provenance = provenance
            let progress = (self.progress ?? !quiet) ? ProgressLine() : nil
            if let progress { options.progress = { @Sendable p in progress.update(p) } }
            do {
                guard case .finished(let result) = try RunJob.execute(studies[index], options) else { continue }
                progress?.finish()
                if !quiet {
                    print(result.study.isStudy ? StudyTable.render(result.results, study: result.study) : SummaryTable.render(result.results[0]))
                }
                // Each scenario's page, as `widgetsim run` draws it (gnuplot missing only warns).
                if !noReport { try writeReportPage(in: folder, command: "widgetsim batch", optional: true) }
                let statistics = RunStatistics(result, since: start)
                if let resumed = statistics.resumedLine { print("[\(index + 1)/\(prepared.count)] \(s.name): \(resumed)") }
                print("[\(index + 1)/\(prepared.count)] \(s.name): \(statistics.line)")
            } catch let exit as ExitCode {
                throw exit
            } catch {
                progress?.finish()
                printError("widgetsim batch: \(s.name): \(error)")
                throw ExitCode(error is RunRefusal ? 2 : 1)
            }
        }
        // The combined comparison: every plain scenario's rows under the union of their
        // columns (a study's rows stay in its folder, beside its study.csv).
        var sheets: [(header: [String], rows: [[String]])] = []
        for ((s, _), study) in zip(prepared, studies) {
            if study.isStudy {
                print("\(s.name) is a study of \(study.points.count) points: its comparison.csv and study.csv are in its folder")
                continue
            }
            let url = root.appendingPathComponent(s.name).appendingPathComponent("comparison.csv")
            var rows = CSV.parse(try String(contentsOf: url, encoding: .utf8))
            guard !rows.isEmpty else { continue }
            sheets.append((rows.removeFirst(), rows))
        }
        var table = Table(file: "comparison.csv", rows: Schema.comparisonRows, columns: [Schema.runID] + Schema.comparisonColumns)
        for sheet in sheets {
            let index = Dictionary(sheet.header.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            for row in sheet.rows {
                table.rows.append(table.columns.map { c in index[c.name].map { row[$0] } ?? "" })
            }
        }
        try AtomicFile.write(table.csv, to: root.appendingPathComponent("comparison.csv"))
        try AtomicFile.write(ReportSchema(files: [table.schema]).json(), to: root.appendingPathComponent("schema.json"))
        // The batch's page, from the folders just written (gnuplot missing only warns).
        let page = noReport ? nil : try writeReportPage(in: root, command: "widgetsim batch", optional: true, batch: true)
        print("reports written to \(root.path)/ (combined comparison.csv\(page == nil ? "" : ", the batch's report.html"))")
    }

    func expand(_ inputs: [String]) throws -> [String] {
        var files: [String] = []
        for input in inputs {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isFolder) else {
                printError("widgetsim batch: \(input): no such file or folder")
                throw ExitCode(2)
            }
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: input)
                    .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
                files += names.map { URL(fileURLWithPath: input).appendingPathComponent($0).path }
            } else {
                files.append(input)
            }
        }
        guard !files.isEmpty else {
            printError("widgetsim batch: no scenario files in \(inputs.joined(separator: ", "))")
            throw ExitCode(2)
        }
        return files
    }
}
