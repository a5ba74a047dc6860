import Foundation
import WidgetSimModel

/// The version written into manifests and `run.json`; merges refuse parts of another.
/// Semantic versioning: `CHANGELOG.md` says what each version changed.
public enum WidgetSimVersion {
    public static let current = "0.2.0"
}

/// Changes a command line makes to a scenario, recorded so a run can be rebuilt
/// exactly from its manifest (by `--resume` and `widgetsim merge`).
public struct RunOverrides: Codable, Sendable, Equatable {
    public var seed: UInt64?
    public var people: Int?
    public var days: Int?
    public var warmupDays: Int?
    public var replications: Int?
    /// Budget / ranking labels to keep, in the scenario's order; nil keeps all.
    public var budgets: [String]?
    public var rankings: [String]?
    /// `--set PATH=VALUE`, in order; nil when none.
    public var sets: [String]?
    /// `--sweep PATH=VALUES`, in order; nil when none.
    public var sweeps: [String]?
    /// `--point K`: only this point of the study.
    public var point: Int?

    public init() {}

    /// Applies the overrides; the message says what does not fit.
    public func apply(to s: inout Scenario) throws(OverrideError) {
        if let seed {
            guard seed <= UInt64(Int64.max) else { throw OverrideError("--seed must be in 0…\(Int64.max), got \(seed)") }
            s.seed = seed
        }
        if let people {
            guard people >= 1 else { throw OverrideError("--people must be at least 1, got \(people)") }
            s.people = people
        }
        if let replications {
            guard replications >= 1 else { throw OverrideError("--replications must be at least 1, got \(replications)") }
            s.replications = replications
        }
        if let days {
            guard days >= 1 else { throw OverrideError("--days must be at least 1, got \(days)") }
            s.days = days
        }
        if let warmupDays {
            guard warmupDays >= 0 else { throw OverrideError("--warmup-days must be at least 0, got \(warmupDays)") }
            s.warmupDays = warmupDays
        }
        guard s.warmupDays < s.days else {
            throw OverrideError("a warm-up of \(s.warmupDays) days leaves nothing to measure in \(s.days) days")
        }
        if let budgets { s.budgets = try Self.select(s.budgets, budgets, "budget") }
        if let rankings { s.rankings = try Self.select(s.rankings, rankings, "ranking") }
        if !s.budgets.contains(where: { $0.label == s.baseline.budget })
            || !s.rankings.contains(where: { $0.label == s.baseline.ranking }) {
            s.baseline = PolicyPair(budget: s.budgets[0].label, ranking: s.rankings[0].label)
        }
    }

    static func select(_ all: [PolicyChoice], _ wanted: [String], _ kind: String) throws(OverrideError) -> [PolicyChoice] {
        let labels = all.map(\.label)
        for w in wanted where !labels.contains(w) {
            throw OverrideError("--\(kind) \(w): the scenario has no \(kind) policy labelled `\(w)`; it has \(labels.joined(separator: ", "))")
        }
        return all.filter { wanted.contains($0.label) }
    }
}

public struct OverrideError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}

/// What a run's parts belong to: written as `parts/manifest.json` before the first
/// block, checked before a resume adds to the parts and before a merge combines them.
///
/// The file holds a `checksum`: the CRC-32C of its JSON without that field (keys sorted,
/// no spaces). A manifest changed after the run wrote it (an edited seed or option) is
/// refused, as are parts whose identity does not match it (see `PartIdentity`).
public struct RunManifest: Codable, Sendable, Equatable {
    public var format = 1
    public var version = WidgetSimVersion.current
    public var scenarioName: String
    /// The scenario file as given on the command line.
    public var scenarioPath: String
    /// The scenario file's text: a merge rebuilds the scenario from it.
    public var scenarioText: String
    /// FNV-1a (64-bit) of `scenarioText`, in hex: a content fingerprint, not a security hash.
    public var scenarioHash: String
    public var overrides: RunOverrides
    public var widgetDays: Bool
    public var blocksPerReplication: Int
    /// The shard these parts are, or nil for a whole run.
    public var shard: Shard?
    /// The study points run, or nil for a plain run.
    public var points: Int?
    /// In the file only: the CRC-32C of the rest, in hex (nil in memory).
    var checksum: String?

    public init(scenarioName: String, scenarioPath: String, scenarioText: String, overrides: RunOverrides,
                widgetDays: Bool, blocksPerReplication: Int, shard: Shard?, points: Int? = nil) {
        self.points = points
        self.scenarioName = scenarioName
        self.scenarioPath = scenarioPath
        self.scenarioText = scenarioText
        self.scenarioHash = Fingerprint.fnv1a64(scenarioText)
        self.overrides = overrides
        self.widgetDays = widgetDays
        self.blocksPerReplication = blocksPerReplication
        self.shard = shard
    }

    /// The same run, whatever the shard.
    public func sameRun(as other: RunManifest) -> Bool {
        var a = self, b = other
        a.shard = nil
        b.shard = nil
        a.scenarioPath = ""
        b.scenarioPath = ""
        return a == b
    }

    public static func url(in parts: URL) -> URL { parts.appendingPathComponent("manifest.json") }

    /// The checksum of everything but the checksum.
    func computedChecksum() throws -> String {
        var bare = self
        bare.checksum = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return CRC32C.hex(CRC32C.of(Array(try encoder.encode(bare))))
    }

    public func write(to parts: URL) throws {
        var sealed = self
        sealed.checksum = try computedChecksum()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(String(decoding: try encoder.encode(sealed), as: UTF8.self) + "\n", to: Self.url(in: parts))
    }

    /// Reads and checks the manifest in `parts`: refused when it is not one, or when it
    /// was changed after the run wrote it.
    public static func read(from parts: URL) throws -> RunManifest {
        let url = Self.url(in: parts)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PartError.missing(url.path) }
        var manifest: RunManifest
        do {
            manifest = try JSONDecoder().decode(RunManifest.self, from: data)
        } catch {
            throw PartError.damaged(url.path, "not a run manifest (\(error))")
        }
        guard let recorded = manifest.checksum else {
            throw PartError.damaged(url.path, "it has no checksum (written by an earlier version, or edited): run again")
        }
        manifest.checksum = nil
        let computed = try manifest.computedChecksum()
        guard computed == recorded else {
            throw PartError.damaged(url.path, "its checksum is \(computed) where it records \(recorded): it was changed after the run wrote it; run again rather than edit it")
        }
        return manifest
    }
}

public enum Fingerprint {
    /// FNV-1a, 64 bits, of the UTF-8 bytes, as 16 hex digits.
    public static func fnv1a64(_ text: String) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h &*= 0x0000_0100_0000_01B3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
