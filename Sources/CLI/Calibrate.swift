import ArgumentParser
import Foundation
import WidgetSimTrace

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fit the person model to an app-usage log and write a scenario.",
        usage: "widgetsim calibrate <trace> --format <format> --out <out> [<options>]",
        discussion: """
        Reads a usage log in one streaming pass and fits, by maximum likelihood,
        what the synthetic people of a scenario are made of: sessions per day (and
        how people differ), the hour profile of sessions, each app's interest by
        hour and weekday, the log-normal session length, and, where the log has
        them, donations and home-screen views. Writes a scenario with those values,
        each with its 95% interval in a comment, and prints a goodness-of-fit table
        (sessions by hour, observed and expected, with a chi-square test) and what
        the model cannot follow (weekday totals, day-to-day swings, bursts).

        Formats (scenarios/README.md, "Usage logs", has the details):
          lsapp  tab-separated user_id, session_id, timestamp, app_name,
                 event_type, as the public LSApp data set: each Opened event is
                 a session, until the app's Closed event
          csv    person,start,end,app,kind with kind session, donation, push
                 or view; start and end as 2026-03-02 08:15:00, optionally
                 with Z or +01:00

        Timestamps without an offset are read in --time-zone. Each --app maps a
        widget id to an app name of the log; without any, the 6 apps with the most
        sessions become widgets. A malformed line stops the reading with its
        file:line; skipped lines are counted in warnings.

        Example:
          widgetsim calibrate usage.tsv --format lsapp --time-zone Europe/Rome
              --app mail=Gmail --app news="Google News" --out calibrated.yaml
          widgetsim run calibrated.yaml
        (the first command is one line, folded here).
        """)

    @Argument(help: "The usage log.", completion: .file())
    var trace: String

    @Option(help: ArgumentHelp("The log's layout: lsapp or csv.", valueName: "format"))
    var format: String

    @Option(help: "The time zone of timestamps without an offset, and of the scenario. (default: none: timestamps must carry an offset, read as written)")
    var timeZone: String?

    @Option(help: ArgumentHelp("A widget and the log's name of its app; repeat for each. (default: the 6 apps with the most sessions)", valueName: "WIDGET=NAME"))
    var app: [String] = []

    @Option(help: "The scenario file to write.")
    var out: String

    @Option(help: "The scenario's name.")
    var name = "calibrated"

    func validate() throws {
        guard TraceFormat(rawValue: format) != nil else {
            throw ValidationError("--format is lsapp or csv; got `\(format)`")
        }
        if let zone = timeZone, TimeZone(identifier: zone) == nil {
            throw ValidationError("--time-zone: `\(zone)` is not a time zone of the tz database (e.g. Europe/Rome)")
        }
        var seen = Set<String>()
        for a in app {
            guard let (widget, name) = Self.mapping(a) else {
                throw ValidationError("--app is WIDGET=NAME (e.g. mail=Gmail); got `\(a)`")
            }
            guard widget.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) else {
                throw ValidationError("--app: the widget id `\(widget)` may hold letters, digits, -, _ and . only")
            }
            guard seen.insert(widget).inserted else { throw ValidationError("--app: the widget `\(widget)` is given twice") }
            _ = name
        }
        if app.count > 10 { throw ValidationError("--app: at most 10 widgets (a Smart Stack holds 10)") }
    }

    static func mapping(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let widget = String(text[..<eq]), name = String(text[text.index(after: eq)...])
        return widget.isEmpty || name.isEmpty ? nil : (widget, name)
    }

    func run() throws {
        let zone = timeZone.flatMap(TimeZone.init(identifier:))
        let result: TraceCalibrator.Result
        do {
            result = try TraceCalibrator.calibrate(
                path: trace, format: TraceFormat(rawValue: format)!, zone: zone,
                apps: app.compactMap(Self.mapping).map { (widget: $0.0, app: $0.1) })
        } catch {
            printError("widgetsim calibrate: \(error)")
            throw ExitCode(2)
        }
        for w in result.warnings { printError(w.description) }
        let yaml = result.calibration.scenarioYAML(name: name, source: (trace as NSString).lastPathComponent, timeZone: timeZone)
        do {
            try Data(yaml.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            printError("widgetsim calibrate: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        print("\(trace): \(result.lines) lines; widgets: "
            + result.apps.map { "\($0.widget)=\"\($0.app)\"" }.joined(separator: ", "))
        print(result.calibration.fitReport, terminator: "")
        print("Wrote \(out).")
    }
}
