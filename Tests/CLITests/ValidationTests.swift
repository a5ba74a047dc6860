import Foundation
import Testing

/// `docs/VALIDATION.md`: the documented observations the model reproduces. Each row of
/// its table names a check (`id`), the commands that measure it, the expected figure and
/// the measured one. This suite runs every check's commands with the built `widgetsim`,
/// computes its figure from the reports, and fails when the figure leaves the expected
/// range, when the row's commands differ from the ones run, or when the measured cell
/// differs from the figure (a drift). With `WIDGETSIM_UPDATE_VALIDATION=1` it writes the
/// figures into the table instead; review the diff.
@Suite("Validation table", .serialized)
struct ValidationTests {
    static let document = repositoryRoot.appendingPathComponent("docs/VALIDATION.md")

    @Test("the table lists exactly the checks this suite runs, each once")
    func tableListsEveryCheck() throws {
        let rows = try ValidationTable.read(Self.document).rows
        #expect(rows.map(\.id).sorted() == ValidationCheck.all.map(\.id).sorted())
    }

    @Test(arguments: ValidationCheck.all.map(\.id))
    func checkHolds(_ id: String) throws {
        let check = try #require(ValidationCheck.all.first { $0.id == id })
        var table = try ValidationTable.read(Self.document)
        let row = try #require(table.rows.first { $0.id == id }, "docs/VALIDATION.md has no row `\(id)`")
        #expect(row.commands == check.commands.map { "widgetsim " + $0.joined(separator: " ") }.joined(separator: "; "),
                "the row's commands are not the ones the check runs")

        let outputs = try check.commands.map { try ValidationRuns.shared.output(of: $0) }
        let figure = try check.measure(Runs(folders: outputs))
        let text = check.format(figure)
        #expect(check.expected.contains(figure), "\(id): \(text) is outside \(check.expectedText)")
        #expect(row.expected == check.expectedText, "the row's expected figure is not the check's")
        if ProcessInfo.processInfo.environment["WIDGETSIM_UPDATE_VALIDATION"] == "1" {
            table.setMeasured(id: id, to: text)
            try table.write(Self.document)
        } else {
            #expect(row.measured == text, "\(id): measured \(text), the table says \(row.measured)")
        }
    }
}

extension ValidationTests {
    /// The calibrated scenarios of the log checks (and the replayed ones, which share
    /// their model) hold what `widgetsim calibrate` fits to the log today.
    @Test("the log checks' scenarios hold calibrate's fit of their log", arguments: ["people", "bursty"])
    func logScenariosHoldTheFit(_ kind: String) throws {
        let log = try ValidationRuns.shared.output(of: ValidationCheck.logRuns(kind)[0])
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-fit-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try widgetsim(["calibrate", log.path, "--format", "lsapp", "--time-zone", "Europe/Rome", "--app", "mail=Gmail",
                                 "--app", "weather=Weather", "--app", "news=News", "--out", out.path])
        try #require(run.status == 0, "\(run.stderr)")
        let fitted = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init).filter { line in
            ["  sessions_per_day:", "  session_profile:", "  session_length:", "      base:", "      hourly:", "      weekday:"]
                .contains { line.hasPrefix($0) }
        }
        #expect(fitted.count == 3 + 3 * 3, "\(fitted)")
        let prefix = kind == "people" ? "log" : "log-bursty"
        for file in ["\(prefix)-calibrated.yaml", "\(prefix)-replayed.yaml"] {
            let lines = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/validation/" + file), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            for line in fitted { #expect(lines.contains(line), "\(file) lacks the fitted `\(line)`") }
        }
    }
}

/// The reports of each distinct command the checks run, made once: several rows read
/// the same run (the reference workload, the evening freeze, the relevance peaks).
/// They live in `.build/validation-runs/`, emptied when the first is made, so a test
/// process leaves only its own runs behind.
final class ValidationRuns: @unchecked Sendable {
    static let shared = ValidationRuns()
    private let lock = NSLock()
    private var done: [[String]: URL] = [:]
    private let scratch = repositoryRoot.appendingPathComponent(".build/validation-runs")

    /// The output folder of `command` as the table shows it, its `--out` (and `--trace`)
    /// sent to the scratch folder; run the first time it is asked for.
    func output(of command: [String]) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if let out = done[command] { return out }
        if done.isEmpty {
            try? FileManager.default.removeItem(at: scratch)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        }
        if command.first == "log" {
            // A usage log is written where the table says: the scenarios that replay it name that path.
            let run = try widgetsim(command, in: repositoryRoot)
            try #require(run.status == 0, "widgetsim \(command.joined(separator: " ")):\n\(run.stderr)")
            let i = try #require(command.firstIndex(of: "--out"))
            let log = repositoryRoot.appendingPathComponent(command[i + 1])
            done[command] = log
            return log
        }
        var arguments = command
        let out = scratch.appendingPathComponent("run\(done.count)")
        if let i = arguments.firstIndex(of: "--out") { arguments[i + 1] = out.path }
        if let i = arguments.firstIndex(of: "--trace") { arguments[i + 1] = out.path + ".trace.csv" }
        let run = try widgetsim(arguments + ["--no-report", "--threads", "1"], in: repositoryRoot)
        try #require(run.status == 0, "widgetsim \(arguments.joined(separator: " ")):\n\(run.stderr)")
        done[command] = out
        return out
    }
}

/// The reports of a check's commands, in order.
struct Runs {
    var folders: [URL]

    /// The rows of `file` (`summary.csv`, `daily.csv`, …) of run `k`, as column → cell.
    func rows(_ file: String, run k: Int = 0) throws -> [[String: String]] {
        try CSVTable.read(folders[k].appendingPathComponent(file))
    }

    /// The trace of run `k` (written beside its folder).
    func trace(run k: Int = 0) throws -> [[String: String]] {
        try CSVTable.read(URL(fileURLWithPath: folders[k].path + ".trace.csv"))
    }

    /// The mean and 95% half-width of `metric` for one pair, from `comparison.csv` of run `k`.
    func compared(_ metric: String, run k: Int, budget: String, ranking: String) throws -> (mean: Double, half: Double) {
        let row = try #require(try rows("comparison.csv", run: k).first {
            $0["metric"] == metric && $0["budget"] == budget && $0["ranking"] == ranking
        }, "no comparison row \(metric) \(budget)/\(ranking)")
        return (try #require(Double(row["mean"] ?? "")), try #require(Double(row["ci95_half_width"] ?? "")))
    }

    /// Column `column` of the first `summary.csv` row of run `k` whose cells match `where`.
    func summary(_ column: String, run k: Int = 0, where match: [String: String] = [:]) throws -> Double {
        let row = try #require(try rows("summary.csv", run: k).first { r in match.allSatisfy { r[$0.key] == $0.value } },
                               "no summary row \(match)")
        return try #require(Double(row[column] ?? ""), "no number in \(column)")
    }
}

/// A comma-separated file with a header, fields optionally in double quotes.
enum CSVTable {
    static func read(_ url: URL) throws -> [[String: String]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
        guard let header = lines.next().map(fields) else { return [] }
        var rows: [[String: String]] = []
        while let line = lines.next() {
            let cells = fields(line)
            rows.append(Dictionary(uniqueKeysWithValues: zip(header, cells)))
        }
        return rows
    }

    static func fields(_ line: Substring) -> [String] {
        var result: [String] = []
        var cell = ""
        var quoted = false
        var previous: Character?
        for c in line {
            if c == "\"" {
                if quoted, previous == "\"" { cell.append("\"") }
                quoted.toggle()
            } else if c == ",", !quoted {
                result.append(cell)
                cell = ""
            } else {
                cell.append(c)
            }
            previous = c
        }
        result.append(cell)
        return result
    }
}

/// The table of `docs/VALIDATION.md`: rows whose first cell is a check's `id` in
/// backticks; the columns are id, observation, source, commands, expected, measured.
struct ValidationTable {
    struct Row {
        var id: String
        var commands: String
        var expected: String
        var measured: String
        var line: Int
    }

    var lines: [String]
    var rows: [Row]

    static func read(_ url: URL) throws -> ValidationTable {
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var rows: [Row] = []
        for (n, line) in lines.enumerated() {
            let cells = cells(line)
            guard cells.count == 6, cells[0].hasPrefix("`"), cells[0].hasSuffix("`") else { continue }
            rows.append(Row(id: String(cells[0].dropFirst().dropLast()), commands: unquote(cells[3]),
                            expected: cells[4], measured: cells[5], line: n))
        }
        return ValidationTable(lines: lines, rows: rows)
    }

    /// The cells of a Markdown table row, trimmed ("" cells kept), or [] for other lines.
    static func cells(_ line: String) -> [String] {
        guard line.hasPrefix("|"), line.hasSuffix("|") else { return [] }
        return line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The commands cell without its code marks: "`a`; `b`" → "a; b".
    static func unquote(_ cell: String) -> String {
        cell.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "<br>", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    mutating func setMeasured(id: String, to text: String) {
        guard let k = rows.firstIndex(where: { $0.id == id }) else { return }
        var cells = Self.cells(lines[rows[k].line])
        cells[5] = text
        lines[rows[k].line] = "| " + cells.joined(separator: " | ") + " |"
        rows[k].measured = text
    }

    func write(_ url: URL) throws {
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    }
}

/// One documented observation: the commands that measure it, how its figure is read
/// from their reports, and the range the observation allows.
struct ValidationCheck: Sendable {
    var id: String
    /// `widgetsim` arguments of each command, as the table shows them.
    var commands: [[String]]
    var expected: ClosedRange<Double>
    var expectedText: String
    var decimals: Int
    var measure: @Sendable (Runs) throws -> Double

    func format(_ x: Double) -> String { String(format: "%.\(decimals)f", x) }
}

extension ValidationCheck {
    static let all: [ValidationCheck] = [frequentWidget, frequentSpacing, rarelyViewed, eveningFreeze, freezeCure,
                                         standbyRate, freeReloads, relevanceScale, relevancePeaks, relevanceHorizon,
                                         relevanceDurationZero, rotationLimits, referenceAccuracy,
                                         referenceStale, referenceTimeline, logModelAgrees, logModelOrder,
                                         logBurstyAccuracy, logBurstyStale, logBurstyOrder]

    static let rarelyViewedRun = [["run", "scenarios/validation/rarely-viewed.yaml",
                                   "--out", "reports/validation/rarely-viewed"]]

    /// Charged reloads per measured day of one widget under one budget, over every person.
    static func chargedPerDay(_ runs: Runs, budget: String, widget: String) throws -> Double {
        let rows = try runs.rows("widget_days.csv").filter {
            $0["budget"] == budget && $0["widget"] == widget && $0["warmup"] == "0"
        }
        try #require(!rows.isEmpty, "no widget_days rows for \(budget) \(widget)")
        return rows.reduce(0) { $0 + (Double($1["reloads_charged"] ?? "") ?? .nan) } / Double(rows.count)
    }

    /// A widget seen at every view gets 40–70 charged reloads a day under `view_weighted`.
    static let frequentWidget = ValidationCheck(
        id: "frequent-widget", commands: rarelyViewedRun,
        expected: 40 ... 70, expectedText: "40 … 70", decimals: 1,
        measure: { runs in try chargedPerDay(runs, budget: "view_weighted", widget: "favourite") })

    /// … which is one charged reload every 15 to 60 minutes: the day's minutes over them.
    static let frequentSpacing = ValidationCheck(
        id: "frequent-spacing", commands: rarelyViewedRun,
        expected: 15 ... 60, expectedText: "15 … 60", decimals: 1,
        measure: { runs in 1440 / (try chargedPerDay(runs, budget: "view_weighted", widget: "favourite")) })

    /// Widgets seen rarely or never get well below 40: the larger of the two.
    static let rarelyViewed = ValidationCheck(
        id: "rarely-viewed", commands: rarelyViewedRun,
        expected: 0 ... 20, expectedText: "≤ 20", decimals: 1,
        measure: { runs in
            max(try chargedPerDay(runs, budget: "view_weighted", widget: "occasional"),
                try chargedPerDay(runs, budget: "view_weighted", widget: "forgotten"))
        })

    static let eveningRun = [["run", "scenarios/validation/evening-freeze.yaml", "--trace",
                              "reports/validation/evening-freeze.csv", "--out", "reports/validation/evening-freeze"]]

    /// The stale shares of `ios_like`'s views from day 1 (the first budget day ends on
    /// day 1): 08–12 h, 19–23 h, and 19–23 h within 10 minutes after the app was opened.
    static func eveningShares(_ runs: Runs, budget: String) throws -> (morning: Double, evening: Double, opened: Double) {
        var lastOpened: [String: Double] = [:]
        var counts = [0.0, 0, 0], stale = [0.0, 0, 0]
        for row in try runs.trace() where row["budget"] == budget {
            guard let t = Double(row["time_seconds"] ?? ""), let person = row["person"] else { continue }
            if row["event"] == "session_start" { lastOpened[person] = t }
            guard row["event"] == "view", t >= 86_400 else { continue }
            let hour = Int(t.truncatingRemainder(dividingBy: 86_400) / 3_600)
            let isStale = (row["detail"] ?? "").contains(", stale") ? 1.0 : 0
            if (8 ..< 12).contains(hour) { counts[0] += 1; stale[0] += isStale }
            if (19 ..< 23).contains(hour) {
                counts[1] += 1; stale[1] += isStale
                if let opened = lastOpened[person], t - opened <= 600 { counts[2] += 1; stale[2] += isStale }
            }
        }
        try #require(counts.allSatisfy { $0 > 0 }, "no views in some window: \(counts)")
        return (stale[0] / counts[0], stale[1] / counts[1], stale[2] / counts[2])
    }

    /// The evening freeze: `ios_like`'s evening stale share less its morning one.
    static let eveningFreeze = ValidationCheck(
        id: "evening-freeze", commands: eveningRun,
        expected: 0.2 ... 1, expectedText: "≥ 0.20", decimals: 2,
        measure: { runs in
            let s = try eveningShares(runs, budget: "ios_like")
            return s.evening - s.morning
        })

    /// Its cure: the evening stale share in the 10 minutes after opening the app, as a
    /// share of the evening's.
    static let freezeCure = ValidationCheck(
        id: "freeze-cure", commands: eveningRun,
        expected: 0 ... 0.5, expectedText: "≤ 0.50", decimals: 2,
        measure: { runs in
            let s = try eveningShares(runs, budget: "ios_like")
            return s.opened / s.evening
        })

    /// StandBy refreshes at the system's rate: the largest relative difference between
    /// the StandBy refreshes of four widgets with different reload policies.
    static let standbyRate = ValidationCheck(
        id: "standby-rate",
        commands: [["run", "scenarios/validation/standby-rate.yaml", "--out", "reports/validation/standby-rate"]],
        expected: 0 ... 0, expectedText: "0", decimals: 3,
        measure: { runs in
            var spread = 0.0
            let rows = try runs.rows("widget_days.csv")
            for budget in Set(rows.compactMap { $0["budget"] }) {
                var byWidget: [String: Double] = [:]
                for row in rows where row["budget"] == budget {
                    byWidget[row["widget"] ?? "", default: 0] += Double(row["reloads_standby"] ?? "") ?? .nan
                }
                try #require(byWidget.count == 4 && byWidget.values.allSatisfy { $0 > 0 }, "\(budget): \(byWidget)")
                let most = byWidget.values.max()!, least = byWidget.values.min()!
                spread = max(spread, (most - least) / most)
            }
            return spread
        })

    /// Every free reason reloads while a one-a-day budget is spent: the smallest count of
    /// the seven free reasons, and charged reloads that are not timeline or background
    /// ones (must be none), and no widget-day above its one charged reload.
    static let freeReloads = ValidationCheck(
        id: "free-reloads",
        commands: [["run", "scenarios/validation/free-reloads.yaml", "--out", "reports/validation/free-reloads"]],
        expected: 1 ... .infinity, expectedText: "≥ 1", decimals: 0,
        measure: { runs in
            let free = ["foreground", "interaction", "time_change", "environment", "audio", "widget_added", "standby"]
            let counts = try free.map { try runs.summary("reloads_" + $0) }
            let charged = try runs.summary("reloads_charged")
            let asked = try runs.summary("reloads_timeline") + runs.summary("reloads_background")
            try #require(charged == asked, "charged reloads \(charged) ≠ timeline + background \(asked)")
            let perDay = try runs.rows("widget_days.csv").compactMap { Double($0["reloads_charged"] ?? "") }
            try #require(perDay.allSatisfy { $0 <= 1 }, "a widget-day has more than one charged reload")
            return counts.min() ?? 0
        })

    /// Relevance rankings do not change when one widget's scores are multiplied by 100:
    /// the largest difference of rotations per person-day between the two runs.
    static let relevanceScale = ValidationCheck(
        id: "relevance-scale",
        commands: [["run", "scenarios/validation/relevance-scale.yaml", "--out", "reports/validation/relevance-scale"],
                   ["run", "scenarios/validation/relevance-scale.yaml", "--set", "widgets.calendar.relevance.score=1000",
                    "--set", "widgets.calendar.relevance.baseline=100", "--out", "reports/validation/relevance-scaled"]],
        expected: 0 ... 0, expectedText: "0", decimals: 3,
        measure: { runs in
            var largest = 0.0
            for ranking in ["relevance", "hybrid", "ios_like"] {
                let a = try runs.summary("rotations_per_day", run: 0, where: ["ranking": ranking])
                let b = try runs.summary("rotations_per_day", run: 1, where: ["ranking": ranking])
                largest = max(largest, abs(a - b))
            }
            return largest
        })

    static let relevanceRankings = ["relevance", "hybrid", "ios_like", "empirical_bayes"]
    static let peaksRun = ["run", "scenarios/validation/relevance-peaks.yaml", "--out", "reports/validation/relevance-peaks"]

    /// Rotations per person-day of each relevance ranking over days `days` of run `k`.
    static func rotations(_ runs: Runs, run k: Int, ranking: String, days: ClosedRange<Int>) throws -> Double {
        let rows = try runs.rows("daily.csv", run: k).filter {
            $0["ranking"] == ranking && (Int($0["day"] ?? "").map { days.contains($0) } ?? false)
        }
        try #require(rows.count == days.count, "\(ranking): \(rows.count) daily rows for days \(days)")
        return rows.reduce(0) { $0 + (Double($1["rotations_per_day"] ?? "") ?? .nan) } / Double(rows.count)
    }

    /// The largest difference of rotations per person-day, over the whole run, between
    /// runs 0 and 1 of a check, over the relevance rankings.
    static func largestDifference(_ runs: Runs) throws -> Double {
        var largest = 0.0
        for ranking in relevanceRankings {
            let a = try runs.summary("rotations_per_day", run: 0, where: ["ranking": ranking])
            let b = try runs.summary("rotations_per_day", run: 1, where: ["ranking": ranking])
            largest = max(largest, abs(a - b))
        }
        return largest
    }

    /// A peak keeps rotating in: week 4's rotations over week 1's, the least of the
    /// relevance rankings.
    static let relevancePeaks = ValidationCheck(
        id: "relevance-peaks", commands: [peaksRun],
        expected: 0.5 ... .infinity, expectedText: "≥ 0.50", decimals: 2,
        measure: { runs in
            try relevanceRankings.map { ranking in
                let first = try rotations(runs, run: 0, ranking: ranking, days: 0 ... 6)
                try #require(first > 0, "\(ranking) does not rotate in week 1")
                return try rotations(runs, run: 0, ranking: ranking, days: 21 ... 27) / first
            }.min() ?? 0
        })

    /// The history does not depend on the horizon: 12 h against 1 h.
    static let relevanceHorizon = ValidationCheck(
        id: "relevance-horizon",
        commands: [peaksRun, ["run", "scenarios/validation/relevance-peaks.yaml", "--set", "widgets.calendar.timeline.horizon=1h",
                              "--out", "reports/validation/relevance-peaks-1h"]],
        expected: 0 ... 0, expectedText: "0", decimals: 3,
        measure: { runs in try largestDifference(runs) })

    /// Duration 0 with meetings of length L behaves as duration L.
    static let relevanceDurationZero = ValidationCheck(
        id: "relevance-duration-zero",
        commands: [peaksRun, ["run", "scenarios/validation/relevance-peaks.yaml", "--set", "widgets.calendar.relevance.duration=0s",
                              "--out", "reports/validation/relevance-peaks-duration-0"]],
        expected: 0 ... 0, expectedText: "0", decimals: 3,
        measure: { runs in try largestDifference(runs) })

    /// The most changes of the top in one person-day under the governor's limits (a
    /// bound of 8 for this stack), read from the trace.
    static let rotationLimits = ValidationCheck(
        id: "rotation-limits",
        commands: [["run", "scenarios/validation/rotation-limits.yaml", "--trace", "reports/validation/rotation-limits.csv",
                    "--out", "reports/validation/rotation-limits"]],
        expected: 1 ... 8, expectedText: "1 … 8", decimals: 0,
        measure: { runs in
            var top: [String: String] = [:]
            var changes: [String: Int] = [:]
            for row in try runs.trace() where row["event"] == "view" {
                guard let person = row["person"], let seconds = Double(row["time_seconds"] ?? ""),
                      let shown = row["top_widget"], !shown.isEmpty else { continue }
                let day = Int(seconds / 86_400)
                if let last = top[person], last != String(shown) { changes["\(person)/\(day)", default: 0] += 1 }
                top[person] = String(shown)
            }
            return Double(changes.values.max() ?? 0)
        })

    /// The reference workload against the independent C implementation
    /// (`scenarios/bench-reference.yaml`): its figures at 2,000 people × 7 days, seed 1, were
    /// accuracy 0.312196, stale share 0.102078, 1,355,952 timeline reloads (96.854 a
    /// person-day). WidgetSim draws other random numbers, so its figures at 50 people
    /// agree within sampling error: about 3 standard errors of the two runs together.
    static let referenceRun = [["run", "scenarios/bench-reference.yaml", "--people", "50",
                                "--out", "reports/validation/bench-reference"]]

    static let referenceAccuracy = ValidationCheck(
        id: "reference-accuracy", commands: referenceRun,
        expected: 0.302 ... 0.322, expectedText: "0.312 ± 0.010", decimals: 4,
        measure: { runs in try runs.summary("accuracy") })

    static let referenceStale = ValidationCheck(
        id: "reference-stale", commands: referenceRun,
        expected: 0.094 ... 0.110, expectedText: "0.102 ± 0.008", decimals: 4,
        measure: { runs in try runs.summary("stale_top_share") })

    static let referenceTimeline = ValidationCheck(
        id: "reference-timeline", commands: referenceRun,
        expected: 95.35 ... 98.35, expectedText: "96.85 ± 1.5", decimals: 2,
        measure: { runs in try runs.summary("reloads_timeline") / (50 * 7) })

    /// A log of the person model and one with bursts, each replayed (run 1) and run
    /// as its calibrated counterpart (run 2): `scenarios/validation/log-*.yaml`.
    static func logRuns(_ kind: String) -> [[String]] {
        let prefix = kind == "people" ? "log" : "log-bursty"
        return [["log", "scenarios/validation/log-people.yaml", "--format", "lsapp"] + (kind == "people" ? [] : ["--burst", "0.5"])
                    + ["--out", "reports/validation/logs/\(kind).tsv"],
                ["run", "scenarios/validation/\(prefix)-replayed.yaml", "--out", "reports/validation/\(prefix)-replayed"],
                ["run", "scenarios/validation/\(prefix)-calibrated.yaml", "--out", "reports/validation/\(prefix)-calibrated"]]
    }

    static let logRankings = ["static", "time_of_day", "empirical_bayes"]
    static let logBudgets = ["daily_quota", "ios_like", "unlimited"]

    /// Each ranking's accuracy (under the first budget) and each budget's stale member
    /// share (under the first ranking), replayed and calibrated, with half-widths.
    static func logFigures(_ runs: Runs) throws -> [(name: String, replayed: (mean: Double, half: Double), calibrated: (mean: Double, half: Double))] {
        try logRankings.map { r in
            ("accuracy/\(r)", try runs.compared("accuracy", run: 1, budget: "daily_quota", ranking: r),
             try runs.compared("accuracy", run: 2, budget: "daily_quota", ranking: r))
        } + logBudgets.map { b in
            ("stale/\(b)", try runs.compared("stale_member_share", run: 1, budget: b, ranking: "static"),
             try runs.compared("stale_member_share", run: 2, budget: b, ranking: "static"))
        }
    }

    /// Calibrated less replayed, over the half-width of that difference (the two runs
    /// are independent: the root of the sum of squares).
    static func standardised(_ f: (name: String, replayed: (mean: Double, half: Double), calibrated: (mean: Double, half: Double))) -> Double {
        (f.calibrated.mean - f.replayed.mean) / (f.replayed.half * f.replayed.half + f.calibrated.half * f.calibrated.half).squareRoot()
    }

    /// Of the pairs of rankings (by accuracy) and of budgets (by stale share) that the
    /// replayed log orders beyond their intervals, those the calibrated world orders the other way.
    static func reversedPairs(_ runs: Runs) throws -> Double {
        let figures = try logFigures(runs)
        var reversed = 0
        for group in [Array(figures.prefix(3)), Array(figures.suffix(3))] {
            for i in group.indices {
                for j in group.indices where j > i {
                    let a = group[i], b = group[j]
                    let gap = a.replayed.mean - b.replayed.mean
                    guard abs(gap) > (a.replayed.half * a.replayed.half + b.replayed.half * b.replayed.half).squareRoot() else { continue }
                    if (a.calibrated.mean - b.calibrated.mean) * gap <= 0 { reversed += 1 }
                }
            }
        }
        return Double(reversed)
    }

    /// The model's log: the largest disagreement, in half-widths, of the six figures.
    static let logModelAgrees = ValidationCheck(
        id: "log-model-agrees", commands: logRuns("people"),
        expected: 0 ... 1, expectedText: "≤ 1", decimals: 2,
        measure: { runs in try logFigures(runs).map { abs(standardised($0)) }.max() ?? .nan })

    static let logModelOrder = ValidationCheck(
        id: "log-model-order", commands: logRuns("people"),
        expected: 0 ... 0, expectedText: "0", decimals: 0,
        measure: { runs in try reversedPairs(runs) })

    /// The bursty log: the rankings' accuracies still agree …
    static let logBurstyAccuracy = ValidationCheck(
        id: "log-bursty-accuracy", commands: logRuns("bursty"),
        expected: 0 ... 1, expectedText: "≤ 1", decimals: 2,
        measure: { runs in try logFigures(runs).prefix(3).map { abs(standardised($0)) }.max() ?? .nan })

    /// … the rationing budgets' stale shares do not: the calibrated world is fresher,
    /// by at least one half-width (the smaller of `daily_quota` and `ios_like`).
    static let logBurstyStale = ValidationCheck(
        id: "log-bursty-stale", commands: logRuns("bursty"),
        expected: 1 ... .infinity, expectedText: "≥ 1", decimals: 2,
        measure: { runs in try logFigures(runs)[3 ..< 5].map { -standardised($0) }.min() ?? .nan })

    static let logBurstyOrder = ValidationCheck(
        id: "log-bursty-order", commands: logRuns("bursty"),
        expected: 0 ... 0, expectedText: "0", decimals: 0,
        measure: { runs in try reversedPairs(runs) })
}
