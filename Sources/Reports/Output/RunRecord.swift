import Foundation
import WidgetSimExecution
import WidgetSimModel

/// The commit a binary was built from, fixed when it was built, and whether the
/// checkout had uncommitted changes then (`dirty`). `commit` is `unknown` for a build
/// outside a git checkout.
public struct BuildStamp: Codable, Sendable, Equatable {
    public var commit: String
    public var dirty: Bool
    public init(commit: String = "unknown", dirty: Bool = false) {
        self.commit = commit
        self.dirty = dirty
    }
    /// `0123abcd…` or `0123abcd… (uncommitted changes)`.
    public var description: String { commit + (dirty ? " (uncommitted changes)" : "") }
}

/// A parameter's value in `run.json`: a number, a text (durations as written in a
/// scenario, `30m`), or a flag.
public enum RecordedValue: Codable, Sendable, Equatable {
    case number(Double), text(String), flag(Bool)

    init(_ v: ParameterValue) {
        switch v {
        case .number(let x): self = .number(x)
        case .duration, .text: self = .text(v.description)
        case .flag(let b): self = .flag(b)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let x): try c.encode(x)
        case .text(let s): try c.encode(s)
        case .flag(let b): try c.encode(b)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .flag(b) }
        else if let x = try? c.decode(Double.self) { self = .number(x) }
        else { self = .text(try c.decode(String.self)) }
    }
}

/// `run.json`: enough to reproduce a run — the version of WidgetSim and the commit it
/// was built from, the scenario file's fingerprint, every policy with every parameter
/// (defaults included), the seed, the command line — and what measured the machine:
/// wall time, seconds per pair, events per second. Written with `JSONEncoder`, keys in
/// snake case, sorted.
public struct RunRecord: Codable, Sendable {
    public struct ScenarioInfo: Codable, Sendable {
        public var name: String
        public var file: String
        public var fnv1a64: String
        public var seed: UInt64
        public var replications: Int
        public var people: Int
        public var days: Int
        public var warmupDays: Int
        public var measuredDays: Int
        public var generator: String
        public var baseline: PairInfo
    }
    public struct PairInfo: Codable, Sendable {
        public var budget: String
        public var ranking: String
    }
    public struct PolicyInfo: Codable, Sendable {
        public var label: String
        public var policy: String
        public var unofficial: Bool
        /// Every parameter the policy takes, with the value the run used.
        public var parameters: [String: RecordedValue]
    }
    public struct PairCost: Codable, Sendable {
        public var budget: String
        public var ranking: String
        /// Time spent simulating the pair, summed over threads (world generation excluded).
        public var seconds: Double
    }

    public var widgetsimVersion = WidgetSimVersion.current
    /// The run's id (`PartIdentity.runID`): the `run_id` column of every CSV file.
    public var runId: String?
    public var build: BuildStamp
    public var commandLine: [String]
    public var scenario: ScenarioInfo
    public var budgets: [PolicyInfo]
    public var rankings: [PolicyInfo]
    /// What the command line changed in the scenario.
    public var overrides: RunOverrides
    public var seedDerivation = "StreamKey: SplitMix64 over (seed, replication, person, process), folded to 32 bits"
    public var threads: Int?
    public var mergedShards: Int?
    public var started: String
    public var finished: String
    public var wallSeconds: Double
    public var events: Int64
    public var personDays: Int
    /// events ÷ wall_seconds.
    public var eventsPerSecond: Double?
    public var pairSeconds: [PairCost]
    /// Whether some blocks were finished by earlier runs (a `--resume`, or the shards of
    /// a merge): how many, and the compute time their parts recorded (each block's wall
    /// time on its thread, summed; included in `wall_seconds`).
    public var resumed: Bool?
    public var resumedBlocks: Int?
    public var recordedSeconds: Double?
    /// A parameter study's parameters and points; absent for a plain run.
    public var study: StudyInfo?

    public struct StudyInfo: Codable, Sendable {
        /// The varied values' paths, in column order.
        public var parameters: [String]
        /// How many points the whole study has.
        public var points: Int
        /// The points this run simulated (all of them, or the one of `--point K`).
        public var pointsRun: [Int]
        public var baselinePoint: Int
    }

    public init(scenario s: Scenario, manifest: RunManifest, provenance: Provenance, threads: Int?,
                shards: Int?, started: Date, finished: Date, result: RunResult) {
        self.init(scenario: s, manifest: manifest, provenance: provenance, threads: threads, shards: shards,
                  started: started, finished: finished, results: [result], study: nil)
    }

    /// The record of a study: `results` holds one result per point run; events, person-days
    /// and seconds per pair are summed over them.
    public init(scenario s: Scenario, manifest: RunManifest, provenance: Provenance, threads: Int?,
                shards: Int?, started: Date, finished: Date, results: [RunResult], study: Study?) {
        let result = results[0]
        let iso = ISO8601DateFormatter()
        runId = PartIdentity(manifest).runID
        build = provenance.build
        commandLine = provenance.commandLine
        scenario = ScenarioInfo(
            name: s.name, file: manifest.scenarioPath, fnv1a64: manifest.scenarioHash, seed: s.seed,
            replications: s.replications, people: s.people, days: s.days, warmupDays: s.warmupDays,
            measuredDays: s.days - s.warmupDays, generator: s.generator.rawValue,
            baseline: PairInfo(budget: s.baseline.budget, ranking: s.baseline.ranking))
        budgets = s.budgets.map { c in
            Self.policy(c, s.policies.budget(named: c.name).map { ($0.parameters, $0.unofficial) })
        }
        rankings = s.rankings.map { c in
            Self.policy(c, s.policies.ranking(named: c.name).map { ($0.parameters, $0.unofficial) })
        }
        overrides = provenance.overrides
        self.threads = threads
        mergedShards = shards
        self.started = iso.string(from: started)
        self.finished = iso.string(from: finished)
        wallSeconds = result.wallSeconds
        events = results.reduce(0) { $0 + $1.events }
        personDays = results.reduce(0) { $0 + $1.personDays }
        eventsPerSecond = result.wallSeconds > 0 ? Double(events) / result.wallSeconds : nil
        pairSeconds = result.pairs.indices.map { p in
            PairCost(budget: result.pairs[p].budget, ranking: result.pairs[p].ranking,
                     seconds: results.reduce(0) { $0 + ($1.pairSeconds.indices.contains(p) ? $1.pairSeconds[p] : 0) })
        }
        if let study, study.isStudy {
            self.study = StudyInfo(parameters: study.parameters, points: study.totalPoints,
                                   pointsRun: study.points.map(\.number), baselinePoint: study.baselinePoint)
        }
        resumed = result.resumedBlocks > 0
        resumedBlocks = result.resumedBlocks
        recordedSeconds = result.recordedSeconds
    }

    static func policy(_ c: PolicyChoice, _ d: ([ParameterSpec], Bool)?) -> PolicyInfo {
        var values: [String: RecordedValue] = [:]
        for spec in d?.0 ?? [] { values[spec.name] = RecordedValue(c.parameters[spec.name] ?? spec.defaultValue) }
        for (k, v) in c.parameters.values where values[k] == nil { values[k] = RecordedValue(v) }
        return PolicyInfo(label: c.label, policy: c.name, unofficial: d?.1 ?? false, parameters: values)
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    public static func read(_ data: Data) throws -> RunRecord {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(RunRecord.self, from: data)
    }

    /// Whether the `run.json` in `folder` records a finished run of this scenario text
    /// with these overrides.
    public static func finishedRun(in folder: URL, scenarioText: String, overrides: RunOverrides) -> Bool {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("run.json").path),
              let record = try? read(data)
        else { return false }
        return record.scenario.fnv1a64 == Fingerprint.fnv1a64(scenarioText)
            && record.overrides == overrides
            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("parts").path)
    }
}
