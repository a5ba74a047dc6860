import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
@testable import WidgetSimReports
import WidgetSimScenario

/// Parts and manifests carry the run they belong to: a part of another run (another
/// seed, options or block) is refused by name when a run resumes or shards merge, and
/// a manifest changed after the run wrote it is refused.
@Suite struct RunIdentityTests {
    func tiny(seed: UInt64 = 7) throws -> Scenario {
        var s = try loadScenario("tiny.yaml")
        s.seed = seed
        return s
    }

    func options(_ folder: URL, seed: UInt64 = 7, shard: Shard? = nil) throws -> RunOptions {
        var o = RunOptions(outputFolder: folder, threads: 1, shard: shard)
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        o.provenance.scenarioText = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        if seed != 7 { o.provenance.overrides.seed = seed }
        o.widgetDays = false
        return o
    }

    /// Shard `index` of 2 of the tiny run with `seed`, in `folder`.
    func shard(_ index: Int, seed: UInt64 = 7, in folder: URL) throws {
        _ = try RunJob.execute(try tiny(seed: seed), try options(folder, seed: seed, shard: Shard(index: index, count: 2)))
    }

    func copyPart(_ stem: String, from: URL, to: URL, as name: String? = nil) throws {
        let fm = FileManager.default
        for ext in ["counts", "rows"] {
            let source = from.appendingPathComponent("parts/\(stem).\(ext)")
            guard fm.fileExists(atPath: source.path) else { continue }
            let target = to.appendingPathComponent("parts/\(name ?? stem).\(ext)")
            try? fm.removeItem(at: target)
            try fm.copyItem(at: source, to: target)
        }
    }

    func error(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aMergeRefusesAPartOfAnotherSeedNamingIt() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b"), other = root.appendingPathComponent("o")
        try shard(0, in: a)
        try shard(1, in: b)
        try shard(1, seed: 8, in: other)
        try copyPart("r0-b2", from: other, to: b)
        let out = root.appendingPathComponent("out")
        let message = error { try mergeShards([a.path, b.path], into: out) }
        let part = b.appendingPathComponent("parts/r0-b2.counts").path
        #expect(message == "part file \(part) belongs to another run: it was written with seed 8, this run has seed 7")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.csv").path))
    }

    @Test func aPartUnderAnotherBlocksNameIsRefused() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
        try shard(0, in: a)
        try shard(1, in: b)
        try copyPart("r0-b1", from: b, to: b, as: "r0-b2")
        let message = error { try mergeShards([a.path, b.path], into: root.appendingPathComponent("out")) }
        #expect(message == "part file \(b.path)/parts/r0-b2.counts belongs to another run: it holds replication 0, block 1, where its name is that of replication 0, block 2")
    }

    @Test func aResumeRefusesAPartOfAnotherRunNamingIt() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let mine = root.appendingPathComponent("mine"), other = root.appendingPathComponent("other")
        var first = try options(mine)
        first.stopAfterBlocks = 1
        _ = try RunJob.execute(try tiny(), first)
        var theirs = try options(other, seed: 8)
        theirs.stopAfterBlocks = 2
        _ = try RunJob.execute(try tiny(seed: 8), theirs)
        try copyPart("r0-b1", from: other, to: mine)
        var resumed = try options(mine)
        resumed.resume = true
        let message = error { _ = try RunJob.execute(try tiny(), resumed) }
        let part = mine.appendingPathComponent("parts/r0-b1.counts").path
        #expect(message == "cannot resume: the part file \(part) belongs to another run (it was written with seed 8, this run has seed 7); remove it to run that block again, or run without --resume and with --force to start over")
        #expect(FileManager.default.fileExists(atPath: part))
    }

    @Test func anEditedManifestIsRefused() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
        try shard(0, in: a)
        try shard(1, in: b)
        let url = RunManifest.url(in: a.appendingPathComponent("parts"))
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "\"widgetDays\" : false", with: "\"widgetDays\" : true")
            .write(to: url, atomically: true, encoding: .utf8)
        let message = error { try mergeShards([a.path, b.path], into: root.appendingPathComponent("out")) }
        #expect(message?.hasPrefix("damaged part file \(url.path): its checksum is ") == true, "\(message ?? "")")
        #expect(message?.hasSuffix("it was changed after the run wrote it; run again rather than edit it") == true)
    }

    /// A manifest rewritten whole, checksum and all, for another seed: the parts still
    /// carry the seed they were run with.
    @Test func aManifestRewrittenForAnotherSeedDoesNotMatchItsParts() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
        try shard(0, in: a)
        try shard(1, in: b)
        for folder in [a, b] {
            let parts = folder.appendingPathComponent("parts")
            var m = try RunManifest.read(from: parts)
            m.scenarioText = m.scenarioText.replacingOccurrences(of: "seed: 7", with: "seed: 8")
            m.scenarioHash = Fingerprint.fnv1a64(m.scenarioText)
            try m.write(to: parts)
        }
        let message = error { try mergeShards([a.path, b.path], into: root.appendingPathComponent("out")) }
        #expect(message?.hasPrefix("part file \(a.path)/parts/r0-b0.counts belongs to another run: it was written with seed 7, this run has seed 8") == true,
                "\(message ?? "")")
    }

    @Test func partsWithoutRowsDoNotMergeAsARunWithThem() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
        try shard(0, in: a)
        try shard(1, in: b)
        let (s, first, parts) = try ShardMerge.check([a.path, b.path]) { m in
            var s = try ScenarioLoader.parse(yaml: m.scenarioText, file: m.scenarioPath)
            try m.overrides.apply(to: &s)
            return s
        }
        let message = error { _ = try Assembly.load(s, from: parts, widgetDays: true, identity: PartIdentity(first)) }
        #expect(message == "part file \(a.path)/parts/r0-b0.counts belongs to another run: it has no widget_days rows, where the manifest records a run with them")
    }
}
