import Foundation
import WidgetSimModel

/// What `widgetsim run` asks for beyond the scenario.
public struct RunOptions: Sendable {
    public var outputFolder: URL
    public var threads: Int
    /// Run only this shard: the folder then holds parts for `widgetsim merge`, not reports.
    public var shard: Shard?
    /// Where to write the event trace, if anywhere (forces one thread).
    public var traceFile: URL?
    public var widgetDays: Bool = true
    /// Keep the blocks already finished in the folder's `parts/` and run only the rest.
    public var resume: Bool = false
    /// Stop after this many blocks, leaving the run resumable (simulates an interruption).
    public var stopAfterBlocks: Int?
    public var progress: (@Sendable (RunProgress) -> Void)?
    /// How the run came about, for `run.json` and the manifest.
    public var provenance = Provenance()

    public init(outputFolder: URL, threads: Int = 1, shard: Shard? = nil, traceFile: URL? = nil) {
        self.outputFolder = outputFolder
        self.threads = threads
        self.shard = shard
        self.traceFile = traceFile
    }
}

/// The scenario file and command line behind a run.
public struct Provenance: Sendable {
    public var scenarioPath = ""
    public var scenarioText = ""
    public var overrides = RunOverrides()
    public var commandLine: [String] = []
    /// The commit the binary was built from.
    public var build = BuildStamp()
    public init() {}
}

public enum RunOutcome: Sendable {
    /// Reports written; the result holds every block.
    case finished(RunResult)
    /// A shard's parts written; `widgetsim merge` makes the reports. The result holds
    /// the blocks this run simulated (its cost, not a report).
    case shardWritten(blocks: Int, RunResult)
    /// Stopped early (see `RunOptions.stopAfterBlocks`); resume to finish.
    case interrupted(blocksDone: Int, blocksTotal: Int)
}

/// Runs a scenario and writes its reports, or one shard's parts.
///
/// Finished blocks go to `<folder>/parts/` as they complete, beside a manifest that
/// names the run. When all blocks are there, the reports are assembled from the parts
/// (the same code path a merge of shards takes), written under temporary names and
/// renamed into place, and the parts are removed. A run that fails or is interrupted
/// leaves any earlier report untouched and its finished blocks for `--resume`.
public enum RunJob {
    public static func execute(_ scenario: Scenario, _ options: RunOptions) throws -> RunOutcome {
        let started = Date()
        let folder = options.outputFolder
        let parts = folder.appendingPathComponent("parts")
        let plan = BlockPlan(scenario)
        let manifest = RunManifest(
            scenarioName: scenario.name, scenarioPath: options.provenance.scenarioPath,
            scenarioText: options.provenance.scenarioText, overrides: options.provenance.overrides,
            widgetDays: options.widgetDays, blocksPerReplication: plan.count, shard: options.shard)
        let wanted = options.shard.map { plan.blocks(ofShard: $0) } ?? plan.all

        _ = try WorldBuilder(scenario: scenario)  // a scenario the model rejects leaves no trace
        try prepare(parts: parts, manifest: manifest, resume: options.resume)
        let todo = wanted.filter { !FileManager.default.fileExists(atPath: PartFiles.countsURL(parts, $0).path) }

        let runner = Runner(scenario: scenario, threads: options.threads)
        runner.partsFolder = parts
        runner.widgetDays = options.widgetDays
        runner.onProgress = options.progress
        runner.stopAfterBlocks = options.stopAfterBlocks
        var trace: TraceWriter?
        if let url = options.traceFile {
            let file = try AtomicFile(url)
            trace = try TraceWriter(file: file, scenario: scenario)
            runner.trace = trace
        }
        defer { trace?.abandon() }
        let result = try runner.run(blocks: todo)

        let done = wanted.filter { FileManager.default.fileExists(atPath: PartFiles.countsURL(parts, $0).path) }.count
        if done < wanted.count { return .interrupted(blocksDone: done, blocksTotal: wanted.count) }
        try trace?.commit()
        if options.shard != nil { return .shardWritten(blocks: wanted.count, result) }

        var assembled = try Assembly.load(scenario, from: [(parts, wanted)], widgetDays: options.widgetDays)
        assembled.result.pairSeconds = result.pairSeconds
        assembled.result.wallSeconds = result.wallSeconds
        let record = RunRecord(
            scenario: scenario, manifest: manifest, provenance: options.provenance, threads: options.threads,
            shards: nil, started: started, finished: Date(), result: assembled.result)
        try assembled.write(to: folder, record: record)
        try? FileManager.default.removeItem(at: parts)
        return .finished(assembled.result)
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
