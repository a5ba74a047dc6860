import ArgumentParser
import Foundation
import WidgetSimModel
import WidgetSimReports

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a scenario and write its CSV reports.",
        discussion: """
        Simulates every person of the scenario under every budget × ranking pair and writes, \
        into the output folder:
          summary.csv      one row per policy pair and replication (the headline metrics)
          daily.csv        the same metrics per simulated day (a learning curve)
          widget_days.csv  raw counts per person, day and widget instance
        Each file is written under a temporary name and renamed when complete: a failed or \
        interrupted run leaves an earlier report untouched.

        Examples:
          widgetsim run scenarios/default.yaml
          widgetsim run scenarios/default.yaml --people 100 --days 3 --budget daily_quota
          widgetsim run scenarios/tiny.yaml --trace reports/tiny/trace.csv
        """)

    @Argument(help: "The scenario file (YAML); see scenarios/README.md.")
    var scenario: String

    @Option(help: "Output folder (default: reports/<scenario name>/).")
    var out: String?

    @Option(help: "Override the scenario's seed.")
    var seed: UInt64?

    @Option(help: "Override the number of people.")
    var people: Int?

    @Option(help: "Override the number of simulated days.")
    var days: Int?

    @Option(parsing: .upToNextOption, help: "Run only these budget policies (their labels in the scenario).")
    var budget: [String] = []

    @Option(parsing: .upToNextOption, help: "Run only these ranking policies (their labels in the scenario).")
    var ranking: [String] = []

    @Option(help: "Worker threads (default: every core).")
    var threads: Int?

    @Option(help: "Write the event log to this CSV file (for small runs; forces one thread).")
    var trace: String?

    @Flag(help: "Skip widget_days.csv (large for big runs).")
    var noWidgetDays = false

    @Flag(help: "Print no progress on stderr.")
    var quiet = false

    func validate() throws {
        if let people, people < 1 { throw ValidationError("--people must be at least 1, got \(people)") }
        if let days, days < 1 { throw ValidationError("--days must be at least 1, got \(days)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        var s = try loadScenario(scenario)
        if let seed { s.seed = seed }
        if let people { s.people = people }
        if let days {
            guard days > s.warmupDays else {
                printError("--days \(days) leaves nothing after the scenario's \(s.warmupDays) warm-up days")
                throw ExitCode(2)
            }
            s.days = days
        }
        s.budgets = try select(s.budgets, budget, "budget")
        s.rankings = try select(s.rankings, ranking, "ranking")
        if !s.budgets.contains(where: { $0.label == s.baseline.budget }) || !s.rankings.contains(where: { $0.label == s.baseline.ranking }) {
            s.baseline = PolicyPair(budget: s.budgets[0].label, ranking: s.rankings[0].label)
        }

        let folder = URL(fileURLWithPath: out ?? "reports/\(s.name)")
        var options = RunOptions(
            outputFolder: folder,
            threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
            traceFile: trace.map { URL(fileURLWithPath: $0) })
        options.widgetDays = !noWidgetDays
        let progress = quiet ? nil : ProgressLine()
        if let progress {
            options.progress = { @Sendable p in progress.update(p) }
        }
        let result: RunResult
        do {
            result = try RunJob.execute(s, options)
        } catch let error as ReportError {
            progress?.finish()
            printError("widgetsim: \(error)")
            throw ExitCode(1)
        }
        progress?.finish()
        print(SummaryTable.render(result))
        print(RunStatistics(result).line)
        print("reports written to \(folder.path)/")
    }

    func select(_ all: [PolicyChoice], _ wanted: [String], _ kind: String) throws -> [PolicyChoice] {
        guard !wanted.isEmpty else { return all }
        let labels = all.map(\.label)
        for w in wanted where !labels.contains(w) {
            printError("--\(kind) \(w): the scenario has no \(kind) policy labelled `\(w)`; it has \(labels.joined(separator: ", "))")
            throw ExitCode(2)
        }
        return all.filter { wanted.contains($0.label) }
    }
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
        let text = String(format: "\r%d/%d units, %.2f M events/s, %.0f s left   ", p.unitsDone, p.unitsTotal, rate / 1e6, left)
        FileHandle.standardError.write(Data(text.utf8))
        shown = true
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// The run's cost, as one line: events, wall time, rates and peak memory.
struct RunStatistics {
    let events: Int64
    let personDays: Int
    let seconds: Double
    let peakMB: Double

    init(_ r: RunResult) {
        events = r.totals.joined().reduce(0) { $0 + $1.sum(.events, days: 0 ..< $1.days) }
        personDays = r.totals.joined().reduce(0) { $0 + $1.people * $1.days }
        seconds = r.wallSeconds
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        peakMB = Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }

    var line: String {
        String(format: "simulated %lld events, %d person-days in %.2f s: %.0f events/s, %.0f person-days/s; peak memory %.1f MB",
               events, personDays, seconds, Double(events) / max(seconds, 1e-9), Double(personDays) / max(seconds, 1e-9), peakMB)
    }
}
