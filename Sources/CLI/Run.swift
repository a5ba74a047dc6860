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
        var estimate = RunEstimate(study.points.map(\.scenario),
                                   threads: trace != nil ? 1 : threads ?? ProcessInfo.processInfo.activeProcessorCount)
        if let shard = shard.flatMap(parseShard) {
            for k in [\RunEstimate.events, \RunEstimate.personDays, \RunEstimate.seconds] { estimate[keyPath: k] /= Double(shard.count) }
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
            let page = noReport ? nil : try writeReportPage(in: folder, command: "widgetsim run", optional: true)
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

/// A word as a shell reads it: quoted when it holds anything but safe characters.
func shellQuoted(_ word: String) -> String {
    if word.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        // $'…': a line break or another control character as an escape, on one line.
        let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return "$'" + displayed(escaped) + "'"
    }
    let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
    return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Refuses an `--out` that names something other than a folder (exit status 2).
func checkOutputPath(_ out: String?) throws {
    guard let out else { return }
    if out.isEmpty {
        printError("widgetsim: --out is empty; give --out a folder (it is created when missing)")
        throw ExitCode(2)
    }
    var link = stat()
    var target = stat()
    if lstat(out, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, stat(out, &target) != 0 {
        let why = errno == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing (a dangling link)"
        printError("widgetsim: --out \(displayed(out)) is \(why); give --out a folder, or remove the link")
        throw ExitCode(2)
    }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
        printError("widgetsim: --out \(displayed(out)) is a file, not a folder; give --out a folder (it is created when missing)")
        throw ExitCode(2)
    }
}

/// What `--trace` writes to.
enum TraceKind {
    /// A new file, or an existing regular file replaced with `--force`: written under a
    /// temporary name and renamed when the run is complete.
    case file
    /// A named pipe, written as the run goes.
    case pipe
    /// `-`: standard output, written as the run goes.
    case standardOutput
}

/// Checks what `--trace PATH` would replace, as the reports' own rules go: never the
/// scenario file or a file the run writes in its output folder, never something that is
/// not a regular file (a named pipe or `-` is written to as a stream, on purpose), and
/// an existing file only with `--force`. Refusals exit with status 2.
func checkTracePath(_ path: String, scenario: String, folder: URL, force: Bool) throws -> TraceKind {
    func refuse(_ why: String) -> ExitCode {
        printError("widgetsim: --trace \(displayed(path)) \(why)")
        return ExitCode(2)
    }
    if path.isEmpty {
        printError("widgetsim: --trace is empty; give it a file name, or `-` for standard output")
        throw ExitCode(2)
    }
    if path == "-" { return .standardOutput }
    let url = URL(fileURLWithPath: path)
    // A file in the output folder that the run writes (reports, page, parts, lock).
    let inFolder = resolved(url.deletingLastPathComponent()).appendingPathComponent(url.lastPathComponent).path
    let out = resolved(folder).path
    for name in OutputFolder.ownedNames {
        let owned = out + "/" + name
        if inFolder == owned || inFolder.hasPrefix(owned + "/") {
            throw refuse("is \(displayed(owned)), where the run writes its \(name == "parts" ? "finished blocks" : name == OutputFolder.lockName ? "lock" : "report"); give the trace a name of its own")
        }
    }
    var info = stat()
    guard lstat(path, &info) == 0 else {
        if errno == ENOENT { return .file }
        throw refuse("cannot be used: \(String(cString: strerror(errno)))")
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
        var scenarioInfo = stat()
        if stat(scenario, &scenarioInfo) == 0, scenarioInfo.st_dev == info.st_dev, scenarioInfo.st_ino == info.st_ino {
            throw refuse("is the scenario file being run; give the trace another name")
        }
        if !force { throw refuse("exists; add --force to replace it, or give the trace another name") }
        return .file
    case S_IFIFO:
        return .pipe
    case S_IFLNK:
        throw refuse("is a symbolic link (the trace would replace the link, not its target); give the path of the file itself")
    case S_IFDIR:
        throw refuse("is a folder; give --trace a file name")
    default:
        throw refuse("is a device or a socket, not a regular file; the trace is written to a file, a named pipe, or standard output (`-`)")
    }
}

/// `url` with symbolic links resolved as far as the path exists (the rest as given).
func resolved(_ url: URL) -> URL {
    let absolute = url.standardizedFileURL
    if let real = realpath(absolute.path, nil) {
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real))
    }
    let parent = absolute.deletingLastPathComponent()
    if parent.path == absolute.path { return absolute }
    return resolved(parent).appendingPathComponent(absolute.lastPathComponent)
}

/// A path as messages print it: control characters (a line break in a file name) as
/// escapes, so that every message stays one line.
func displayed(_ path: String) -> String {
    guard path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return path }
    var out = ""
    for c in path.unicodeScalars {
        switch c {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            out += c.properties.generalCategory == .control && c.value < 0x100
                ? "\\x" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16) : String(c)
        }
    }
    return out
}

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal) during a run: the first asks the run to stop, leaving it
/// resumable; a second one ends the program at once (finished blocks are safe anyway).
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    var requested: Bool { lock.withLock { received != nil } }
    var signal: Int32? { lock.withLock { received } }
    var signalName: String? {
        signal.map { $0 == SIGINT ? "Ctrl-C" : $0 == SIGTERM ? "SIGTERM" : $0 == SIGHUP ? "SIGHUP" : "signal \($0)" }
    }

    static func install() -> StopRequest {
        let request = StopRequest()
        for number in [SIGINT, SIGTERM, SIGHUP] {
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

/// Progress on standard error, once the run has lasted two seconds: on a terminal, one
/// line rewritten in place (cut to the window's width and cleared to its end, so that
/// nothing of a longer earlier line stays); otherwise (a log file, a pipe) a plain line
/// every `every` seconds and one when the last block is done.
final class ProgressLine: @unchecked Sendable {
    let isTerminal: Bool
    let every: Double
    let columns: Int
    let write: @Sendable (String) -> Void
    let lock = NSLock()
    var shown = false
    var lastDraw = 0.0

    init(every: Double = 10, isTerminal: Bool = isatty(STDERR_FILENO) == 1, columns: Int = terminalColumns(),
         write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.every = every
        self.isTerminal = isTerminal
        self.columns = columns
        self.write = write
    }

    /// The text of one progress report: where the run is, its speed, the time left.
    static func text(_ p: RunProgress) -> String {
        let rate = Double(p.events) / max(p.elapsedSeconds, 1e-9)
        let left = p.unitsDone > 0 ? p.elapsedSeconds * Double(p.unitsTotal - p.unitsDone) / Double(p.unitsDone) : 0
        let remaining = p.unitsDone == p.unitsTotal ? "done"
            : left < 60 ? String(format: "%.0f s left", left)
            : String(format: "%d min %02d s left", Int(left) / 60, Int(left) % 60)
        let point = p.points > 1 ? "point \(p.point) of \(p.points), " : ""
        return point + String(format: "%d/%d blocks, %.2f M events/s, ", p.unitsDone, p.unitsTotal, rate / 1e6) + remaining
    }

    func update(_ p: RunProgress) {
        lock.lock()
        defer { lock.unlock() }
        let last = p.unitsDone == p.unitsTotal
        if isTerminal {
            guard p.elapsedSeconds > 2, p.elapsedSeconds - lastDraw >= 0.25 || last else { return }
            lastDraw = p.elapsedSeconds
            // One character short of the window: a full last column makes some terminals wrap.
            let line = String(Self.text(p).prefix(max(1, columns - 1)))
            write("\r" + line + "\u{1B}[K")
            shown = true
        } else {
            guard (p.elapsedSeconds >= every && p.elapsedSeconds - lastDraw >= every) || (last && shown) else { return }
            lastDraw = p.elapsedSeconds
            write("widgetsim: progress: " + Self.text(p) + "\n")
            shown = true
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown && isTerminal { write("\n") }
        shown = false
    }
}

/// The terminal's width on standard error, else `COLUMNS`, else 80.
func terminalColumns() -> Int {
    var size = winsize()
    if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80
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

    func print(to say: (String) -> Void = { Swift.print($0) }) {
        if let resumedLine { say(resumedLine) }
        say(line)
    }
}
