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
        var blockTotals = s.replications == 1 ? Array(repeating: Array(repeating: empty, count: pairs.count), count: plan.count) : []
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
                if s.replications == 1 { blockTotals[id.block] = part.totals }
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
            pairSeconds: pairSeconds, wallSeconds: recorded, blockTotals: blockTotals)
        result.resumedBlocks = blocks
        result.recordedSeconds = recorded
        return Assembly(result: result, rowsFiles: rows.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Writes summary.csv, daily.csv, comparison.csv, batches.csv (one replication),
    /// reasons.csv, widget_days.csv (when the blocks have rows), schema.json (the files
    /// and columns written) and run.json into `folder`: all of them or, on failure, none.
    public func write(to folder: URL, record: RunRecord) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [AtomicFile] = []
        defer { files.forEach { $0.abandon() } }
        func open(_ name: String) throws -> AtomicFile {
            let f = try AtomicFile(folder.appendingPathComponent(name))
            files.append(f)
            return f
        }
        var schemas: [FileSchema] = []
        var tables = [ReportWriter.summaryTable(result), ReportWriter.dailyTable(result), Comparison.table([result]),
                      ReasonsReport.table(result)]
        if let batches = ReportWriter.batchesTable(result) { tables.append(batches) }
        for table in tables {
            try open(table.file).write(table.csv)
            schemas.append(table.schema)
        }
        if !rowsFiles.isEmpty {
            let f = try open("widget_days.csv")
            try f.write(ReportWriter.widgetDaysHeader())
            for url in rowsFiles { try f.append(contentsOf: url) }
            schemas.append(ReportWriter.widgetDaysSchema)
        }
        try open("schema.json").write(ReportSchema(files: schemas).json())
        try open("run.json").write(record.json())
        // Every file complete on the disk before the first rename: running out of space
        // or failing to write leaves the earlier report whole. `run.json` is renamed
        // last: it marks the report finished.
        for f in files { try f.finishWriting() }
        for f in files { try f.commit() }
        OutputFolder.synchronize(folder)
    }
}
