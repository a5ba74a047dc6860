import Foundation
import WidgetSimExecution
import WidgetSimModel

/// The checks `widgetsim merge` makes before it combines shard folders: every folder a
/// shard of the same run (scenario fingerprint, options, shard count, version), every
/// shard 0…N−1 exactly once. Completeness of each block is checked when the parts are
/// read (`Assembly.load`).
public enum ShardMerge {
    /// Reads and checks the manifests; returns the run's scenario, the first manifest
    /// and every shard's parts folder with its blocks, in shard order.
    public static func check(
        _ shardFolders: [String], rebuild: (RunManifest) throws -> Scenario
    ) throws -> (Scenario, RunManifest, [(parts: URL, blocks: [BlockID])]) {
        let (study, first, folders) = try check(shardFolders, rebuildStudy: { Study(single: try rebuild($0)) })
        return (study.first, first, folders)
    }

    /// As `check(_:rebuild:)`, for a study: `rebuild` makes the study from a manifest.
    public static func check(
        _ shardFolders: [String], rebuildStudy rebuild: (RunManifest) throws -> Study
    ) throws -> (Study, RunManifest, [(parts: URL, blocks: [BlockID])]) {
        var manifests: [(folder: String, parts: URL, manifest: RunManifest)] = []
        for folder in shardFolders {
            let parts = URL(fileURLWithPath: folder).appendingPathComponent("parts")
            guard FileManager.default.fileExists(atPath: RunManifest.url(in: parts).path) else {
                throw MergeRefusal("\(folder) is not a shard folder: it has no parts/manifest.json")
            }
            let m = try RunManifest.read(from: parts)
            guard m.shard != nil else {
                throw MergeRefusal("\(folder) holds an unfinished whole run, not a shard; finish it with `widgetsim run --resume`")
            }
            manifests.append((folder, parts, m))
        }
        let first = manifests[0].manifest
        for (folder, _, m) in manifests.dropFirst() {
            if m.version != first.version {
                throw MergeRefusal("\(folder) was written by WidgetSim \(m.version), \(manifests[0].folder) by \(first.version)")
            }
            if m.scenarioHash != first.scenarioHash || m.scenarioName != first.scenarioName {
                throw MergeRefusal("\(folder) is a shard of another scenario (\(m.scenarioName), fingerprint \(m.scenarioHash)) than \(manifests[0].folder) (\(first.scenarioName), \(first.scenarioHash))")
            }
            if m.overrides != first.overrides {
                throw MergeRefusal("\(folder) was run with other options (seed, people, days, replications or policies) than \(manifests[0].folder)")
            }
            if m.shard!.count != first.shard!.count {
                throw MergeRefusal("\(folder) is a shard of \(m.shard!.count), \(manifests[0].folder) of \(first.shard!.count)")
            }
            if !m.sameRun(as: first) {
                throw MergeRefusal("\(folder) does not belong to the same run as \(manifests[0].folder)")
            }
        }
        let n = first.shard!.count
        var byIndex: [Int: (String, URL)] = [:]
        for (folder, parts, m) in manifests {
            if let other = byIndex[m.shard!.index] {
                throw MergeRefusal("shard \(m.shard!) is given twice: \(other.0) and \(folder)")
            }
            byIndex[m.shard!.index] = (folder, parts)
        }
        let missing = (0 ..< n).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            throw MergeRefusal("missing shard\(missing.count > 1 ? "s" : "") \(missing.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
        let scenario: Study
        do {
            scenario = try rebuild(first)
        } catch {
            throw MergeRefusal("the scenario recorded in the shards no longer reads: \(error)")
        }
        let plan = BlockPlan(scenario)
        guard plan.count == first.blocksPerReplication, (scenario.isStudy ? scenario.points.count : nil) == first.points else {
            throw MergeRefusal("the shards cut the people into \(first.blocksPerReplication) blocks, this version into \(plan.count)")
        }
        let folders = (0 ..< n).map { i in (parts: byIndex[i]!.1, blocks: plan.blocks(ofShard: Shard(index: i, count: n))) }
        return (scenario, first, folders)
    }
}

/// Why shard folders cannot be merged.
public struct MergeRefusal: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
