import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimScenario

/// `widgetsim bound`: per person, the bound of MODEL §4 ("What a phone can reach") for
/// each `oracle` budget of the scenario with `knows: views` or `knows: rates`, under
/// each ranking: the fewest stale member views any budget without the future can expect
/// at that cost.
struct Bound: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Per person, the fewest stale member views a budget that cannot read the future can expect.",
        usage: "widgetsim bound <scenario> [<options>]",
        discussion: """
        For each budget `oracle` with `knows: views` or `knows: rates` in the
        scenario, under each ranking, one CSV row per replication and person: the
        member views, the person's charged reloads K, the bound on the expected stale
        member views from content changes no push announces and, given in advance,
        those a push announces (no budget without the future expects fewer with K),
        what the bound's own plan expects and charges,
        what no charged reload leaves, and the stale member views the plan's run
        counted (MODEL §4, "What a phone can reach").
        """)

    @Argument(help: "The scenario file.")
    var scenario: String

    @Option(help: ArgumentHelp("Write the CSV to this file. (default: standard output)", valueName: "file"))
    var out: String?

    @Option(help: ArgumentHelp(
        "Also write, per person, the least expected stale member views plus a price per charged reload, and the reloads that least takes, at prices from 0 to 100 stale views a reload, to this CSV: summed over people at one price, less the price times the people's reloads together, a bound for budgets that spread those reloads over people as they like. (default: not written)",
        valueName: "file"))
    var prices: String?

    @Option(help: "Worker threads; the rows are the same whatever their number. (default: every core)")
    var threads: Int?

    @Option(name: .customLong("plan-hours"), help: ArgumentHelp(
        "Also write the reloads the plans grant, summed over people, per budget, ranking, widget and local hour, to this CSV. (default: not written)",
        valueName: "file"))
    var planHours: String?

    /// The prices `--prices` answers at: 0, then 120 from 0.001 to 100, evenly apart on a log scale.
    static let priceGrid = [0.0] + (0 ..< 120).map { pow(10, -3 + 5 * Double($0) / 119) }

    static let header = "budget,ranking,replication,person,member_views,reloads_allowed,reloads_planned,"
        + "stale_member_views_bound,stale_member_views_plan,stale_member_views_without_charges,stale_member_views_counted"

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        try checkOutputs()
        let s: Scenario
        do {
            s = try ScenarioLoader.load(path: scenario, policies: WidgetSimCLI.policies)
        } catch {
            printError(error.description)
            throw ExitCode(2)
        }
        // Each bound budget with its charged reloads per instance-day.
        let budgets = s.budgets.compactMap { b in BoundRunner.oracle(s, b).map { (choice: b, perDay: $0.perDay) } }
        guard !budgets.isEmpty else {
            printError("widgetsim: \(scenario): budgets: no `oracle` with `knows: views` or `knows: rates`, the budgets this bound is made for")
            throw ExitCode(2)
        }
        var lines = [Self.header]
        var priceLines = ["budget,ranking,replication,person,price,priced_stale_member_views,reloads"]
        var hourLines = ["budget,ranking,widget,hour,planned_reloads"]
        let workers = threads ?? ProcessInfo.processInfo.activeProcessorCount
        // Progress on stderr every 10 s: a person takes seconds, a study's people minutes.
        let total = budgets.count * s.rankings.count * s.replications * s.people
        let reported = Locked(Date())
        var done = 0
        for (b, perDay) in budgets {
            for r in s.rankings {
                let before = done
                let answers: [PersonBound?]
                do {
                    answers = try BoundRunner.run(
                        s, budget: b, ranking: r, prices: prices != nil ? Self.priceGrid : [], threads: workers
                    ) { finished in
                        reported.withLock { last in
                            guard Date().timeIntervalSince(last) >= 10 else { return }
                            printError("widgetsim: progress: bound: \(before + finished) of \(total) people done")
                            last = Date()
                        }
                    }
                } catch {
                    printError("widgetsim: \(scenario): \(error)")
                    throw ExitCode(2)
                }
                done += answers.count
                let k = OracleBudget.reloads(perDay: perDay, instances: s.widgets.count, days: s.days)
                var byHour = Array(repeating: Array(repeating: 0, count: 24), count: s.widgets.count)
                for (n, answer) in answers.enumerated() {
                    guard let a = answer else { continue }
                    let replication = "\(n / s.people)", person = "\(n % s.people)"
                    lines.append([b.label, r.label, replication, person, "\(a.memberViews)", "\(k)",
                                  "\(a.reloadsPlanned)", String(format: "%.4f", a.bound),
                                  String(format: "%.4f", a.plan), String(format: "%.4f", a.withoutCharges),
                                  "\(a.counted)"].joined(separator: ","))
                    for (w, hours) in a.plannedByHour.enumerated() {
                        for (h, n) in hours.enumerated() { byHour[w][h] += n }
                    }
                    for (mu, p) in zip(Self.priceGrid, a.priced) {
                        priceLines.append([b.label, r.label, replication, person, String(format: "%.6g", mu),
                                           String(format: "%.4f", p.value), "\(p.reloads)"].joined(separator: ","))
                    }
                }
                for (w, hours) in byHour.enumerated() {
                    for (h, n) in hours.enumerated() { hourLines.append("\(b.label),\(r.label),\(s.widgets[w].id),\(h),\(n)") }
                }
            }
        }
        if let planHours { try Self.write(hourLines, to: planHours) }
        if let prices { try Self.write(priceLines, to: prices) }
        if let out {
            try Self.write(lines, to: out)
        } else {
            print(lines.joined(separator: "\n"))
        }
    }

    /// Refuses, with status 2 and before anything runs, an output that is empty, a
    /// folder, the scenario file itself, or the path of another output of this command:
    /// each would be lost or would lose the scenario.
    func checkOutputs() throws {
        let outputs = [("--out", out), ("--prices", prices), ("--plan-hours", planHours)]
            .compactMap { name, path in path.map { (name, $0) } }
        var seen: [String: String] = [:]
        for (name, path) in outputs {
            func refuse(_ why: String) -> ExitCode {
                printError("widgetsim: bound: \(name) \(displayed(path)) \(why)")
                return ExitCode(2)
            }
            if path.isEmpty { throw refuse("is empty; give it a file name") }
            var info = stat()
            if stat(path, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFDIR { throw refuse("is a folder; give it a file name") }
                if isSameFile(info, as: scenario) {
                    throw refuse("is the scenario file; give the output another name")
                }
            }
            let key = resolved(URL(fileURLWithPath: path)).path
            if let other = seen[key] { throw refuse("is also given to \(other); give each output a name of its own") }
            seen[key] = name
        }
    }

    static func write(_ lines: [String], to path: String) throws {
        do {
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("widgetsim: cannot write \(path): \(error.localizedDescription)")
            throw ExitCode(1)
        }
    }
}
