import Foundation
import WidgetSimModel

/// The size of a run, estimated before it starts from the scenario (every study point),
/// the options and the threads: events, CPU and wall time, and peak memory.
/// `widgetsim run` prints it for a run that will take a while (or always, with
/// `--estimate`), and refuses a run that will not fit in this machine's memory or would
/// take more than a day, unless told `--i-know`.
///
/// Events per person-day and policy pair are the `RunGuard` shares at each rate's mean
/// (no spread). Time and memory are sums of costs, each measured on release builds
/// (`scripts/estimate-check`; `scenarios/README.md`, "The size of a run"): the estimate
/// is meant to be right within a factor of 1.5, not an upper bound.
public struct RunEstimate: Sendable {
    /// CPU seconds of the parts of a run, on one thread of a release build, fitted to 19
    /// measured runs (`scripts/estimate-check --fit`; docs/PERFORMANCE.md, "The size of a
    /// run"). Engine events other than views and widget_days.csv rows are not priced
    /// apart: their costs follow the widget-days (one reload, change or row per widget and
    /// day) and fitting them apart gave no better estimate.
    public enum Cost {
        /// Start-up, reading the scenario, and writing the reports of a small run.
        public static let startSeconds = 0.090
        /// A candidate session of a person's world, drawn once for the person whatever the
        /// policy pairs that then run on it. Sessions are drawn as often as interest can
        /// burst (`WorldBuilder.sessionBurstBound` times their rate) and thinned, each
        /// candidate weighing every widget's interest: the dearest part of a world (its
        /// views, content changes and merge were within the runs' noise).
        public static let worldSessionSeconds = 0.34e-6
        /// A view (on the lock screen or in StandBy), per member of the stack ranked at it.
        public static let viewMemberSeconds = 0.0185e-6
        /// A simulated day of one widget under one policy pair: its events and counters.
        public static let widgetDaySeconds = 3.06e-6
        /// The same, again for each doubling of the person's daily counters beyond 1 MB
        /// (`widgetDayCacheBytes` × days × pairs × widgets): a long run's person outgrows
        /// the processor's caches.
        public static let widgetDayPerDoublingSeconds = 3.20e-6
        /// The bytes per day, widget and pair whose doublings past 1 MB
        /// `widgetDayPerDoublingSeconds` was fitted against (the person's counters and
        /// the records they are made of, as the fit's runs held them).
        public static let widgetDayCacheBytes = 6_400.0
        /// A block of people: its part files written.
        public static let blockSeconds = 0.00204
        /// A point of a study (more than one point): its own totals and its share of the
        /// study's tables (an exploring study's robustness, discovery and sensitivity).
        public static let pointSeconds = 0.0141
    }

    /// Peak resident memory, measured on release builds (the same runs).
    public enum Memory {
        /// The program, its libraries and a small run's reports.
        public static let fixedBytes = 34.0 * 1_048_576
        /// The person being simulated, per day, widget and policy pair: its daily counters
        /// (and the records they are made of), held by each running thread. Refitted once
        /// each worker wrote its blocks' counts over one kept array (two people of tiny.yaml
        /// × 1500 days on two threads then peaked at 202 MB, 134 MB estimated for one):
        /// one person of tiny.yaml over 8000 days (no widget_days.csv) peaks at 453 MB, one
        /// of default.yaml over 600 days at 573 MB (both estimated within 3 %).
        public static let widgetDayBytes = 2_400.0
        /// The totals kept until the reports are written, per day, widget and policy pair of
        /// each replication and (with one replication) of each block.
        public static let totalWidgetDayBytes = 1_000.0
        /// A point of a study (more than one point).
        public static let pointBytes = 1.4 * 1_048_576
    }

    /// Longest run started without `--i-know`.
    public static let secondsLimit = 86_400.0

    public var events: Double
    /// People × days × pairs × replications, over every point.
    public var personDays: Double
    /// CPU seconds over all threads, and wall seconds on an idle machine with `threads` cores.
    public var cpuSeconds: Double
    public var seconds: Double
    public var bytes: Double
    /// Threads that run at once (no more than the blocks of the run).
    public var threads: Int
    /// Rows of widget_days.csv (person × day × pair × widget instance × replication, every
    /// point), and the file's size: each row's names (run id, scenario, labels, widget id,
    /// the study's values) as they are, and `widgetDayNumberBytes` for its numbers.
    public var widgetDayRows: Double = 0
    public var widgetDaysBytes: Double = 0
    /// The CPU seconds by part, in the order of `Cost`: start, worlds, views, widget-days,
    /// outgrown caches (the widget-days' cost per doubling), blocks, study points.
    public var cpuParts: [(name: String, seconds: Double)] = []
    /// The numbers of one widget_days.csv row, in bytes (about 75 on `tiny.yaml`, more
    /// with larger counts).
    public static let widgetDayNumberBytes = 80.0
    /// The size of widget_days.csv above which `widgetsim run` warns before it starts.
    public static let widgetDaysWarning = 1e9

    /// - Parameters:
    ///   - points: the scenario of every point of the study (one for a plain run).
    ///   - threads: the threads asked for (`--threads`); no more run than there are blocks.
    ///   - widgetDays: whether widget_days.csv is written (`--no-widget-days` skips it).
    ///   - shards: the run is shard K of this many (`--shard K/N`): its share of the people.
    public init(_ points: [Scenario], threads: Int, widgetDays: Bool = true, shards: Int = 1) {
        var events = 0.0, personDays = 0.0, blocks = 0.0, person = 0.0, totals = 0.0
        var viewMembers = 0.0, widgetDayCount = 0.0, doublings = 0.0, worldSessions = 0.0
        let share = 1 / Double(max(1, shards))
        for s in points {
            let pairs = Double(s.policyPairs.count)
            let ownDays = Double(s.people) * Double(s.replications) * share * Double(s.days)
            let days = ownDays * pairs
            let kinds = Self.eventsPerPersonDay(kinds: s)
            let widgets = Double(s.widgets.count)
            personDays += days
            worldSessions += ownDays * s.person.sessionsPerDay.mean * WorldBuilder.sessionBurstBound(s)
            events += days * (kinds.views + kinds.others)
            viewMembers += days * kinds.views * Double(max(1, s.stack.members.count))
            widgetDayCount += days * widgets
            let pointBlocks = (Double(max(1, min(s.people, 64)) * s.replications) * share).rounded(.up)
            blocks += pointBlocks
            func mean(_ texts: [String]) -> Double {
                texts.isEmpty ? 0 : Double(texts.reduce(0) { $0 + $1.utf8.count }) / Double(texts.count)
            }
            let rows = days * widgets
            let names = 17 + Double(s.name.utf8.count) + mean(s.budgets.map(\.label)) + mean(s.rankings.map(\.label))
                + mean(s.widgets.map(\.id)) + 5
            widgetDayRows += rows
            widgetDaysBytes += rows * (names + Self.widgetDayNumberBytes)
            // One person of the point: its counters, its world, and its widget_days.csv
            // rows until they are written.
            let counters = Double(s.days) * pairs * widgets * Memory.widgetDayBytes
            doublings += days * widgets * max(0, log2(Double(s.days) * pairs * widgets * Cost.widgetDayCacheBytes / 1_048_576))
            let rowBytes = widgetDays ? Double(s.days) * pairs * widgets * (names + Self.widgetDayNumberBytes) : 0
            person = max(person, counters + rowBytes + Self.worldBytes(s))
            let kept = Double(s.replications) + (s.replications == 1 ? pointBlocks : 0)
            totals += kept * Double(s.days) * pairs * widgets * Memory.totalWidgetDayBytes
        }
        let study = points.count > 1 ? Double(points.count) : 0
        let running = max(1, min(threads, Int(blocks)))
        self.events = events
        self.personDays = personDays
        self.threads = running
        cpuParts = [
            ("start", Cost.startSeconds),
            ("worlds", worldSessions * Cost.worldSessionSeconds),
            ("views", viewMembers * Cost.viewMemberSeconds),
            ("widget-days", widgetDayCount * Cost.widgetDaySeconds),
            ("outgrown caches", doublings * Cost.widgetDayPerDoublingSeconds),
            ("blocks", blocks * Cost.blockSeconds),
            ("study points", study * Cost.pointSeconds),
        ]
        cpuSeconds = cpuParts.reduce(0) { $0 + $1.seconds }
        // The people are shared among the threads; start-up and the reports are not.
        seconds = Cost.startSeconds + (cpuSeconds - Cost.startSeconds) / Double(running)
        // Each running thread holds the person it simulates.
        bytes = Memory.fixedBytes + Double(running) * person + totals + study * Memory.pointBytes
    }

    /// Events per person-day under one policy pair, at the rates' means. A timeline
    /// reloaded at its end asks again once per horizon (the guard's bound assumes once
    /// per entry spacing).
    public static func eventsPerPersonDay(_ s: Scenario) -> Double {
        let kinds = eventsPerPersonDay(kinds: s)
        return kinds.views + kinds.others
    }

    /// `eventsPerPersonDay`, the views (lock screen and StandBy) apart from the rest.
    static func eventsPerPersonDay(kinds s: Scenario) -> (views: Double, others: Double) {
        var mean = s
        mean.person.viewsPerDay.cv = 0
        mean.person.sessionsPerDay.cv = 0
        for i in mean.widgets.indices where mean.widgets[i].timeline.reload == .atEnd {
            mean.widgets[i].timeline.entrySpacingMs = max(mean.widgets[i].timeline.entrySpacingMs, mean.widgets[i].timeline.horizonMs)
        }
        let shares = RunGuard.eventShares(mean, budgetParameters: { _ in nil })
        let isView: (String) -> Bool = { $0 == "person.views_per_day" || $0 == "person.standby.views_per_hour" }
        return (shares.filter { isView($0.path) }.reduce(0) { $0 + $1.amount },
                shares.filter { !isView($0.path) }.reduce(0) { $0 + $1.amount })
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

    /// `about 12,000 events (3,000 person-days × policy pairs), 2 s on 2 threads (4 s of CPU), peak memory about 45 MB`.
    public var description: String {
        "about \(RunGuard.format(events)) events (\(RunGuard.format(personDays)) person-days × policy pairs), "
            + "\(Self.duration(seconds)) on \(threads) thread\(threads == 1 ? "" : "s") (\(Self.duration(cpuSeconds)) of CPU), "
            + "peak memory about \(RunGuard.bytes(bytes))"
    }

    /// What `widgetsim run --estimate` prints: the figures in full and the CPU time by part.
    public var table: String {
        var lines = [
            "events             \(RunGuard.format(events))",
            "person-days        \(RunGuard.format(personDays)) (× policy pairs)",
            String(format: "cpu seconds        %.2f", cpuSeconds),
        ]
        for part in cpuParts {
            lines.append("  " + part.name.padding(toLength: 17, withPad: " ", startingAt: 0) + String(format: "%.2f", part.seconds))
        }
        lines.append(String(format: "wall seconds       %.2f", seconds) + " on \(threads) thread\(threads == 1 ? "" : "s") of an idle machine")
        lines.append(String(format: "peak memory mb     %.1f", bytes / 1_048_576))
        return lines.joined(separator: "\n")
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
