import Foundation
import WidgetSimModel

/// A run's reports assembled from finished blocks — one run's `parts/`, or the parts of
/// several shards — and written into a report folder.
public struct Assembly {
    public var result: RunResult
    /// The rows files of every block, in report order (empty without widget_days).
    var rowsFiles: [URL]

    public init(result: RunResult, rowsFiles: [URL]) {
        self.result = result
        self.rowsFiles = rowsFiles
    }

    /// Reads every listed block of every folder, checking each against the run and its
    /// checksums. The result's times are those the parts recorded (`recordedSeconds`
    /// and `wallSeconds`: the blocks' wall times on their threads, summed).
    public static func load(_ s: Scenario, from folders: [(parts: URL, blocks: [BlockID])], widgetDays: Bool) throws -> Assembly {
        let plan = BlockPlan(s)
        let pairs = s.policyPairs
        let empty = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: s.warmupDays)
        var totals = Array(repeating: Array(repeating: empty, count: pairs.count), count: s.replications)
        var pairSeconds = Array(repeating: 0.0, count: pairs.count)
        var recorded = 0.0
        var blocks = 0
        var rows: [(BlockID, URL)] = []
        for (parts, ids) in folders {
            for id in ids {
                let url = PartFiles.countsURL(parts, id)
                let part = try PartFiles.readCounts(
                    url, id, pairs: pairs.count, days: s.days, widgets: s.widgets.count,
                    warmupDays: s.warmupDays, people: plan.people(of: id.block).count)
                for p in 0 ..< pairs.count {
                    totals[id.replication][p].add(part.totals[p])
                    pairSeconds[p] += part.pairSeconds[p]
                }
                recorded += part.seconds
                blocks += 1
                if widgetDays {
                    let rowsURL = PartFiles.rowsURL(parts, id)
                    try PartFiles.checkRows(rowsURL, of: part)
                    rows.append((id, rowsURL))
                }
            }
        }
        var result = RunResult(
            scenario: s, pairs: pairs, replications: s.replications, totals: totals,
            pairSeconds: pairSeconds, wallSeconds: recorded)
        result.resumedBlocks = blocks
        result.recordedSeconds = recorded
        return Assembly(result: result, rowsFiles: rows.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Writes summary.csv, daily.csv, comparison.csv, reasons.csv, widget_days.csv (when
    /// the blocks have rows) and run.json into `folder`, each atomically.
    public func write(to folder: URL, record: RunRecord) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [AtomicFile] = []
        defer { files.forEach { $0.abandon() } }
        func open(_ name: String) throws -> AtomicFile {
            let f = try AtomicFile(folder.appendingPathComponent(name))
            files.append(f)
            return f
        }
        if !rowsFiles.isEmpty {
            let f = try open("widget_days.csv")
            try f.write(ReportWriter.widgetDaysHeader())
            for url in rowsFiles { try f.append(contentsOf: url) }
        }
        try open("summary.csv").write(ReportWriter.summary(result))
        try open("daily.csv").write(ReportWriter.daily(result))
        try open("comparison.csv").write(Comparison.csv([result]))
        try open("reasons.csv").write(ReasonsReport.csv(result))
        try open("run.json").write(record.json())
        for f in files { try f.commit() }
    }
}
