import ArgumentParser
import Dispatch
import Foundation
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

    @Option(help: "Output folder. (default: reports/<scenario name>/)")
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

    @Option(help: "Write the event log to this CSV file (for small runs; forces one thread). (default: no event log)")
    var trace: String?

    @Flag(help: "Skip widget_days.csv (large for big runs).")
    var noWidgetDays = false

    @Flag(help: "Skip report.html and report/ (the CSVs are written as usual).")
    var noReport = false

    @Flag(help: "Print only the final lines: no progress, no summary table.")
    var quiet = false

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if let shard, parseShard(shard) == nil {
            throw ValidationError("--shard takes K/N with 0 ≤ K < N, e.g. 0/4; got `\(shard)`")
        }
    }

    func run() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        try checkOutputPath(out)
        let (study, provenance) = try prepareStudy(scenario, overrides, self.study)
        if self.study.listPoints {
            print(pointsTable(study), terminator: "")
            return
        }
        if trace != nil, study.points.count > 1 {
            printError("widgetsim: --trace records one point of a study: add --point K")
            throw ExitCode(2)
        }
        let s = study.first
        let folder = URL(fileURLWithPath: out ?? "reports/\(s.name)")
        var options = RunOptions(
            outputFolder: folder,
            threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
            shard: shard.flatMap(parseShard),
            traceFile: trace.map { URL(fileURLWithPath: $0) })
        options.widgetDays = !noWidgetDays
        // The parts go while the report page is drawn; the program waits for both.
        options.removePartsInBackground = true
        options.resume = resume
        options.force = force
        options.provenance = provenance
        options.startedAt = start
        options.notice = { @Sendable text in printError("widgetsim: \(text)") }
        let stop = StopRequest.install()
        options.shouldStop = { @Sendable in stop.requested }
        let progress = quiet ? nil : ProgressLine()
        if let progress {
            options.progress = { @Sendable p in progress.update(p) }
        }
        if !quiet, let cost = ExploreCost.line(study) { print(cost) }
        let outcome: StudyOutcome
        do {
            outcome = try RunJob.execute(study, options)
        } catch let refusal as RunRefusal {
            progress?.finish()
            printError("widgetsim: \(refusal)")
            throw ExitCode(2)
        } catch {
            progress?.finish()
            printError("widgetsim: \(error)")
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("parts/manifest.json").path) {
                printError("widgetsim: the finished blocks are kept in \(folder.path)/parts/; once the cause is fixed, finish with: \(resumeCommand(folder))")
            }
            throw ExitCode(1)
        }
        progress?.finish()
        switch outcome {
        case .finished(let result):
            if !quiet {
                // An exploring study's worlds are many: its answer stands for the table of points.
                if let answer = ExploreAnswer.sentence(folder: folder) {
                    print("\(study.points.count) worlds; per point in study.csv, per pair in robust.csv, discovery.csv"
                          + (study.design?.isSaltelli == true ? " and sensitivity.csv" : ""))
                    print(answer)
                } else {
                    print(study.isStudy ? StudyTable.render(result.results, study: study) : SummaryTable.render(result.results[0]))
                }
            }
            let page = noReport ? nil : try writeReportPage(in: folder, command: "widgetsim run", optional: true)
            RunStatistics(result, since: start).print()
            print("reports written to \(folder.path)/")
            if let page { print("charts: open \(page.page.path) in a browser") }
            OutputFolder.finishRemovals()
        case .shardWritten(let blocks, let result):
            RunStatistics(result, since: start).print()
            print("shard \(options.shard!) of \(s.name): \(blocks) blocks written to \(folder.path)/parts/")
            print("combine the shards with: widgetsim merge SHARD_FOLDER... --out REPORT_FOLDER")
        case .interrupted(let done, let total):
            let why = stop.signalName.map { "interrupted (\($0))" } ?? "stopped"
            printError("widgetsim: \(why) after \(done) of \(total) blocks; they are kept in \(folder.path)/parts/")
            printError("widgetsim: finish the run with: \(resumeCommand(folder))")
            throw ExitCode(stop.signal.map { 128 + $0 } ?? 1)
        case .alreadyFinished(let when):
            print("the run in \(folder.path)/ already finished (its report was written \(when)); nothing to do")
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

/// A word as a shell reads it: quoted when it holds anything but safe characters.
func shellQuoted(_ word: String) -> String {
    let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
    return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Refuses an `--out` that names something other than a folder (exit status 2).
func checkOutputPath(_ out: String?) throws {
    guard let out else { return }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
        printError("widgetsim: --out \(out) is a file, not a folder; give --out a folder (it is created when missing)")
        throw ExitCode(2)
    }
}

/// Ctrl-C (SIGINT) and SIGTERM during a run: the first asks the run to stop, leaving it
/// resumable; a second one ends the program at once (finished blocks are safe anyway).
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    var requested: Bool { lock.withLock { received != nil } }
    var signal: Int32? { lock.withLock { received } }
    var signalName: String? {
        signal.map { $0 == SIGINT ? "Ctrl-C" : $0 == SIGTERM ? "SIGTERM" : "signal \($0)" }
    }

    static func install() -> StopRequest {
        let request = StopRequest()
        for number in [SIGINT, SIGTERM] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                request.lock.withLock { if request.received == nil { request.received = number } }
                printError("\nwidgetsim: stopping after the blocks in progress are set aside (again to quit at once)")
                Foundation.signal(number, SIG_DFL)
            }
            source.resume()
            request.sources.append(source)
        }
        return request
    }
}

/// The options that change a scenario, shared by `run` and `batch`.
struct OverrideOptions: ParsableArguments {
    @Option(help: "The seed, 0…2^63−1. (default: the scenario's `seed`)")
    var seed: UInt64?

    @Option(help: "People per replication. (default: the scenario's `people`)")
    var people: Int?

    @Option(help: "Simulated days. (default: the scenario's `days`)")
    var days: Int?

    @Option(help: "Leading days that run but count only in daily.csv. (default: the scenario's `warmup_days`)")
    var warmupDays: Int?

    @Option(help: "Replications, each a fresh set of people from the same seed. (default: the scenario's `replications`)")
    var replications: Int?

    @Option(parsing: .upToNextOption, help: "Run only these budget policies, by label. (default: every one in the scenario)")
    var budget: [String] = []

    @Option(parsing: .upToNextOption, help: "Run only these ranking policies, by label. (default: every one in the scenario)")
    var ranking: [String] = []

    var asOverrides: RunOverrides {
        var o = RunOverrides()
        o.seed = seed
        o.people = people
        o.days = days
        o.warmupDays = warmupDays
        o.replications = replications
        o.budgets = budget.isEmpty ? nil : budget
        o.rankings = ranking.isEmpty ? nil : ranking
        return o
    }
}

func parseShard(_ text: String) -> Shard? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else { return nil }
    return Shard(index: k, count: n)
}

/// Progress on stderr, on one rewritten line, only when stderr is a terminal and the
/// run has lasted more than two seconds.
final class ProgressLine: @unchecked Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1
    let lock = NSLock()
    var shown = false
    var lastDraw = 0.0

    func update(_ p: RunProgress) {
        guard isTerminal, p.elapsedSeconds > 2 else { return }
        lock.lock()
        defer { lock.unlock() }
        guard p.elapsedSeconds - lastDraw >= 0.25 || p.unitsDone == p.unitsTotal else { return }
        lastDraw = p.elapsedSeconds
        let rate = Double(p.events) / max(p.elapsedSeconds, 1e-9)
        let left = p.unitsDone > 0 ? p.elapsedSeconds * Double(p.unitsTotal - p.unitsDone) / Double(p.unitsDone) : 0
        let remaining = left < 60 ? String(format: "%.0f s", left)
                                  : String(format: "%d min %02d s", Int(left) / 60, Int(left) % 60)
        let point = p.points > 1 ? "point \(p.point) of \(p.points), " : ""
        let text = "\r" + point + String(format: "%d/%d units, %.2f M events/s, ", p.unitsDone, p.unitsTotal, rate / 1e6)
            + remaining + " left   "
        FileHandle.standardError.write(Data(text.utf8))
        shown = true
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// The run's cost, as one line: events, the whole run's wall time (from the start of
/// the command to its last report, plus the compute time recorded by blocks that
/// earlier runs finished), rates and peak memory; and a line before it when some
/// blocks came from earlier runs.
struct RunStatistics {
    let events: Int64
    let personDays: Int
    let seconds: Double
    let peakMB: Double
    let resumedBlocks: Int
    let recordedSeconds: Double

    init(_ r: StudyResult, since start: UInt64) {
        events = r.events
        personDays = r.personDays
        resumedBlocks = r.results.first?.resumedBlocks ?? 0
        recordedSeconds = r.results.first?.recordedSeconds ?? 0
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 + recordedSeconds
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        peakMB = Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }

    var resumedLine: String? {
        guard resumedBlocks > 0 else { return nil }
        return String(format: "resumed: %d blocks were finished by earlier runs, which recorded %.3f s of compute for them (included below)",
                      resumedBlocks, recordedSeconds)
    }

    var line: String {
        String(format: "simulated %lld events, %d person-days in %.3f s: %.0f events/s, %.0f person-days/s; peak memory %.1f MB",
               events, personDays, seconds, Double(events) / max(seconds, 1e-9), Double(personDays) / max(seconds, 1e-9), peakMB)
    }

    func print() {
        if let resumedLine { Swift.print(resumedLine) }
        Swift.print(line)
    }
}
