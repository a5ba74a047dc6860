import Foundation
import WidgetSimModel

/// `run.json`: enough to reproduce a run — the version and commit of WidgetSim, the
/// scenario file's fingerprint, the seeds, the command line, and when it ran.
public struct RunRecord: Sendable {
    var scenario: Scenario
    var manifest: RunManifest
    var provenance: Provenance
    var threads: Int?
    var shards: Int?
    var started: Date
    var finished: Date
    var wallSeconds: Double
    /// Events simulated over the whole run (every pair, replication and block).
    public var events: Int64?
    /// Blocks taken from parts that earlier runs finished, and the compute time those
    /// parts recorded (included in `wallSeconds`).
    public var resumedBlocks = 0
    public var recordedSeconds = 0.0

    public init(scenario: Scenario, manifest: RunManifest, provenance: Provenance, threads: Int?,
                shards: Int?, started: Date, finished: Date, wallSeconds: Double) {
        self.scenario = scenario
        self.manifest = manifest
        self.provenance = provenance
        self.threads = threads
        self.shards = shards
        self.started = started
        self.finished = finished
        self.wallSeconds = wallSeconds
    }

    func overridesObject() -> Any {
        guard let data = try? JSONEncoder().encode(provenance.overrides),
              let object = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
        return object
    }

    /// Whether the `run.json` in `folder` records a finished run of this scenario text
    /// with these overrides.
    public static func finishedRun(in folder: URL, scenarioText: String, overrides: RunOverrides) -> Bool {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("run.json").path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let scenario = object["scenario"] as? [String: Any],
              scenario["fnv1a64"] as? String == Fingerprint.fnv1a64(scenarioText),
              let recorded = object["overrides"],
              let recordedData = try? JSONSerialization.data(withJSONObject: recorded),
              let decoded = try? JSONDecoder().decode(RunOverrides.self, from: recordedData)
        else { return false }
        return decoded == overrides
            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("parts").path)
    }

    public func json() -> String {
        let iso = ISO8601DateFormatter()
        let s = scenario
        let object: [String: Any] = [
            "widgetsim_version": WidgetSimVersion.current,
            "git_commit": provenance.gitCommit ?? NSNull(),
            "command_line": provenance.commandLine,
            "scenario": [
                "name": s.name,
                "file": manifest.scenarioPath,
                "fnv1a64": manifest.scenarioHash,
                "seed": s.seed,
                "replications": s.replications,
                "people": s.people,
                "days": s.days,
                "warmup_days": s.warmupDays,
                "generator": s.generator.rawValue,
                "budgets": s.budgets.map(\.label),
                "rankings": s.rankings.map(\.label),
                "baseline": ["budget": s.baseline.budget, "ranking": s.baseline.ranking],
            ] as [String: Any],
            "overrides": overridesObject(),
            "seed_derivation": "StreamKey: SplitMix64 over (seed, replication, person, process), folded to 32 bits",
            "threads": threads ?? NSNull(),
            "merged_shards": shards ?? NSNull(),
            "started": iso.string(from: started),
            "finished": iso.string(from: finished),
            "wall_seconds": wallSeconds,
            "events": events ?? NSNull(),
            "events_per_second": events.flatMap { wallSeconds > 0 ? Double($0) / wallSeconds : nil } ?? NSNull(),
            "resumed": resumedBlocks > 0,
            "resumed_blocks": resumedBlocks,
            "recorded_seconds": recordedSeconds,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
