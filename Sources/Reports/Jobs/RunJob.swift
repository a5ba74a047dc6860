import Dispatch
import Foundation
import WidgetSimExecution
import WidgetSimModel

/// What `widgetsim run` asks for beyond the scenario.
public struct RunOptions: Sendable {
    /// The folder the reports (or a shard's parts) are written to.
    public var outputFolder: URL
    /// Worker threads.
    public var threads: Int
    /// Run only this shard: the folder then holds parts for `widgetsim merge`, not reports.
    public var shard: Shard?
    /// Where to write the event trace, if anywhere (forces one thread).
    public var traceFile: URL?
    /// A stream to write the event trace to instead of `traceFile` (standard output, a
    /// named pipe).
    public var traceStream: TraceStream?
    /// Whether a trace is asked for.
    public var traced: Bool { traceFile != nil || traceStream != nil }
    /// Whether to write `widget_days.csv`.
    public var widgetDays: Bool = true
    /// Keep the blocks already finished in the folder's `parts/` and run only the rest.
    public var resume: Bool = false
    /// Stop after this many blocks, leaving the run resumable (simulates an interruption).
    public var stopAfterBlocks: Int?
    /// Replace what the folder holds (a finished report of another run, finished blocks
    /// of an interrupted one) instead of refusing.
    public var force: Bool = false
    /// Asked before each person: true stops the run as soon as the blocks in progress
    /// are set aside (Ctrl-C), leaving it resumable.
    public var shouldStop: (@Sendable () -> Bool)?
    /// Called as blocks finish, from worker threads.
    public var progress: (@Sendable (RunProgress) -> Void)?
    /// How the run came about, for `run.json` and the manifest.
    public var provenance = Provenance()
    /// When the command started (`DispatchTime` uptime nanoseconds): the run's wall time
    /// counts from here. Nil counts from the start of `RunJob.execute`.
    public var startedAt: UInt64?
    /// Receives what the run has to say on the way (a damaged part run again).
    public var notice: (@Sendable (String) -> Void)?
    /// Delete the finished run's `parts/` on a background thread, once it is set aside
    /// (one rename, so the folder holds the complete report and no parts when
    /// `execute` returns): the caller goes on (to draw the report page, say) while the
    /// files go. `OutputFolder.finishRemovals()` waits for the deletion, and so does
    /// the process's exit.
    public var removePartsInBackground = false

    /// Options for a run into `outputFolder`; the others keep their defaults.
    public init(outputFolder: URL, threads: Int = 1, shard: Shard? = nil, traceFile: URL? = nil) {
        self.outputFolder = outputFolder
        self.threads = threads
        self.shard = shard
        self.traceFile = traceFile
    }
}

/// The scenario file and command line behind a run.
public struct Provenance: Sendable {
    /// The scenario file's path as given.
    public var scenarioPath = ""
    /// The scenario file's text, kept in `run.json` so that the run can be repeated.
    public var scenarioText = ""
    /// Values the command line changed (people, days, seed, …).
    public var overrides = RunOverrides()
    /// The command line that started the run.
    public var commandLine: [String] = []
    /// The commit the binary was built from.
    public var build = BuildStamp()
    /// Empty provenance: a run from code, not from a file.
    public init() {}
}

/// What a study produced: one result per point, in point order.
public struct StudyResult: Sendable {
    public var study: Study
    public var results: [RunResult]

    public var events: Int64 { results.reduce(0) { $0 + $1.events } }
    public var personDays: Int { results.reduce(0) { $0 + $1.personDays } }
    public var wallSeconds: Double { results.first?.wallSeconds ?? 0 }
}

public enum StudyOutcome: Sendable {
    case finished(StudyResult)
    case shardWritten(blocks: Int, StudyResult)
    case interrupted(blocksDone: Int, blocksTotal: Int)
    /// `--resume` on a folder whose study had already finished (see `RunOutcome`).
    case alreadyFinished(String)
}

/// How `RunJob.execute(_:_:)` of one scenario ended.
public enum RunOutcome: Sendable {
    /// Reports written; the result holds every block.
    case finished(RunResult)
    /// A shard's parts written; `widgetsim merge` makes the reports. The result holds
    /// the blocks this run simulated (its cost, not a report).
    case shardWritten(blocks: Int, RunResult)
    /// Stopped early (see `RunOptions.stopAfterBlocks`); resume to finish.
    case interrupted(blocksDone: Int, blocksTotal: Int)
    /// `--resume` on a folder whose run had already finished: nothing was done. The
    /// text says when the report was written.
    case alreadyFinished(String)
}

/// Runs a scenario and writes its reports, or one shard's parts.
///
/// Finished blocks go to `<folder>/parts/` as they complete, beside a manifest that
/// names the run. When all blocks are there, the reports are assembled from the parts
/// (the same code path a merge of shards takes), written under temporary names and
/// renamed into place, and the parts are removed. A run that fails or is interrupted
/// leaves any earlier report untouched and its finished blocks for `--resume`.
///
/// Before any work the folder is locked (one run at a time) and checked: a finished
/// report of another run, or finished blocks of an interrupted one, are replaced only
/// with `force`. At the end, every report file is written and flushed under a
/// temporary name before the first is renamed into place (`run.json` last), and
/// `parts/` is set aside in one rename before it is deleted: a kill at any moment
/// leaves either `parts/` complete (resumable) or a complete report.
public enum RunJob {
    /// Runs `scenario` with `options` and writes its reports (or a shard's parts);
    /// throws on a scenario that cannot run or a folder that cannot be written.
    public static func execute(_ scenario: Scenario, _ options: RunOptions) throws -> RunOutcome {
        switch try execute(Study(single: scenario), options) {
        case .finished(let r): .finished(r.results[0])
        case .shardWritten(let blocks, let r): .shardWritten(blocks: blocks, r.results[0])
        case .interrupted(let done, let total): .interrupted(blocksDone: done, blocksTotal: total)
        case .alreadyFinished(let when): .alreadyFinished(when)
        }
    }

    /// Runs every point of a study (a plain run is a study of one point) as one block plan.
    public static func execute(_ study: Study, _ options: RunOptions) throws -> StudyOutcome {
        let started = Date()
        let folder = options.outputFolder
        let parts = folder.appendingPathComponent("parts")
        let plan = BlockPlan(study)
        let manifest = RunManifest(
            scenarioName: study.first.name, scenarioPath: options.provenance.scenarioPath,
            scenarioText: options.provenance.scenarioText, overrides: options.provenance.overrides,
            widgetDays: options.widgetDays, blocksPerReplication: plan.count, shard: options.shard,
            points: study.isStudy ? study.points.count : nil)
        let wanted = options.shard.map { plan.blocks(ofShard: $0) } ?? plan.all
        let identity = PartIdentity(manifest)

        let startNs = options.startedAt ?? DispatchTime.now().uptimeNanoseconds
        for point in study.points { _ = try WorldBuilder(scenario: point.scenario) }  // a scenario the model rejects leaves no trace
        let lock = try OutputFolder.lock(folder)
        defer { withExtendedLifetime(lock) {} }
        OutputFolder.removeStaleFiles(in: folder)
        if let done = try check(folder: folder, parts: parts, manifest: manifest, options: options) {
            if options.traced {
                throw RunRefusal("""
                    the run in \(folder.path) already finished (its report was written \(done)), and --resume does not \
                    write its trace: run without --resume and with --force to run it again with the trace
                    """)
            }
            return .alreadyFinished(done)
        }
        try prepare(parts: parts, manifest: manifest, resume: options.resume)
        // Blocks finished by an earlier run, each checked against its checksums; a
        // damaged one is run again.
        var earlier: [BlockID: BlockPart] = [:]
        var todo: [BlockID] = []
        // A trace holds every event of the run: a traced run that resumes runs the
        // blocks earlier runs finished again (traced runs are small).
        let kept = options.traced ? wanted.filter { FileManager.default.fileExists(atPath: PartFiles.countsURL(parts, $0).path) }.count : 0
        if kept > 0 {
            options.notice?("the trace must hold every event: the \(kept) block\(kept == 1 ? "" : "s") finished earlier run\(kept == 1 ? "s" : "") again")
        }
        for id in wanted {
            let countsURL = PartFiles.countsURL(parts, id)
            guard !options.traced, FileManager.default.fileExists(atPath: countsURL.path) else {
                todo.append(id)
                continue
            }
            do {
                let s = study.points[id.point].scenario
                let part = try PartFiles.readCounts(
                    countsURL, id, identity: identity.with(seed: s.seed), pairs: s.policyPairs.count, days: s.days,
                    widgets: s.widgets.count, warmupDays: s.warmupDays,
                    people: plan.people(of: id).count)
                if options.widgetDays { try PartFiles.checkRows(in: parts, of: part, counts: countsURL) }
                earlier[id] = part
            } catch PartError.foreign(let path, let why) {
                throw RunRefusal("""
                    cannot resume: the part file \(path) belongs to another run (\(why)); remove it \
                    to run that block again, or run without --resume and with --force to start over
                    """)
            } catch {
                options.notice?("\(error); running \(id) again")
                try? FileManager.default.removeItem(at: countsURL)
                todo.append(id)
            }
        }

        let runner = Runner(study: study, threads: options.threads)
        runner.partsFolder = parts
        if options.widgetDays {
            runner.partRows = { k in
                let s = study.points[k].scenario
                return WidgetDayRows(s, pairs: s.policyPairs, study: ReportWriter.studyFields(study, point: k), runID: identity.runID)
            }
            runner.partRowsHeader = Array(ReportWriter.widgetDaysHeader(study).utf8)
        }
        runner.partIdentity = identity
        runner.onProgress = options.progress
        runner.stopAfterBlocks = options.stopAfterBlocks
        runner.shouldStop = options.shouldStop
        var trace: TraceWriter?
        if let stream = options.traceStream {
            trace = try TraceWriter(file: stream, scenario: study.first, study: study.isStudy, runID: identity.runID)
        } else if let url = options.traceFile {
            trace = try TraceWriter(file: try AtomicFile(url), scenario: study.first, study: study.isStudy, runID: identity.runID)
        }
        runner.trace = trace
        defer { trace?.abandon() }
        var results = try runner.runPoints(blocks: todo)

        let done = wanted.filter { FileManager.default.fileExists(atPath: PartFiles.countsURL(parts, $0).path) }.count
        if done < wanted.count { return .interrupted(blocksDone: done, blocksTotal: wanted.count) }
        try trace?.commit()

        // The whole run's time: this process's so far, and the compute time the parts of
        // earlier runs recorded.
        let recorded = wanted.reduce(0) { $0 + (earlier[$1]?.seconds ?? 0) }
        func setTimes() {
            let wall = Double(DispatchTime.now().uptimeNanoseconds - startNs) / 1e9 + recorded
            for k in results.indices {
                results[k].resumedBlocks = earlier.count
                results[k].recordedSeconds = recorded
                results[k].wallSeconds = wall
            }
        }
        if options.shard != nil {
            setTimes()
            return .shardWritten(blocks: wanted.count, StudyResult(study: study, results: results))
        }

        // The reports, from the blocks in memory and the parts of earlier runs (read and
        // checked above): nothing this run wrote is read back.
        for id in wanted {
            guard let part = earlier[id] else { continue }
            let k = id.point
            for p in part.totals.indices {
                results[k].totals[id.replication][p].add(part.totals[p])
                results[k].pairSeconds[p] += part.pairSeconds[p]
            }
            if results[k].replications == 1 { results[k].blockTotals[id.block] = part.totals }
        }
        setTimes()
        let ranges = runner.rowsRanges
        let rows: [(parts: URL, range: RowsRange)] = options.widgetDays ? try wanted.sorted().map { id in
            guard let range = ranges[id] ?? earlier[id]?.rows else { throw PartError.missing(PartFiles.countsURL(parts, id).path) }
            return (parts, range)
        } : []
        let assembled = Assembly(study: study, results: results, rows: rows)
        let record = RunRecord(
            scenario: study.first, manifest: manifest, provenance: options.provenance, threads: options.threads,
            shards: nil, started: started, finished: Date(), results: assembled.results, study: study)
        try assembled.write(to: folder, record: record, threads: options.threads)
        OutputFolder.removeParts(parts, inBackground: options.removePartsInBackground)
        return .finished(StudyResult(study: study, results: assembled.results))
    }

    /// Refuses to lose results: a finished report of another run, finished blocks that
    /// a run without `--resume` would discard. Returns when the report was written if
    /// `--resume` finds the run already finished (nothing to do).
    static func check(folder: URL, parts: URL, manifest: RunManifest, options: RunOptions) throws -> String? {
        let fm = FileManager.default
        let hasParts = fm.fileExists(atPath: RunManifest.url(in: parts).path)
        let finishedBlocks = hasParts ? OutputFolder.finishedBlocks(in: parts) : 0
        let report = OutputFolder.finishedReport(
            in: folder, scenarioText: manifest.scenarioText, overrides: manifest.overrides)
        if options.resume {
            if !hasParts, let report, report.sameRun, options.shard == nil {
                return report.finished
            }
            if !hasParts, let report, !report.sameRun, !options.force {
                throw RunRefusal("""
                    nothing to resume in \(folder.path): it holds the finished report of another run \
                    (scenario `\(report.scenarioName)`, finished \(report.finished)); run without --resume and \
                    with --force to replace it, or give another --out folder to keep both
                    """)
            }
            return nil
        }
        if finishedBlocks > 0, !options.force {
            throw RunRefusal("""
                \(folder.path) holds \(finishedBlocks) finished block\(finishedBlocks == 1 ? "" : "s") of an \
                unfinished run; add --resume to finish that run, or --force to discard them and start over
                """)
        }
        if !hasParts, let report, !report.sameRun, !options.force {
            throw RunRefusal("""
                \(folder.path) holds the finished report of another run (scenario `\(report.scenarioName)`, \
                finished \(report.finished)); add --force to replace it, or give another --out folder to keep both
                """)
        }
        if report != nil, !options.widgetDays, options.shard == nil, !options.force,
           fm.fileExists(atPath: folder.appendingPathComponent("widget_days.csv").path) {
            throw RunRefusal("""
                \(folder.path) holds a finished report with widget_days.csv, which this run (--no-widget-days) \
                would not write; add --force to replace the report without it, or drop --no-widget-days
                """)
        }
        return nil
    }

    /// Makes `parts` ready: kept for a resume of the same run, emptied otherwise.
    static func prepare(parts: URL, manifest: RunManifest, resume: Bool) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: RunManifest.url(in: parts).path) {
            let existing = try RunManifest.read(from: parts)
            if resume {
                guard existing == manifest || (existing.sameRun(as: manifest) && existing.shard == manifest.shard) else {
                    throw RunError.resumeMismatch(parts.path)
                }
            } else {
                try? fm.removeItem(at: parts)
            }
        } else if fm.fileExists(atPath: parts.path) {
            try? fm.removeItem(at: parts)
        }
        do {
            try fm.createDirectory(at: parts, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotWrite(parts.path, error.localizedDescription)
        }
        // Temporary files of blocks that were in progress when a run stopped.
        for name in (try? fm.contentsOfDirectory(atPath: parts.path)) ?? [] where name.hasPrefix(".") {
            try? fm.removeItem(at: parts.appendingPathComponent(name))
        }
        try manifest.write(to: parts)
    }
}

public enum RunError: Error, CustomStringConvertible {
    case resumeMismatch(String)
    public var description: String {
        switch self {
        case .resumeMismatch(let path):
            "the parts in \(path) belong to another run (another scenario file, options or version); run without --resume to start over"
        }
    }
}
