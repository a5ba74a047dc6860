import Foundation
import WidgetSimExecution
import WidgetSimKernel
import WidgetSimModel
#if canImport(Glibc)
import Glibc
#endif

/// The CSV reports of a run, in one folder (`Schema` describes every column):
///
/// - `summary.csv`: one row per policy pair and replication, over the measured days;
/// - `daily.csv`: the same metrics per simulated day, warm-up days included (a
///   learning curve), each with the half-width of its 95% interval;
/// - `widget_days.csv`: one row per replication × person × pair × day × widget
///   instance, with the raw counts (warm-up days included, flagged by `warmup`);
/// - `batches.csv`, with one replication: the metrics per block of people, the groups
///   its intervals are computed over (and `widgetsim compare` reads).
///
/// Every row starts with the run's identity, and every column is a function of the
/// scenario, its seed and the options: what measures the machine goes to `run.json`.
public enum ReportWriter {
    public static var identityColumns: [String] { Schema.identity.map(\.name) }

    public static func summaryTable(_ r: RunResult) -> Table {
        var table = Table(file: "summary.csv", rows: Schema.summaryRows, columns: Schema.summaryColumns)
        for rep in 0 ..< r.replications {
            for (p, pair) in r.pairs.enumerated() {
                let t = r.totals[rep][p]
                var fields = identity(r.scenario, pair, rep)
                fields += [String(t.people), String(t.days), String(t.measuredDays.count), String(t.warmupDays)]
                fields += Metrics.all.map { CSV.number($0.compute(t, t.measuredDays), type: $0.type) }
                table.rows.append(fields)
            }
        }
        return table
    }

    public static func summary(_ r: RunResult) -> String { summaryTable(r).csv }

    public static func dailyTable(_ r: RunResult) -> Table {
        var table = Table(file: "daily.csv", rows: Schema.dailyRows, columns: Schema.dailyColumns)
        let metrics = Metrics.daily
        let days = r.totals.first?.first?.days ?? r.scenario.days
        // Half-widths per pair and day, shared by the rows of every replication.
        let halfWidths: [[[String]]] = r.pairs.indices.map { p in
            (0 ..< days).map { day in
                metrics.map { m in CSV.number(Comparison.entry(r, pair: p, m, days: day ..< day + 1).value.halfWidth) }
            }
        }
        for rep in 0 ..< r.replications {
            for (p, pair) in r.pairs.enumerated() {
                let t = r.totals[rep][p]
                for day in 0 ..< t.days {
                    var fields = identity(r.scenario, pair, rep)
                    fields += [String(day), day < t.warmupDays ? "1" : "0"]
                    fields += metrics.map { CSV.number($0.compute(t, day ..< day + 1), type: $0.type) }
                    fields += halfWidths[p][day]
                    table.rows.append(fields)
                }
            }
        }
        return table
    }

    public static func daily(_ r: RunResult) -> String { dailyTable(r).csv }

    /// With one replication: the metrics of every block of people (block totals as they are).
    public static func batchesTable(_ r: RunResult) -> Table? {
        guard Comparison.source(r) == .blocks else { return nil }
        var table = Table(file: "batches.csv", rows: Schema.batchesRows, columns: Schema.batchesColumns)
        for (b, block) in r.blockTotals.enumerated() {
            for (p, pair) in r.pairs.enumerated() {
                let t = block[p]
                var fields = identity(r.scenario, pair, 0)
                fields += [String(b), String(t.people)]
                fields += Metrics.all.map { CSV.number($0.compute(t, t.measuredDays), type: $0.type) }
                table.rows.append(fields)
            }
        }
        return table
    }

    static func identity(_ s: Scenario, _ pair: PolicyPair, _ rep: Int) -> [String] {
        [s.name, pair.budget, pair.ranking, String(rep), String(s.seed)]
    }

    public static func widgetDaysHeader() -> String {
        CSV.row(Schema.widgetDaysColumns.map(\.name))
    }

    public static var widgetDaysSchema: FileSchema {
        FileSchema(file: "widget_days.csv", rows: Schema.widgetDaysRows, columns: Schema.widgetDaysColumns)
    }

    /// A stored count as its column prints it: whole counts as they are, thousandths
    /// (milliseconds, thousandths of a cost unit) as the shortest double.
    static func widgetValue(_ v: Int64, divisor: Int64) -> String {
        divisor == 1 ? String(v) : CSV.number(Double(v) / Double(divisor))
    }

}

/// A trace (`run_id`, then `Schema.traceColumns`): one CSV line per event — the run's id and identity, the
/// time in seconds, person, event, widget, decision, and the reason code of a refusal,
/// a dropped push or a missed view. The runner names the replication it is running.
public final class TraceWriter: RunTrace, @unchecked Sendable {
    let file: any TraceOutput
    let runID: String
    let scenario: String
    let seed: String
    /// The replication whose people are being run (one thread runs them all in turn).
    public var replication = 0
    /// In a study's trace, the number of the point being run.
    public var point: Int?
    let study: Bool
    public private(set) var failure: (any Error)?

    public init(file: any TraceOutput, scenario: Scenario, study: Bool = false, runID: String = PartIdentity().runID) throws {
        self.file = file
        self.runID = runID
        self.scenario = scenario.name
        self.study = study
        seed = String(scenario.seed)
        try file.write(CSV.row([Schema.runID.name] + Schema.traceColumns(study: study).map(\.name)))
    }

    public func record(time: Int64, person: Int, pair: PolicyPair?, event: String, widget: String, decision: String, reason: String) {
        record(TraceLine(time: time, day: Int(time / Milliseconds.day), localSeconds: -1, person: person, pair: pair, event: event,
                         widget: widget, decision: "", detail: decision, reason: reason))
    }

    public func record(_ line: TraceLine) {
        guard failure == nil else { return }
        let local = line.localSeconds >= 0 ? String(line.localSeconds) : ""
        var row = [runID, scenario, line.pair?.budget ?? "", line.pair?.ranking ?? "", String(replication), seed]
        if study { row.append(point.map(String.init) ?? "") }
        row += [CSV.number(Double(line.time) / 1000), String(line.day), local, String(line.person), line.event, line.widget,
                line.decision, line.detail, line.reason, line.until.map { CSV.number(Double($0) / 1000) } ?? "",
                line.topWidget, CSV.number(line.topRelevance), line.wantedWidget, CSV.number(line.wantedRelevance)]
        do {
            try file.write(CSV.row(row))
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

/// Where a trace goes: a file written under a temporary name (`AtomicFile`), or a
/// stream (`TraceStream`: standard output, a named pipe).
public protocol TraceOutput: AnyObject {
    func write(_ text: String) throws
    /// Everything written is in place (a file renamed, a stream flushed).
    func commit() throws
    /// The run failed: a file is removed, a stream is flushed and left as it is.
    func abandon()
}

extension AtomicFile: TraceOutput {}

/// A trace written as it comes to an open stream: standard output (`-`) or a named
/// pipe, on purpose; what was written stays written.
public final class TraceStream: TraceOutput, @unchecked Sendable {
    /// What the stream is, for messages (`standard output`, the pipe's path).
    public let name: String
    let descriptor: Int32
    let owned: Bool
    var buffer: [UInt8] = []
    var closed = false

    /// Standard output.
    public init() {
        name = "standard output"
        descriptor = STDOUT_FILENO
        owned = false
    }

    /// The named pipe at `path`, opened for writing (waits until a reader opens it).
    public init(pipe path: String) throws {
        name = path
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReportError.cannotWrite(path, String(cString: strerror(errno))) }
        descriptor = fd
        owned = true
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        var written = 0
        while written < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, buffer.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let why = String(cString: strerror(errno))
                buffer.removeAll()
                throw ReportError.cannotWrite(name, why)
            }
            written += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    public func commit() throws {
        guard !closed else { return }
        try flush()
        close()
    }

    public func abandon() {
        guard !closed else { return }
        try? flush()
        close()
    }

    func close() {
        closed = true
        if owned { Glibc.close(descriptor) }
    }
}
