import Foundation
import WidgetSimModel

/// A run's reports assembled from finished blocks — one run's `parts/`, or the parts of
/// several shards — and written into a report folder. A study's reports hold every
/// point's rows, each with the point's columns, and `study.csv`.
public struct Assembly {
    public var study: Study
    /// One result per study point, in point order.
    public var results: [RunResult]
    /// The rows files of every block, in report order (empty without widget_days).
    var rowsFiles: [URL]

    /// The first point's result (a plain run's).
    public var result: RunResult {
        get { results[0] }
        set { results[0] = newValue }
    }

    /// Reads every listed block of every folder, checking each against the run.
    public static func load(_ s: Scenario, from folders: [(parts: URL, blocks: [BlockID])], widgetDays: Bool) throws -> Assembly {
        try load(Study(single: s), from: folders, widgetDays: widgetDays)
    }

    public static func load(_ study: Study, from folders: [(parts: URL, blocks: [BlockID])], widgetDays: Bool) throws -> Assembly {
        let plan = BlockPlan(study)
        let scenarios = study.points.map(\.scenario)
        let pairs = scenarios.map(\.policyPairs)
        var totals = scenarios.indices.map { k in
            let s = scenarios[k]
            let empty = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: s.warmupDays)
            return Array(repeating: Array(repeating: empty, count: pairs[k].count), count: s.replications)
        }
        var rows: [(BlockID, URL)] = []
        for (parts, blocks) in folders {
            for id in blocks {
                let s = scenarios[id.point]
                let url = PartFiles.countsURL(parts, id)
                let (block, rowCount) = try PartFiles.readCounts(
                    url, id, pairs: pairs[id.point].count, days: s.days, widgets: s.widgets.count,
                    warmupDays: s.warmupDays, people: plan.people(of: id).count)
                for p in 0 ..< pairs[id.point].count { totals[id.point][id.replication][p].add(block[p]) }
                if widgetDays {
                    let rowsURL = PartFiles.rowsURL(parts, id)
                    let lines = try PartFiles.countLines(rowsURL)
                    guard lines == rowCount else {
                        throw PartError.damaged(rowsURL.path, "it has \(lines) rows where its counts file records \(rowCount) (truncated)")
                    }
                    rows.append((id, rowsURL))
                }
            }
        }
        let results = scenarios.indices.map { k in
            RunResult(
                scenario: scenarios[k], pairs: pairs[k], replications: scenarios[k].replications, totals: totals[k],
                pairSeconds: Array(repeating: 0, count: pairs[k].count), wallSeconds: 0)
        }
        return Assembly(study: study, results: results, rowsFiles: rows.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Writes summary.csv, daily.csv, comparison.csv, reasons.csv, widget_days.csv (when
    /// the blocks have rows), study.csv (for a study) and run.json into `folder`, each
    /// atomically.
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
            try f.write(ReportWriter.widgetDaysHeader(study))
            for url in rowsFiles { try f.append(contentsOf: url) }
        }
        try open("summary.csv").write(ReportWriter.summary(results, study: study))
        try open("daily.csv").write(ReportWriter.daily(results, study: study))
        try open("comparison.csv").write(study.isStudy ? Comparison.csv(results, study: study) : Comparison.csv(results))
        try open("reasons.csv").write(ReasonsReport.csv(results, study: study))
        if study.isStudy { try open("study.csv").write(StudyTable.csv(results, study: study)) }
        try open("run.json").write(record.json())
        for f in files { try f.commit() }
        // A study.csv left by an earlier study in this folder no longer belongs here.
        if !study.isStudy { try? FileManager.default.removeItem(at: folder.appendingPathComponent("study.csv")) }
    }
}
