import Foundation
import WidgetSimModel

/// The size of a run, estimated before it starts from the scenario (every study point),
/// the options and the threads: events, wall time and peak memory. `widgetsim run`
/// prints it for a run that will take a while, and refuses a run that will not fit in
/// this machine's memory or would take more than a day, unless told `--i-know`.
///
/// Events per person-day and policy pair are the `RunGuard` shares at each rate's mean
/// (no spread). Time and memory come from costs measured on release builds
/// (`scenarios/README.md`, "Bounds"): about 0.15 µs of CPU per event on one thread (the
/// shipped scenarios take 0.07–0.19 µs, writing their CSVs included), and 5 KiB
/// per simulated day, widget and policy pair for each person a thread holds (the
/// person's counters and histories), beside the person's world and a fixed 40 MB. The estimate
/// is meant to be right within a factor of 1.5, not an upper bound.
public struct RunEstimate: Sendable {
    public static let secondsPerEvent = 0.15e-6
    public static let bytesPerWidgetDayAndPair = 5_120.0
    public static let fixedBytes = 40.0 * 1_048_576
    /// Longest run started without `--i-know`.
    public static let secondsLimit = 86_400.0

    public var events: Double
    /// People × days × pairs × replications, over every point.
    public var personDays: Double
    public var seconds: Double
    public var bytes: Double
    /// Threads that run at once (no more than the blocks of the run).
    public var threads: Int
    /// Rows of widget_days.csv (person × day × pair × widget instance × replication, every
    /// point), and the file's size: each row's names (run id, scenario, labels, widget id,
    /// the study's values) as they are, and `widgetDayNumberBytes` for its numbers.
    public var widgetDayRows: Double = 0
    public var widgetDaysBytes: Double = 0
    /// The numbers of one widget_days.csv row, in bytes (about 75 on `tiny.yaml`, more
    /// with larger counts).
    public static let widgetDayNumberBytes = 80.0
    /// The size of widget_days.csv above which `widgetsim run` warns before it starts.
    public static let widgetDaysWarning = 1e9

    public init(_ points: [Scenario], threads: Int) {
        var events = 0.0, personDays = 0.0, perThread = 0.0, blocks = 0
        for s in points {
            let pairs = Double(s.policyPairs.count)
            let days = Double(s.people) * Double(s.days) * Double(s.replications) * pairs
            personDays += days
            events += days * Self.eventsPerPersonDay(s)
            perThread = max(perThread, Double(s.days) * pairs * Double(s.widgets.count) * Self.bytesPerWidgetDayAndPair
                                + Self.worldBytes(s))
            blocks += max(1, min(s.people, 64)) * s.replications
            func mean(_ texts: [String]) -> Double {
                texts.isEmpty ? 0 : Double(texts.reduce(0) { $0 + $1.utf8.count }) / Double(texts.count)
            }
            let rows = days * Double(s.widgets.count)
            let names = 17 + Double(s.name.utf8.count) + mean(s.budgets.map(\.label)) + mean(s.rankings.map(\.label))
                + mean(s.widgets.map(\.id)) + 5
            widgetDayRows += rows
            widgetDaysBytes += rows * (names + Self.widgetDayNumberBytes)
        }
        let running = max(1, min(threads, blocks))
        self.events = events
        self.personDays = personDays
        self.threads = running
        seconds = events * Self.secondsPerEvent / Double(running)
        bytes = Self.fixedBytes + Double(running) * perThread
    }

    /// Events per person-day under one policy pair, at the rates' means. A timeline
    /// reloaded at its end asks again once per horizon (the guard's bound assumes once
    /// per entry spacing).
    public static func eventsPerPersonDay(_ s: Scenario) -> Double {
        var mean = s
        mean.person.viewsPerDay.cv = 0
        mean.person.sessionsPerDay.cv = 0
        for i in mean.widgets.indices where mean.widgets[i].timeline.reload == .atEnd {
            mean.widgets[i].timeline.entrySpacingMs = max(mean.widgets[i].timeline.entrySpacingMs, mean.widgets[i].timeline.horizonMs)
        }
        let shares = RunGuard.eventShares(mean, budgetParameters: { _ in nil })
        return shares.reduce(0) { $0 + $1.amount }
    }

    /// One person's world at the rates' means (views, sessions, content changes).
    static func worldBytes(_ s: Scenario) -> Double {
        var mean = s
        mean.person.viewsPerDay.cv = 0
        mean.person.sessionsPerDay.cv = 0
        return RunGuard.memoryShares(mean).filter { $0.path != "days" }.reduce(0) { $0 + $1.amount }
    }

    /// This machine's memory, in bytes.
    public static var machineBytes: Double {
        Double(sysconf(Int32(_SC_PHYS_PAGES))) * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Why the run should not start without `--i-know`, or nil.
    public func refusal(machineBytes: Double = RunEstimate.machineBytes) -> String? {
        if bytes > machineBytes {
            return "it would need about \(RunGuard.bytes(bytes)) of memory on \(threads) thread\(threads == 1 ? "" : "s"), more than this machine's \(RunGuard.bytes(machineBytes)) (fewer --threads, --days or policies need less)"
        }
        if seconds > Self.secondsLimit {
            return "it would run for about \(Self.duration(seconds)) on \(threads) thread\(threads == 1 ? "" : "s"), more than a day"
        }
        return nil
    }

    /// What `widgetsim run` says before writing more than `widgetDaysWarning` bytes of
    /// widget_days.csv, or nil below that.
    public var widgetDaysWarningText: String? {
        guard widgetDaysBytes > Self.widgetDaysWarning else { return nil }
        return "widget_days.csv will be about \(RunGuard.bytes(widgetDaysBytes)) (\(RunGuard.format(widgetDayRows)) rows, "
            + "one per person, day, policy pair and widget); add --no-widget-days to skip it "
            + "(every other report is written as usual)"
    }

    /// `about 12,000 events (3,000 person-days), 2 s on 2 threads, peak memory 45 MB`.
    public var description: String {
        "about \(RunGuard.format(events)) events (\(RunGuard.format(personDays)) person-days × policy pairs), "
            + "\(Self.duration(seconds)) on \(threads) thread\(threads == 1 ? "" : "s"), peak memory about \(RunGuard.bytes(bytes))"
    }

    static func duration(_ s: Double) -> String {
        guard s.isFinite else { return "forever" }
        if s < 120 { return String(format: "%.0f s", s) }
        if s < 7200 { return String(format: "%.0f min", s / 60) }
        if s < 172_800 { return String(format: "%.1f hours", s / 3600) }
        if s < 3.15e9 { return String(format: "%.0f days", s / 86400) }
        return String(format: "%.2g years", s / 3.15e7)
    }
}
