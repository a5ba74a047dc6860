import Foundation
import WidgetSimModel

/// The CSV reports of a run, in one folder:
///
/// - `summary.csv`: one row per policy pair and replication, over the measured days;
/// - `daily.csv`: the same metrics per simulated day, warm-up days included (a
///   learning curve);
/// - `widget_days.csv`: one row per replication × person × pair × day × widget
///   instance, with the raw counts (warm-up days included; `day` tells them apart).
///
/// Every row starts with the run's identity. `pair_seconds` (time spent simulating the
/// pair, summed over threads), `wall_seconds` (the whole run's, from the start of the
/// command to its reports), `events_per_second` (the whole run's events over
/// `wall_seconds`) and `loop_events_per_second` (the row's events over the time spent
/// simulating its pair) measure the machine; every other column is a function of the
/// scenario and seed.
public enum ReportWriter {
    public static let identityColumns = ["scenario", "budget", "ranking", "replication", "seed"]
    /// Columns that measure this machine, not the model: they differ between runs.
    public static let wallClockColumns = ["pair_seconds", "wall_seconds", "events_per_second", "loop_events_per_second"]

    public static func summaryHeader() -> [String] {
        identityColumns + ["people", "days", "warmup_days"] + Metrics.all.map(\.name) + wallClockColumns
    }

    public static func summary(_ r: RunResult) -> String {
        var out = CSV.row(summaryHeader())
        let runEvents = Double(r.events)
        for rep in 0 ..< r.replications {
            for (p, pair) in r.pairs.enumerated() {
                let t = r.totals[rep][p]
                var fields = identity(r.scenario, pair, rep)
                fields += [String(t.people), String(r.scenario.days), String(r.scenario.warmupDays)]
                fields += Metrics.all.map { CSV.number($0.compute(t, t.measuredDays), kind: $0.kind) }
                let events = Double(t.sum(.events, days: 0 ..< t.days))
                let seconds = r.pairSeconds[p] / Double(r.replications)
                fields += [CSV.number(r.pairSeconds[p]), CSV.number(r.wallSeconds),
                           CSV.number(r.wallSeconds > 0 ? runEvents / r.wallSeconds : nil),
                           CSV.number(seconds > 0 ? events / seconds : nil)]
                out += CSV.row(fields)
            }
        }
        return out
    }

    public static func daily(_ r: RunResult) -> String {
        var out = CSV.row(identityColumns + ["day", "warmup"] + Metrics.all.map(\.name))
        for rep in 0 ..< r.replications {
            for (p, pair) in r.pairs.enumerated() {
                let t = r.totals[rep][p]
                for day in 0 ..< t.days {
                    var fields = identity(r.scenario, pair, rep)
                    fields += [String(day), day < t.warmupDays ? "1" : "0"]
                    fields += Metrics.all.map { CSV.number($0.compute(t, day ..< day + 1), kind: $0.kind) }
                    out += CSV.row(fields)
                }
            }
        }
        return out
    }

    static func identity(_ s: Scenario, _ pair: PolicyPair, _ rep: Int) -> [String] {
        [s.name, pair.budget, pair.ranking, String(rep), String(s.seed)]
    }

    public static func widgetDaysHeader() -> String {
        CSV.row(identityColumns + ["person", "day", "widget"] + WidgetCounter.allCases.map(\.column))
    }

    /// The `widget_days.csv` rows of one person under one pair.
    public static func widgetDayRows(_ s: Scenario, pairs: [PolicyPair]) -> @Sendable (Int, Int, Int, PersonCounts) -> String {
        let ids = s.widgets.map { CSV.field($0.id) }
        let prefixes = pairs.map { CSV.field(s.name) + "," + CSV.field($0.budget) + "," + CSV.field($0.ranking) + "," }
        let seed = String(s.seed)
        return { rep, person, pair, counts in
            var out = ""
            let head = prefixes[pair] + String(rep) + "," + seed + "," + String(person) + ","
            for day in 0 ..< counts.days {
                for w in 0 ..< counts.widgets {
                    out += head
                    out += String(day)
                    out += ","
                    out += ids[w]
                    for c in WidgetCounter.allCases {
                        out += ","
                        out += String(counts[day, widget: w, c])
                    }
                    out += "\n"
                }
            }
            return out
        }
    }
}

/// A trace: one CSV line per event (time, person, event, widget, decision, and the
/// reason code of a refusal, a dropped push or a missed view). When several policy
/// pairs are traced, each line starts with the pair's `budget` and `ranking`.
public final class TraceWriter: TraceSink, @unchecked Sendable {
    let file: AtomicFile
    let withPairs: Bool
    public private(set) var failure: (any Error)?

    public init(file: AtomicFile, pairs: Bool = false) throws {
        self.file = file
        withPairs = pairs
        try file.write(CSV.row((pairs ? ["budget", "ranking"] : [])
            + ["time_ms", "person", "event", "widget", "decision", "reason"]))
    }

    public func record(time: Int64, person: Int, pair: PolicyPair?, event: String, widget: String, decision: String, reason: String) {
        guard failure == nil else { return }
        do {
            let head = withPairs ? [pair?.budget ?? "", pair?.ranking ?? ""] : []
            try file.write(CSV.row(head + [String(time), String(person), event, widget, decision, reason]))
        } catch {
            failure = error
        }
    }

    public func commit() throws {
        if let failure { throw failure }
        try file.commit()
    }

    public func abandon() { file.abandon() }
}
