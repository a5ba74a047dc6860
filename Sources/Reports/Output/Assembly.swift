import Foundation
import WidgetSimExecution
import WidgetSimModel

/// A run's reports assembled from finished blocks — one run's `parts/`, or the parts of
/// several shards — and written into a report folder. A study's reports hold every
/// point's rows, each with the point's columns, and `study.csv`.
public struct Assembly {
    public var study: Study
    /// One result per study point, in point order.
    public var results: [RunResult]
    /// Where every block's widget_days rows are, in report order: its parts folder and
    /// its range of one of that folder's rows logs (empty without widget_days).
    var rows: [(parts: URL, range: RowsRange)]

    init(study: Study, results: [RunResult], rows: [(parts: URL, range: RowsRange)]) {
        self.study = study
        self.results = results
        self.rows = rows
    }

    /// A plain run's reports.
    init(result: RunResult, rows: [(parts: URL, range: RowsRange)]) {
        self.init(study: Study(single: result.scenario), results: [result], rows: rows)
    }

    /// The first point's result (a plain run's).
    public var result: RunResult {
        get { results[0] }
        set { results[0] = newValue }
    }

    /// Reads every listed block of every folder, checking each against the run and its
    /// checksums. The results' times are those the parts recorded (`recordedSeconds`
    /// and `wallSeconds`: the blocks' wall times on their threads, summed).
    public static func load(_ s: Scenario, from folders: [(parts: URL, blocks: [BlockID])], widgetDays: Bool,
                            identity: PartIdentity) throws -> Assembly {
        try load(Study(single: s), from: folders, widgetDays: widgetDays, identity: identity)
    }

    /// As `load(_:from:widgetDays:identity:)`, for a study. Every part must carry
    /// `identity` (with its point's seed) and have rows exactly when `widgetDays`.
    public static func load(_ study: Study, from folders: [(parts: URL, blocks: [BlockID])], widgetDays: Bool,
                            identity: PartIdentity) throws -> Assembly {
        let plan = BlockPlan(study)
        let scenarios = study.points.map(\.scenario)
        let pairs = scenarios.map(\.policyPairs)
        let empty = scenarios.map { PairTotals(days: $0.days, widgets: $0.widgets.count, warmupDays: $0.warmupDays) }
        var totals = scenarios.indices.map { k in
            Array(repeating: Array(repeating: empty[k], count: pairs[k].count), count: scenarios[k].replications)
        }
        var blockTotals = scenarios.indices.map { k in
            scenarios[k].replications == 1
                ? Array(repeating: Array(repeating: empty[k], count: pairs[k].count), count: plan.points[k].count) : []
        }
        var pairSeconds = pairs.map { Array(repeating: 0.0, count: $0.count) }
        var recorded = 0.0
        var blockCount = 0
        var rows: [(BlockID, URL, RowsRange)] = []
        for (parts, blocks) in folders {
            for id in blocks {
                let k = id.point
                let s = scenarios[k]
                let url = PartFiles.countsURL(parts, id)
                let part = try PartFiles.readCounts(
                    url, id, identity: identity.with(seed: s.seed), pairs: pairs[k].count, days: s.days,
                    widgets: s.widgets.count, warmupDays: s.warmupDays, people: plan.people(of: id).count)
                if (part.rows != nil) != widgetDays {
                    throw PartError.foreign(url.path, part.rows != nil
                        ? "it has widget_days rows, where the manifest records a run without them"
                        : "it has no widget_days rows, where the manifest records a run with them")
                }
                for p in 0 ..< pairs[k].count {
                    totals[k][id.replication][p].add(part.totals[p])
                    pairSeconds[k][p] += part.pairSeconds[p]
                }
                if s.replications == 1 { blockTotals[k][id.block] = part.totals }
                recorded += part.seconds
                blockCount += 1
                if let range = part.rows {
                    try RowsLog.read(range, in: parts)
                    rows.append((id, parts, range))
                }
            }
        }
        let results = scenarios.indices.map { k in
            var r = RunResult(
                scenario: scenarios[k], pairs: pairs[k], replications: scenarios[k].replications, totals: totals[k],
                pairSeconds: pairSeconds[k], wallSeconds: recorded, blockTotals: blockTotals[k])
            r.resumedBlocks = blockCount
            r.recordedSeconds = recorded
            return r
        }
        return Assembly(study: study, results: results, rows: rows.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) })
    }

    /// Writes summary.csv, daily.csv, comparison.csv, batches.csv (one replication),
    /// reasons.csv, widget_days.csv (when the blocks have rows), study.csv (a study),
    /// schema.json (the files and columns written) and run.json into `folder`: all of
    /// them or, on failure, none. Report files of an earlier run that this one does not
    /// write (widget_days.csv, batches.csv, study.csv) and the earlier run's page
    /// (report.html, report/) are removed before `run.json` marks the report finished:
    /// the folder then holds this run's files and no other run's.
    ///
    /// With `threads` above 1, the tables are made and formatted, and widget_days.csv is
    /// put together from the blocks' rows files, on that many threads at once (what the
    /// run's workers did before, they do after it): the same files, sooner.
    public func write(to folder: URL, record: RunRecord, threads: Int = 1) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [AtomicFile] = []
        defer { files.forEach { $0.abandon() } }
        func open(_ name: String) throws -> AtomicFile {
            let f = try AtomicFile(folder.appendingPathComponent(name))
            files.append(f)
            return f
        }
        var schemas: [FileSchema] = []
        let study = study, results = results
        // Each maker makes some of the tables, in the order they are written; reasons.csv,
        // the longest to make, is handed out first, then widget_days.csv.
        let jobs = AssemblyJobs(
            makers: [
                { [ReportWriter.summaryTable(results, study: study)] }, { [ReportWriter.dailyTable(results, study: study)] },
                { [Comparison.table(results, study: study)] }, { [ReasonsReport.table(results, study: study)] },
                { ReportWriter.batchesTable(results, study: study).map { [$0] } ?? [] },
                { study.isStudy ? [StudyTable.table(results, study: study)] : [] },
                { ExploreReports.tables(results, study: study) },
            ],
            first: 3, folder: folder, runID: record.runId ?? PartIdentity().runID,
            days: rows.isEmpty ? nil : try WidgetDaysFile(rows, header: ReportWriter.widgetDaysHeader(study),
                                                      url: folder.appendingPathComponent("widget_days.csv")))
        defer { jobs.days?.file.abandon() }
        try jobs.run(threads: threads)
        for table in jobs.made.joined() {
            files.append(table.file)
            schemas.append(table.schema)
        }
        if let days = jobs.days?.file {
            files.append(days)
            schemas.append(ReportWriter.widgetDaysSchema(study))
        }
        try open("schema.json").write(ReportSchema(files: schemas).json())
        try open("run.json").write(record.json())
        // Every file complete on the disk before the first rename: running out of space
        // or failing to write leaves the earlier report whole. `run.json` is renamed
        // last: it marks the report finished.
        try AtomicFile.finishWriting(files)
        for f in files.dropLast() { try f.commit() }
        let written = Set(files.map(\.url.lastPathComponent))
        for name in OutputFolder.reportFiles + OutputFolder.pageFiles where !written.contains(name) {
            let url = folder.appendingPathComponent(name)
            guard (try? url.checkResourceIsReachable()) == true else { continue }
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw ReportError.cannotWrite(url.path, "the earlier run's file cannot be removed (\(OutputFolder.reason(error)))")
            }
        }
        try files.last!.commit()
        OutputFolder.synchronize(folder)
    }
}

/// The work of `Assembly.write` before schema.json and run.json: each table maker's
/// tables made, formatted and written to their files (each maker's in its own slot, in
/// the order written), and widget_days.csv put together from the blocks' rows.
/// Shared by the threads that do it: each job writes only its own slot (or `days`), and
/// the jobs are handed out under `lock`. Files not yet committed are removed when their
/// `AtomicFile`s go (`abandon`).
private final class AssemblyJobs: @unchecked Sendable {
    let makers: [() -> [Table]]
    /// The jobs in the order they are handed out: the maker `first`, widget_days.csv
    /// (`makers.count`), then the other makers in order.
    let order: [Int]
    let folder: URL
    let runID: String
    let days: WidgetDaysFile?
    /// Each maker's tables as written: their files (not yet committed) and schemas.
    let made: UnsafeMutableBufferPointer<[(file: AtomicFile, schema: FileSchema)]>
    private var failure: (any Error)?
    private let lock = NSLock()
    private var next = 0

    init(makers: [() -> [Table]], first: Int, folder: URL, runID: String, days: WidgetDaysFile?) {
        self.makers = makers
        order = [first, makers.count] + makers.indices.filter { $0 != first }
        self.folder = folder
        self.runID = runID
        self.days = days
        made = .allocate(capacity: makers.count)
        made.initialize(repeating: [])
    }

    deinit {
        made.deinitialize()
        made.deallocate()
    }

    /// Does every job: on this thread in turn with `threads` 1, else on up to `threads`
    /// threads, each taking the next job as it is free. Throws the first failure to
    /// write, once every job has ended.
    func run(threads: Int) throws {
        let workers = min(max(threads, 1), order.count)
        if workers == 1 {
            for job in order { run(job) }
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let k: Int = lock.withLock {
                        defer { next += 1 }
                        return next
                    }
                    if k >= order.count { return }
                    run(order[k])
                }
            }
        }
        if let failure { throw failure }
    }

    private func run(_ job: Int) {
        do {
            if job == makers.count {
                try days?.copyRows()
                return
            }
            for table in makers[job]().map({ $0.withRunID(runID) }) {
                let file = try AtomicFile(folder.appendingPathComponent(table.file))
                made[job].append((file, table.schema))
                try table.csvPieces { try file.write($0) }
            }
        } catch {
            lock.withLock { if failure == nil { failure = error } }
        }
    }
}

/// widget_days.csv: its header, then every block's rows in report order. When the rows
/// are one rows log, whole and in order from just after its header (a run on one
/// thread), the file is that log, linked into place; otherwise the header is written
/// and each block's range copied from its log, checked against its counts file's
/// checksum on the way (`copyRows`).
final class WidgetDaysFile {
    let file: AtomicFile
    /// The ranges to copy, in order; empty when the file is a log.
    private let copies: [(parts: URL, range: RowsRange)]
    private let header: [UInt8]

    init(_ rows: [(parts: URL, range: RowsRange)], header: String, url: URL) throws {
        self.header = Array(header.utf8)
        if let log = Self.wholeLog(rows, header: self.header), let linked = AtomicFile.linking(log, to: url) {
            file = linked
            copies = []
        } else {
            file = try AtomicFile(url)
            copies = rows
        }
    }

    /// The log that holds exactly `header` and `rows`, in order, and nothing else; nil
    /// when there is none.
    static func wholeLog(_ rows: [(parts: URL, range: RowsRange)], header: [UInt8]) -> URL? {
        guard let first = rows.first, first.range.offset == header.count else { return nil }
        var end = first.range.offset
        for (parts, range) in rows {
            guard parts == first.parts, range.log == first.range.log, range.offset == end else { return nil }
            end = range.end
        }
        let url = RowsLog.url(first.parts, first.range.log)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              (attributes[.size] as? NSNumber)?.intValue == end,
              let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: header.count), [UInt8](start) == header else { return nil }
        return url
    }

    /// Writes the header and copies the ranges (nothing when the file is a log).
    func copyRows() throws {
        guard !copies.isEmpty else { return }
        try file.write(header)
        for (parts, range) in copies {
            try RowsLog.read(range, in: parts) { try self.file.write($0) }
        }
    }
}
