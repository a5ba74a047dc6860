import ArgumentParser
import Dispatch
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a scenario and write its CSV reports.",
        discussion: """
        Simulates every person of the scenario under every budget × ranking pair, in
        every replication, and writes into the output folder:
          summary.csv      one row per policy pair and replication (headline metrics)
          daily.csv        the same metrics per simulated day, with 95% intervals
          comparison.csv   per pair and metric: mean, 95% interval, and the paired
                           difference to the baseline pair with its interval
          batches.csv      with one replication: the metrics per block of people
          reasons.csv      refusals and missed views per day, by reason code
          widget_days.csv  raw counts per person, day and widget instance
          schema.json      every column written: type, unit, meaning
          run.json         version, commit, policies, seeds, command line, timing
          study.csv        a study only: per point and pair, paired differences to
                           the baseline point (scenarios/README.md, "Parameter
                           studies")
          robust.csv       an exploring study (`study: explore:`): per pair
                           and metric, the share of sampled worlds where it
                           beats the baseline beyond noise, its regret, and
                           the share of worlds where it is best
          discovery.csv    an exploring study: the boxes of explored ranges
                           where a pair loses to the baseline (PRIM)
          sensitivity.csv  an exploring study with `method: sobol`: Sobol
                           first-order and total indices of every explored
                           value, with bootstrap intervals
          report.html      the above drawn for people (gnuplot charts; their data
                           and scripts in report/); `widgetsim report` rebuilds it
        Every column is described in docs/SCHEMA.md. The CSV files are the same,
        byte for byte, for the same scenario and options, whatever the threads.

        Without --out, each run writes a new folder of its own,
        reports/<scenario name>/<date>-<time>-<run id>/ (UTC; the run id is the
        `run_id` of its CSV rows), and points reports/<scenario name>/latest at it
        once its reports are written: runs never overwrite each other, and
        `widgetsim report` and `compare` given reports/<scenario name> read the
        latest. With --out, a finished report of another run in the folder is
        replaced only with --force.

        Finished blocks of people are kept in <out>/parts/ until the reports are
        written: after an interruption (Ctrl-C, kill), --resume runs only what is
        missing. Reports are written under temporary names and renamed when
        complete, so an earlier report is never half-overwritten.

        With --shard K/N the folder receives shard K's parts instead of reports;
        `widgetsim merge` combines the N shard folders into the reports of the run.

        Examples:
          widgetsim run scenarios/default.yaml
          widgetsim run scenarios/default.yaml --people 100 --budget daily_quota
          widgetsim run scenarios/default.yaml --replications 10 --warmup-days 2
          widgetsim run scenarios/tiny.yaml --trace reports/tiny-trace.csv
          widgetsim run scenarios/default.yaml --shard 0/4 --out work/shard-0
          widgetsim run scenarios/tiny.yaml --sweep budgets.daily_quota.per_day=4,12,40
          widgetsim run scenarios/study-budget.yaml --points
          widgetsim run scenarios/explore-default.yaml --points

        An exploring study samples its worlds instead of listing them:
          study:
            explore:
              method: lhs              # or sobol (Saltelli's design), halton
              samples: 64
              ranges:
                person.views_per_day.mean: 20..160
                widgets.news.content.push_fraction: 0.0..0.8
        Each sampled world is a point of the study (every report, --point,
        --shard, --resume); the run prints the design's cost before it
        starts and its answer when it ends (scenarios/README.md, "Exploring
        studies").
        """)

    @Argument(help: "The scenario file (YAML); see scenarios/README.md.")
    var scenario: String

    @Option(help: "Output folder; a finished report of another run in it is replaced only with --force. (default: a new folder reports/<scenario name>/<date>-<time>-<run id>/, which reports/<scenario name>/latest then points at)")
    var out: String?

    @OptionGroup var overrides: OverrideOptions

    @OptionGroup var study: StudyOptions

    @Option(help: "Worker threads. (default: every core)")
    var threads: Int?

    @Option(help: ArgumentHelp("Run only shard K of N (0 ≤ K < N): a deterministic part of the people of every pair and replication. (default: the whole run)", valueName: "K/N"))
    var shard: String?

    @Flag(help: "Keep the finished blocks of an interrupted run in the output folder and run only the rest.")
    var resume = false

    @Flag(help: "Replace what the output folder holds: another run's report, or an interrupted run's blocks.")
    var force = false

    @Option(help: ArgumentHelp("Write the event log to this CSV file (for small runs; forces one thread), or to standard output with `-` or a named pipe; an existing file is replaced only with --force. (default: no event log)", valueName: "trace"))
    var trace: String?

    @Flag(help: "Skip widget_days.csv: one row per person, day, policy pair and widget (about 120 bytes each), large for big runs; a run warns before writing more than 1 GB of it.")
    var noWidgetDays = false

    @Flag(help: "Skip report.html and report/ (the CSVs are written as usual; an earlier run's page in the folder is removed).")
    var noReport = false

    @Flag(help: "Print only the final lines: no progress, no summary table.")
    var quiet = false

    @Flag(inversion: .prefixedNo, help: "Show progress on standard error: one rewritten line on a terminal, plain lines otherwise (a log, a pipe). (default: on, off with --quiet)")
    var progress: Bool?

    @Option(help: ArgumentHelp("Seconds between progress lines when standard error is not a terminal.", valueName: "seconds"))
    var progressEvery: Double = 10

    @Flag(help: "Print the estimated events, CPU and wall time and peak memory of the run, and stop before it starts.")
    var estimate = false

    @Flag(name: .customLong("i-know"), help: "Start a run estimated to need more than this machine's memory or more than a day.")
    var iKnow = false

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if !(progressEvery > 0 && progressEvery.isFinite) {
            throw ValidationError("--progress-every takes a number of seconds above 0, got \(progressEvery)")
        }
        if resume, out == nil {
            throw ValidationError("--resume finishes the run in a folder: add --out with the folder the interrupted run named")
        }
        if let shard, parseShard(shard) == nil {
            throw ValidationError("--shard takes K/N with 0 ≤ K < N, e.g. 0/4; got `\(shard)`")
        }
    }

    func run() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        try checkOutputPath(out)
        let (study, provenance) = try prepareStudy(scenario, overrides, self.study)
        if self.study.listPoints {
            writePointsTable(study)
            return
        }
        if trace != nil, study.points.count > 1 {
            printError("widgetsim: --trace records one point of a study: add --point K")
            throw ExitCode(2)
        }
        let s = study.first
        // The size of the run, before it starts (a shard is its share of it).
        let estimate = RunEstimate(study.points.map(\.scenario),
                                   threads: trace != nil ? 1 : threads ?? ProcessInfo.processInfo.activeProcessorCount,
                                   widgetDays: !noWidgetDays, shards: shard.flatMap(parseShard)?.count ?? 1)
        if self.estimate {
            print(estimate.table)
            return
        }
        if let why = estimate.refusal(), !iKnow {
            printError("widgetsim: this run is refused before it starts: \(why); estimate: \(estimate.description); add --i-know to start it anyway")
            throw ExitCode(2)
        }
        if !quiet, estimate.seconds >= 10 || estimate.bytes >= 1_073_741_824 {
            printError("widgetsim: estimate: \(estimate.description)")
        }
        if !noWidgetDays, let warning = estimate.widgetDaysWarningText {
            printError("widgetsim: " + warning)
        }
        // Without --out, a folder of the run's own beside the earlier runs of the scenario.
        let runsRoot = URL(fileURLWithPath: "reports/\(s.name)")
        let runID = PartIdentity.runID(scenarioText: provenance.scenarioText, overrides: provenance.overrides)
        var folder = URL(fileURLWithPath: out ?? runsRoot.appendingPathComponent(runID).path)
        let traceKind = try trace.map { try checkTracePath($0, scenario: scenario, folder: folder, force: force) }
        if out == nil {
            do {
                folder = try OutputFolder.fresh(in: runsRoot, runID: runID)
            } catch {
                printError("widgetsim: " + displayed("\(error)"))
                throw ExitCode(2)
            }
        }
        var options = RunOptions(
            outputFolder: folder,
            threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
            shard: shard.flatMap(parseShard),
            traceFile: traceKind == .file ? trace.map { URL(fileURLWithPath: $0) } : nil)
        // With the trace on standard output, what the run says goes to standard error.
        let say: (String) -> Void = traceKind == .standardOutput ? { printError($0) } : { print($0) }
        options.widgetDays = !noWidgetDays
        // The parts go while the report page is drawn; the program waits for both.
        options.removePartsInBackground = true
        options.resume = resume
        options.force = force
        options.provenance = provenance
        options.startedAt = start
        options.notice = { @Sendable text in printError("widgetsim: \(text)") }
        // Opened before Ctrl-C is taken over: waiting for the pipe's reader ends at once.
        switch traceKind {
        case .standardOutput: options.traceStream = TraceStream()
        case .pipe:
            if !quiet { printError("widgetsim: writing the trace to the named pipe \(displayed(trace!)) once a reader opens it") }
            do {
                options.traceStream = try TraceStream(pipe: trace!)
            } catch {
                printError("widgetsim: \(error)")
                throw ExitCode(1)
            }
        default: break
        }
        let stop = StopRequest.install()
        options.shouldStop = { @Sendable in stop.requested }
        let progress = (self.progress ?? !quiet) ? ProgressLine(every: progressEvery) : nil
        if let progress {
            options.progress = { @Sendable p in progress.update(p) }
        }
        if !quiet, let cost = ExploreCost.line(study) { say(cost) }
        // gnuplot starts with the run, and the page's templates are parsed, while people are simulated.
        let drawsPage = !noReport && options.shard == nil
        let gnuplot = drawsPage ? Gnuplot.start() : nil
        defer { gnuplot?.cancel() }
        if drawsPage { ReportPage.prepare() }
        let outcome: StudyOutcome
        do {
            outcome = try RunJob.execute(study, options)
        } catch let refusal as RunRefusal {
            progress?.finish()
            if out == nil { _ = rmdir(folder.path) }  // the run's own folder, when still empty
            printError("widgetsim: " + displayed("\(refusal)"))
            throw ExitCode(2)
        } catch {
            progress?.finish()
            if out == nil { _ = rmdir(folder.path) }
            printError("widgetsim: " + displayed("\(error)"))
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("parts/manifest.json").path) {
                printError("widgetsim: the finished blocks are kept in \(displayed(folder.path))/parts/; once the cause is fixed, finish with: \(resumeCommand(folder))")
            }
            throw ExitCode(1)
        }
        progress?.finish()
        switch outcome {
        case .finished(let result):
            if !quiet {
                // An exploring study's worlds are many: its answer stands for the table of points.
                if let answer = ExploreAnswer.sentence(folder: folder) {
                    say("\(study.points.count) worlds; per point in study.csv, per pair in robust.csv, discovery.csv"
                          + (study.design?.isSaltelli == true ? " and sensitivity.csv" : ""))
                    say(answer)
                } else {
                    say(study.isStudy ? StudyTable.render(result.results, study: study) : SummaryTable.render(result.results[0]))
                }
            }
            let page = noReport ? nil : try writeReportPage(in: folder, command: "widgetsim run", optional: true, gnuplot: gnuplot)
            RunStatistics(result, since: start).print(to: say)
            say("reports written to \(displayed(folder.path))/")
            if let page { say("charts: open \(page.page.path) in a browser") }
            if out == nil {
                if let why = OutputFolder.pointLatest(in: runsRoot, to: folder) {
                    printError("widgetsim: " + displayed(why))
                } else if !quiet {
                    say("\(displayed(runsRoot.path))/\(OutputFolder.latestName) points at it")
                }
            }
            OutputFolder.finishRemovals()
        case .shardWritten(let blocks, let result):
            RunStatistics(result, since: start).print(to: say)
            say("shard \(options.shard!) of \(s.name): \(blocks) blocks written to \(displayed(folder.path))/parts/")
            say("combine the shards with: widgetsim merge SHARD_FOLDER... --out REPORT_FOLDER")
        case .interrupted(let done, let total):
            let why = stop.signalName.map { "interrupted (\($0))" } ?? "stopped"
            printError("widgetsim: \(why) after \(done) of \(total) blocks; they are kept in \(displayed(folder.path))/parts/")
            printError("widgetsim: finish the run with: \(resumeCommand(folder))")
            throw ExitCode(stop.signal.map { 128 + $0 } ?? 1)
        case .alreadyFinished(let when):
            say("the run in \(displayed(folder.path))/ already finished (its report was written \(when)); nothing to do")
        }
    }

    /// The command line that resumes this run: the same arguments, with `--resume`.
    func resumeCommand(_ folder: URL) -> String {
        var words = CommandLine.arguments
        if let first = words.first { words[0] = URL(fileURLWithPath: first).lastPathComponent }
        if !words.contains("--out") { words += ["--out", folder.path] }
        words = words.filter { $0 != "--force" }
        if !words.contains("--resume") { words.append("--resume") }
        return words.map(shellQuoted).joined(separator: " ")
    }
}
