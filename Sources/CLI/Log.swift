import ArgumentParser
import Foundation
import WidgetSimModel
import WidgetSimScenario
import WidgetSimTrace

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the app sessions of a scenario's synthetic people as a usage log.",
        usage: "widgetsim log <scenario> --format <format> --out <out> [<options>]",
        discussion: """
        Draws the people of a scenario (replication 0, its seed) as a run would and
        writes their app sessions as a usage log, in a layout that `widgetsim
        calibrate` and a scenario's `trace:` read: a log made from known
        parameters. Calibrating it should give those parameters back within their
        intervals, and replaying it should give what the scenario gives: a round
        trip to check a pipeline with, before a real log goes through it.

        Formats (scenarios/README.md, "Usage logs"):
          lsapp  tab-separated user_id, session_id, timestamp, app_name,
                 event_type: an Opened and a Closed line per session, local
                 time in whole seconds with no offset (read it back with
                 --time-zone set to the scenario's time_zone). A session whose
                 app is opened again before its end ends there. The hour
                 repeated when clocks go back reads as out of order: around
                 such a change, use csv.
          csv    person,start,end,app,kind: a session line per session, a
                 donation line per donating session, a view line per
                 home-screen view; times to the millisecond with their offset.

        Each person is numbered as in a run (0 first); a session's app is its
        widget's `app`. --burst P adds what the person model cannot make: after
        each session, with probability P, the person opens the same app again
        0 to 20 s after closing it, for a session of the model's length (the
        second session starts no burst of its own). `widgetsim calibrate` names
        such bursts in its misfit report. --burst-within S widens the 20 s: with
        hours, the second sessions swing a person's days without bunching.

        Example:
          widgetsim log scenarios/tiny.yaml --format lsapp --out usage.tsv
          widgetsim calibrate usage.tsv --format lsapp --time-zone Europe/Berlin
              --out calibrated.yaml
        (the second command is one line, folded here).
        """)

    @Argument(help: "The scenario file (YAML).", completion: .file())
    var scenario: String

    @Option(help: ArgumentHelp("The log's layout: lsapp or csv.", valueName: "format"))
    var format: String

    @Option(help: "The log file to write (replaced if it exists).")
    var out: String

    @Option(help: "People. (default: the scenario's `people`)")
    var people: Int?

    @Option(help: "Days. (default: the scenario's `days`)")
    var days: Int?

    @Option(help: "The seed, 0…2^63−1. (default: the scenario's `seed`)")
    var seed: UInt64?

    @Option(help: ArgumentHelp("The probability, 0…1, that a session starts a burst. (default: 0, none)", valueName: "P"))
    var burst: Double?

    @Option(help: ArgumentHelp("The longest wait, in seconds, before a burst's second session. (default: 20)", valueName: "S"))
    var burstWithin: Double?

    func validate() throws {
        guard TraceFormat(rawValue: format) != nil else {
            throw ValidationError("--format is lsapp or csv; got `\(format)`")
        }
        if let people, !(1 ... 10_000_000).contains(people) {
            throw ValidationError("--people is a whole number 1…10000000; got \(people)")
        }
        if let days, !(1 ... 100_000).contains(days) {
            throw ValidationError("--days is a whole number 1…100000; got \(days)")
        }
        if let seed, seed > UInt64(Int64.max) {
            throw ValidationError("--seed is a whole number 0…9223372036854775807; got \(seed)")
        }
        let burst = self.burst ?? 0, burstWithin = self.burstWithin ?? 20
        guard (0 ... 1).contains(burst) else {
            throw ValidationError("--burst is a probability 0…1; got \(burst)")
        }
        guard burstWithin >= 0, burstWithin <= 86_400 else {
            throw ValidationError("--burst-within is a number of seconds 0…86400; got \(burstWithin)")
        }
    }

    func run() throws {
        var s: WidgetSimModel.Scenario
        do {
            s = try ScenarioLoader.load(path: scenario, policies: WidgetSimCLI.policies)
        } catch {
            printError(error.description)
            throw ExitCode(2)
        }
        if let people { s.people = people }
        if let days { s.days = days }
        if let seed { s.seed = seed }
        let burst = self.burst ?? 0, burstWithin = self.burstWithin ?? 20
        let summary: SyntheticLog.Summary
        do {
            let folder = URL(fileURLWithPath: out).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw SyntheticLog.Problem.write("cannot write \(out): cannot make its folder: \(error.localizedDescription)")
            }
            summary = try SyntheticLog.write(scenario: s, file: scenario, format: TraceFormat(rawValue: format)!,
                                             burst: burst, burstWindowMs: Int64((burstWithin * 1000).rounded()), to: out)
        } catch {
            printError("widgetsim log: \(error)")
            throw ExitCode(2)
        }
        var text = "Wrote \(out): \(summary.people) people × \(s.days) days, \(summary.sessions) sessions"
        if burst > 0 { text += " (\(summary.burstSessions) of them in bursts)" }
        if summary.cut > 0 { text += ", \(summary.cut) cut short where their app was opened again" }
        print(text + ", \(summary.lines) lines.")
        print("Its app names (for --app and trace: apps): "
            + Array(NSOrderedSet(array: s.widgets.map(\.app))).map { "\($0)" }.joined(separator: ", ") + ".")
    }
}
