import Foundation
import WidgetSimModel

/// A CSV column's type, as readers should infer it: `integer` (a 64-bit signed whole
/// number), `double` (a real number, always written with a `.` or an exponent, so it
/// never reads as an integer), `string`.
public enum ColumnType: String, Codable, Sendable {
    case integer, double, string
}

/// One column of a report file: its name, type, unit and meaning, and when a cell of it
/// is empty (nil: never).
public struct Column: Codable, Sendable, Equatable {
    public var name: String
    public var type: ColumnType
    public var unit: String
    public var meaning: String
    public var empty: String?

    public init(_ name: String, _ type: ColumnType, unit: String = "", _ meaning: String, empty: String? = nil) {
        self.name = name
        self.type = type
        self.unit = unit
        self.meaning = meaning
        self.empty = empty
    }

    enum CodingKeys: String, CodingKey { case name, type, unit, meaning, empty }

    /// `empty` is written as null for a column that is never empty, not left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(type, forKey: .type)
        try c.encode(unit, forKey: .unit)
        try c.encode(meaning, forKey: .meaning)
        try c.encode(empty, forKey: .empty)
    }
}

/// One report file: what a row is, and its columns in order.
public struct FileSchema: Codable, Sendable, Equatable {
    public var file: String
    public var rows: String
    public var columns: [Column]
}

/// The schema of a report folder (`schema.json`, written beside the reports: exactly the
/// files and columns written) or of every report WidgetSim can write (`docs/SCHEMA.md`).
public struct ReportSchema: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    public var units: [String: String] = ReportSchema.unitRules
    public var files: [FileSchema]

    public init(files: [FileSchema]) { self.files = files }

    public static let unitRules: [String: String] = [
        "durations": "seconds (a double, to the millisecond)",
        "energy": "the widgets' reload cost units (a double)",
        "shares": "fractions in 0…1 (a double), never percentages",
        "empty cell": "a value that cannot be computed (a ratio over nothing, an interval over fewer than two groups, a difference of the baseline to itself); never a column empty on every row: such a column is not written",
    ]

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

/// Rows of a file, written so that no column is empty on every row: a column whose
/// every cell is empty is left out (the schema then leaves it out too).
public struct Table: Sendable {
    public var file: String
    public var rowsMeaning: String
    public var columns: [Column]
    public var rows: [[String]] = []

    public init(file: String, rows: String, columns: [Column]) {
        self.file = file
        rowsMeaning = rows
        self.columns = columns
    }

    /// The columns with a value in at least one row (all of them when there are no rows).
    public var writtenColumns: [Int] {
        guard !rows.isEmpty else { return Array(columns.indices) }
        return columns.indices.filter { i in columns[i].empty == nil || rows.contains { !$0[i].isEmpty } }
    }

    public var schema: FileSchema {
        FileSchema(file: file, rows: rowsMeaning, columns: writtenColumns.map { columns[$0] })
    }

    public var csv: String { String(decoding: csvBytes, as: UTF8.self) }

    /// The table with `run_id` as its first column, `id` on every row.
    public func withRunID(_ id: String) -> Table {
        var table = self
        table.columns.insert(Schema.runID, at: 0)
        table.rows = rows.map { [id] + $0 }
        return table
    }

    /// The file as UTF-8: built as bytes, which costs a copy per cell where appending
    /// to a `String` costs a few hundred instructions.
    public var csvBytes: [UInt8] {
        var out: [UInt8] = []
        csvPieces(of: .max) { out += $0 }
        return out
    }

    /// The bytes of `csvBytes` handed to `body` a piece at a time, whole rows of at least
    /// `size` bytes (the last piece may be shorter), built in one buffer reused from piece
    /// to piece: a file written this way never holds the whole table in memory, nor grows
    /// a buffer to its size.
    public func csvPieces(of size: Int = 1 << 16, _ body: ([UInt8]) throws -> Void) rethrows {
        let keep = writtenColumns
        var out: [UInt8] = []
        CSV.append(keep.lazy.map { columns[$0].name }, to: &out)
        for row in rows {
            if out.count >= size {
                try body(out)
                out.removeAll(keepingCapacity: true)
            }
            CSV.append(keep.lazy.map { row[$0] }, to: &out)
        }
        try body(out)
    }
}

/// Every report file's columns, generated from the code that writes them.
public enum Schema {
    static let undefined = "the ratio is undefined (nothing to divide by) in this row"

    /// The first column of every CSV file: which run wrote the row.
    public static let runID = Column(
        "run_id", .string,
        "the run's id: a hash of the scenario file's text, the command line's changes (`--set`, `--sweep`, `--people`, …) and the version, as two groups of eight hex digits; the same on every row of a run's files and in run.json, so that the rows of concatenated runs stay apart")

    public static let identity: [Column] = [
        Column("scenario", .string, "the scenario's name"),
        Column("budget", .string, "the budget policy's label"),
        Column("ranking", .string, "the ranking policy's label"),
        Column("replication", .integer, "replication index, from 0"),
        Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1)"),
    ]

    static func metricColumn(_ m: Metric) -> Column {
        Column(m.name, m.type, unit: m.unit, m.meaning, empty: m.kind == .ratio ? undefined : nil)
    }

    public static var summaryColumns: [Column] {
        identity + [
            Column("people", .integer, "people simulated"),
            Column("days", .integer, unit: "days", "days simulated, warm-up included"),
            Column("measured_days", .integer, unit: "days", "days the metrics cover: days − warmup_days"),
            Column("warmup_days", .integer, unit: "days", "leading days that run but count in no metric of this file"),
        ] + Metrics.all.map(metricColumn)
    }

    public static let intervalNote = "half-width of the 95% Student t interval of the mean over replications on this day (the same on every replication's row); with one replication, over the blocks of people as batch means"

    public static var dailyColumns: [Column] {
        identity + [
            Column("day", .integer, "simulated day, from 0"),
            Column("warmup", .integer, "1 on a warm-up day, 0 on a measured day"),
        ] + Metrics.daily.map(metricColumn) + Metrics.daily.map { m in
            Column(m.name + "_ci95_half_width", .double, unit: m.unit, "\(m.name): " + intervalNote,
                   empty: "fewer than two replications (or blocks) where the metric is defined")
        }
    }

    public static var comparisonColumns: [Column] {
        let noInterval = "fewer than two groups where the metric is defined"
        return [
            Column("scenario", .string, "the scenario's name"),
            Column("budget", .string, "the budget policy's label"),
            Column("ranking", .string, "the ranking policy's label"),
            Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1)"),
            Column("baseline_budget", .string, "the baseline pair's budget label"),
            Column("baseline_ranking", .string, "the baseline pair's ranking label"),
            Column("metric", .string, "a column of summary.csv"),
            Column("unit", .string, "the metric's unit"),
            Column("replications", .integer, "replications in the run"),
            Column("interval_over", .string, "`replications` (two or more), or `blocks`: with one replication, the blocks of people as independent batches"),
            Column("groups", .integer, "replications (or blocks) where the metric is defined"),
            Column("mean", .double, unit: "the metric's", "mean over replications; with one replication, the run's value", empty: "the metric is undefined in every group"),
            Column("sd", .double, unit: "the metric's", "standard deviation over the groups (a block's total scaled to the run's people)", empty: noInterval),
            Column("ci95_half_width", .double, unit: "the metric's", "half-width of the 95% Student t interval of the mean", empty: noInterval),
            Column("diff_mean", .double, unit: "the metric's", "paired difference to the baseline pair: this pair − baseline", empty: "the baseline itself, or the metric undefined for one of the two"),
            Column("diff_sd", .double, unit: "the metric's", "standard deviation of the paired differences", empty: "the baseline itself, or " + noInterval),
            Column("diff_ci95_half_width", .double, unit: "the metric's", "half-width of the 95% interval of the paired difference", empty: "the baseline itself, or " + noInterval),
        ]
    }

    /// A `widget_days.csv` counter: its column, and the divisor from the stored count.
    public struct WidgetColumn: Sendable {
        public var counter: WidgetCounter
        public var column: Column
        /// 1 for counts; 1000 for milliseconds → seconds and thousandths → units.
        public var divisor: Int64
    }

    public static let widgetColumns: [WidgetColumn] = WidgetCounter.allCases.map { c in
        func count(_ name: String, _ meaning: String) -> WidgetColumn {
            WidgetColumn(counter: c, column: Column(name, .integer, unit: "1", meaning), divisor: 1)
        }
        func thousandths(_ name: String, _ unit: String, _ meaning: String) -> WidgetColumn {
            WidgetColumn(counter: c, column: Column(name, .double, unit: unit, meaning), divisor: 1000)
        }
        switch c {
        case .reloadTimeline: return count("reloads_timeline", "reloads because the timeline's reload policy came due")
        case .reloadBackground: return count("reloads_background", "reloads asked by the app from the background")
        case .reloadForeground: return count("reloads_foreground", "reloads asked by the app in the foreground")
        case .reloadInteraction: return count("reloads_interaction", "reloads from taps")
        case .reloadTimeChange: return count("reloads_time_change", "reloads at midnights, DST transitions and zone changes")
        case .reloadEnvironment: return count("reloads_environment", "reloads at locale, accessibility or account changes")
        case .reloadAudio: return count("reloads_audio", "reloads asked by the app during its audio or navigation session")
        case .reloadWidgetAdded: return count("reloads_widget_added", "the first reload of an instance added during the run")
        case .reloadStandBy: return count("reloads_standby", "display refreshes while the phone was in StandBy")
        case .charged: return count("reloads_charged", "reloads charged to the budget")
        case .denied: return count("requests_denied", "charged requests refused and dropped")
        case .deferred: return count("requests_deferred", "charged requests refused and deferred")
        case .deferralMs: return thousandths("deferral_seconds", "seconds", "sum of the delays given to deferred requests")
        case .coalesced: return count("requests_coalesced", "background requests folded into one already pending")
        case .exhaustedMs: return thousandths("exhausted_seconds", "seconds", "time from a refusal until the next charged grant")
        case .energyMilli: return thousandths("energy", "cost units", "energy spent on reloads")
        case .views: return count("views", "views at which the instance was on screen")
        case .staleViews: return count("stale_views", "of those, views that showed stale content")
        case .stalenessMs: return thousandths("staleness_seconds", "seconds", "sum over stale views of the age of the first unshown change")
        case .memberViews: return count("member_views", "views while the instance was a stack member")
        case .staleMemberViews: return count("stale_member_views", "of those, views at which its content was stale (would be stale if shown)")
        }
    }

    public static var widgetDaysColumns: [Column] {
        identity + [
            Column("person", .integer, "person index, from 0"),
            Column("day", .integer, "simulated day, from 0"),
            Column("warmup", .integer, "1 on a warm-up day (not in summary.csv), 0 on a measured day"),
            Column("widget", .string, "the widget instance's id"),
        ] + widgetColumns.map(\.column)
    }

    public static var batchesColumns: [Column] {
        identity + [
            Column("block", .integer, "block index, from 0: people [block·P/B, (block+1)·P/B)"),
            Column("people", .integer, "people in the block"),
        ] + Metrics.all.map(metricColumn)
    }

    public static var reasonsColumns: [Column] {
        identity + [
            Column("day", .integer, "simulated day, from 0"),
            Column("warmup", .integer, "1 on a warm-up day, 0 on a measured day"),
            Column("kind", .string, "refusal (the budget policy's), system_refusal (a system rule's), missed_view (a view whose wanted widget was not on top), stale_on_top, outside_stack"),
            Column("reason", .string, "the reason code (scenarios/README.md, reason codes)"),
            Column("widget", .string, "the widget instance's id: the one whose request was refused, or the one the person wanted at the view",
                   empty: "a code with no count on this day (its one row, count 0), or a wanted widget that is no instance of the scenario"),
            Column("top_widget", .string, "for missed_view and stale_on_top: the instance on top of the stack instead (stale_on_top: the wanted one itself)",
                   empty: "refusals, outside_stack (nothing of the stack was wanted), and a code's zero row"),
            Column("count", .integer, unit: "1", "requests refused, or views, for this reason, widget (and top widget) on this day"),
        ]
    }

    public static var traceColumns: [Column] { traceColumns(study: true) }

    /// The trace's columns; `point` only in a study's trace.
    public static func traceColumns(study: Bool) -> [Column] {
        identity + (study ? [Column("point", .integer, "a parameter study only: the study point's number, from 0")] : []) + [
            Column("time_seconds", .double, unit: "seconds", "when the event happened: simulated time since the start of day 0"),
            Column("day", .integer, "simulated day, from 0"),
            Column("local_seconds", .integer, unit: "seconds", "the person's local time of day, in seconds since their midnight (their time zone, daylight saving and trips included; 30600 is 08:30)",
                   empty: "an event written without the person's clock"),
            Column("person", .integer, "person index, from 0"),
            Column("event", .string, "what happened (view, session_start, content_change, reload_request_<reason>, …)"),
            Column("widget", .string, "the widget instance's id", empty: "an event of no single instance (a view, StandBy, a time change)"),
            Column("decision", .string, "what the phone did, as one word: a request reloaded_charged, reloaded_free, deferred, denied or coalesced; a view wanted_on_top, wanted_not_on_top, wanted_elsewhere (a widget placed nowhere) or nothing_wanted; push_delivered, push_dropped, app_foreground, app_foreground_donated, app_left, added, all_reload, audio_reload, audio_ended, content_newer, standby_refresh, standby_ended"),
            Column("detail", .string, "what the columns do not say, in words (at a view: stale, swiped to, tapped, held, rotated in with its quota)"),
            Column("reason", .string, "the reason code of a refusal, a dropped push or a missed view (scenarios/README.md, reason codes)",
                   empty: "the event was not refused, dropped or missed"),
            Column("until_seconds", .double, unit: "seconds", "a deferred request: when it is due, in simulated time", empty: "not a deferral"),
            Column("top_widget", .string, "a view: the instance on top of the stack", empty: "not a view"),
            Column("top_relevance", .double, "a view: the relevance score the top instance shows (its timeline's current entry)",
                   empty: "not a view, Smart Rotate off, or no relevance shown"),
            Column("wanted_widget", .string, "a view: the instance the person wanted", empty: "not a view, or nothing wanted"),
            Column("wanted_relevance", .double, "a view: the relevance score the wanted instance shows",
                   empty: "not a view, nothing of the stack wanted, Smart Rotate off, or no relevance shown"),
        ]
    }

    public static let traceRows = "only with `--trace FILE`, written there: one per handled event of every person under every pair, in time order per person"
    public static let reasonsRows = "one per replication × pair × day × reason code × widget (× top widget, for views) with a count, for the codes that can occur for the pair (the system's refusal codes, those its budget policy lists in `widgetsim policies`, every missed-view code); a code with none on a day has one row, count 0, widget empty"
    public static let summaryRows = "one per replication × budget × ranking pair, over the measured days"
    public static let dailyRows = "one per replication × pair × simulated day, warm-up days included"
    public static let comparisonRows = "one per pair × metric of summary.csv"
    public static let widgetDaysRows = "one per replication × person × pair × day × widget instance: raw counts, warm-up days included (warmup = 1)"
    public static let batchesRows = "only with one replication: one per block of people × pair, the metrics over the measured days (totals are the block's own)"

    /// Every file WidgetSim can write into a report folder, every possible column.
    public static var all: ReportSchema {
        var schema = allWithoutRunID
        for k in schema.files.indices {
            schema.files[k].columns.insert(runID, at: 0)
        }
        return schema
    }

    static var allWithoutRunID: ReportSchema {
        ReportSchema(files: [
            FileSchema(file: "summary.csv", rows: summaryRows, columns: summaryColumns),
            FileSchema(file: "daily.csv", rows: dailyRows, columns: dailyColumns),
            FileSchema(file: "comparison.csv", rows: comparisonRows, columns: comparisonColumns),
            FileSchema(file: "widget_days.csv", rows: widgetDaysRows, columns: widgetDaysColumns),
            FileSchema(file: "batches.csv", rows: batchesRows, columns: batchesColumns),
            FileSchema(file: "reasons.csv", rows: reasonsRows, columns: reasonsColumns),
            FileSchema(file: "trace.csv", rows: traceRows, columns: traceColumns),
            FileSchema(file: "study.csv", rows: StudyTable.rowsMeaning,
                       columns: StudyTable.columns(studyColumns: genericStudyColumns)),
            FileSchema(file: RobustTable.file, rows: RobustTable.rowsMeaning, columns: RobustTable.columns),
            FileSchema(file: DiscoveryTable.file, rows: DiscoveryTable.rowsMeaning, columns: DiscoveryTable.columns),
            FileSchema(file: SensitivityTable.file, rows: SensitivityTable.rowsMeaning, columns: SensitivityTable.columns),
        ])
    }

    /// The study columns as `docs/SCHEMA.md` describes them: `point`, then one column
    /// per study parameter, named by its path.
    static var genericStudyColumns: [Column] {
        [
            Column("point", .integer, "the study point's number, from 0 (`widgetsim run FILE --points` lists them)"),
            Column("<parameter path>", .string, "one column per study parameter, named by its path (`budgets.quota.per_day`): its value at this point, as written in the study; an integer column when every value is a whole number, a double column when every value is a decimal number, and a double column in seconds when every value is a duration (`30m` as `1800.0`)"),
        ]
    }

    /// `docs/SCHEMA.md`: the whole schema for people to read.
    public static func markdown() -> String {
        var out = """
        # Report schema

        Generated from the code (`Schema.markdown()`); a test checks that this file matches it.
        Every report folder also holds `schema.json`: the same description of exactly the
        files and columns written there. CSV is RFC 4180 with a header row, `.` decimals and
        LF line ends. Types: `integer` is a signed 64-bit whole number; `double` is always
        written with a `.` or an exponent, in the shortest form that reads back to the same
        number; `string` is text.

        Units, the same in every file:

        """
        for (k, v) in ReportSchema.unitRules.sorted(by: { $0.key < $1.key }) { out += "\n- **\(k)**: \(v)" }
        out += "\n\nEvery CSV file is identical, byte for byte, between two runs of the same scenario,\nseed and options, whatever the thread count or shards. What measures the machine\n(seconds per pair, wall time, events per second) is in `run.json` and on the terminal.\n"
        out += "\nA parameter study (a `study:` section, or `--sweep`) adds its columns to every row of\nevery file but the trace, after the identity columns (in comparison.csv, after `seed`):\n`point`, then one column per study parameter, named by its path, as in study.csv below.\n"
        for f in all.files {
            out += "\n## \(f.file)\n\nRows: \(f.rows).\n\n| column | type | unit | meaning | empty when |\n| --- | --- | --- | --- | --- |\n"
            for c in f.columns {
                let meaning = c.meaning.replacingOccurrences(of: "|", with: "\\|")
                out += "| `\(c.name)` | \(c.type.rawValue) | \(c.unit) | \(meaning) | \(c.empty ?? "never") |\n"
            }
        }
        return out
    }
}
