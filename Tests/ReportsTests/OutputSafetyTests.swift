import EngineTestSupport
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
@testable import WidgetSimReports
import WidgetSimScenario

/// No result lost silently: finished reports and finished blocks are replaced only on
/// request, one run at a time per folder, interruptions say how to resume, and a report
/// is replaced as a whole or not at all.
@Suite struct OutputSafetyTests {
    func tiny(_ change: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        var s = try loadScenario("tiny.yaml")
        change(&s)
        return s
    }

    func options(_ folder: URL, seed: UInt64? = nil) throws -> RunOptions {
        var o = RunOptions(outputFolder: folder, threads: 1)
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        o.provenance.scenarioText = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        o.provenance.overrides.seed = seed
        o.widgetDays = false
        return o
    }

    func refusal(_ body: () throws -> RunOutcome) -> String? {
        do {
            _ = try body()
            return nil
        } catch let r as RunRefusal {
            return r.description
        } catch {
            return "not a refusal: \(error)"
        }
    }

    @Test func aFinishedReportOfAnotherRunIsNotOverwritten() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try RunJob.execute(try tiny(), try options(folder))
        let before = try reports(in: folder)
        // Another configuration (another seed) into the same folder: refused, untouched.
        let message = refusal { try RunJob.execute(try tiny { $0.seed = 99 }, try options(folder, seed: 99)) }
        #expect(message?.contains("holds the finished report of another run (scenario `tiny`") == true, "\(message ?? "")")
        #expect(message?.contains("add --force to replace it, or give another --out folder to keep both") == true)
        #expect(try reports(in: folder) == before)
        // The same configuration again is no loss; --force replaces another.
        #expect(finished(try RunJob.execute(try tiny(), try options(folder))) != nil)
        var forced = try options(folder, seed: 99)
        forced.force = true
        #expect(finished(try RunJob.execute(try tiny { $0.seed = 99 }, forced)) != nil)
        #expect(try reports(in: folder) != before)
    }

    @Test func aRerunWithoutResumeKeepsFinishedBlocks() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var first = try options(folder)
        first.stopAfterBlocks = 1
        guard case .interrupted(1, _) = try RunJob.execute(try tiny(), first) else {
            Issue.record("the first run did not stop after one block")
            return
        }
        let parts = folder.appendingPathComponent("parts")
        let message = refusal { try RunJob.execute(try tiny(), try options(folder)) }
        #expect(message == "\(folder.path) holds 1 finished block of an unfinished run; add --resume to finish that run, or --force to discard them and start over")
        #expect(OutputFolder.finishedBlocks(in: parts) == 1)
        var resumed = try options(folder)
        resumed.resume = true
        #expect(finished(try RunJob.execute(try tiny(), resumed)) != nil)
    }

    @Test func aSecondRunSaysWhichProcessHoldsTheFolder() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lock = try OutputFolder.lock(folder)
        let message = refusal { try RunJob.execute(try tiny(), try options(folder)) }
        #expect(message == "another run (process \(getpid())) is writing to \(folder.path); wait for it to finish, or give this run another --out folder")
        withExtendedLifetime(lock) {}
    }

    @Test func resumeOnAFinishedRunSaysSoAndDoesNothing() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try RunJob.execute(try tiny(), try options(folder))
        let before = try reports(in: folder)
        var again = try options(folder)
        again.resume = true
        guard case .alreadyFinished(let when) = try RunJob.execute(try tiny(), again) else {
            Issue.record("--resume on a finished run ran again")
            return
        }
        #expect(when.hasPrefix("20"))
        #expect(try reports(in: folder) == before)
    }

    @Test func aStopRequestLeavesAResumableRun() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var o = try options(folder)
        o.shouldStop = { @Sendable in true }
        guard case .interrupted(0, let total) = try RunJob.execute(try tiny(), o) else {
            Issue.record("a stop request did not interrupt the run")
            return
        }
        #expect(total > 0)
        var resumed = try options(folder)
        resumed.resume = true
        #expect(finished(try RunJob.execute(try tiny(), resumed)) != nil)
    }

    @Test func staleTemporaryFilesOfKilledRunsAreRemoved() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fm = FileManager.default
        // What kills at the end of a run leave: a report file half written, parts set aside.
        try "half".write(to: folder.appendingPathComponent(".summary.csv.partial-99999"), atomically: false, encoding: .utf8)
        try fm.createDirectory(at: folder.appendingPathComponent(".parts-old-99999"), withIntermediateDirectories: true)
        try "mine".write(to: folder.appendingPathComponent(".notes"), atomically: false, encoding: .utf8)
        _ = try RunJob.execute(try tiny(), try options(folder))
        let names = Set(try fm.contentsOfDirectory(atPath: folder.path))
        #expect(names == [".notes", "summary.csv", "daily.csv", "comparison.csv", "reasons.csv", "batches.csv", "schema.json", "run.json"])
    }

    @Test func aKillBeforeThePartsAreRemovedLeavesAResumableFolder() throws {
        // The moment after the reports are renamed into place, before parts/ is set
        // aside: a complete report beside complete parts. --resume finishes cleanly.
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let o = try options(folder)
        let s = try tiny()
        _ = try RunJob.execute(s, o)
        let before = try reports(in: folder)
        let parts = folder.appendingPathComponent("parts")
        let manifest = RunManifest(
            scenarioName: s.name, scenarioPath: o.provenance.scenarioPath, scenarioText: o.provenance.scenarioText,
            overrides: o.provenance.overrides, widgetDays: o.widgetDays, blocksPerReplication: BlockPlan(s).count, shard: nil)
        try RunJob.prepare(parts: parts, manifest: manifest, resume: false)
        let runner = Runner(scenario: s)
        runner.partsFolder = parts
        runner.partIdentity = PartIdentity(manifest)
        _ = try runner.run()
        var resumed = try options(folder)
        resumed.resume = true
        #expect(finished(try RunJob.execute(s, resumed)) != nil)
        #expect(!FileManager.default.fileExists(atPath: parts.path))
        #expect(try reports(in: folder) == before)
    }

    @Test func partsAreSetAsideInOneStep() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let parts = folder.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        try "x".write(to: parts.appendingPathComponent("r0-b0.counts"), atomically: false, encoding: .utf8)
        OutputFolder.removeParts(parts)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// Set aside at once, deleted in the background: when `execute` returns the folder
    /// holds the report and no parts; once the removals are finished, nothing else.
    @Test func partsRemovedInTheBackgroundAreGoneOnceFinished() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fm = FileManager.default
        var o = try options(folder)
        o.widgetDays = true
        o.removePartsInBackground = true
        _ = try RunJob.execute(try tiny(), o)
        #expect(!fm.fileExists(atPath: folder.appendingPathComponent("parts").path))
        OutputFolder.finishRemovals()
        let names = Set(try fm.contentsOfDirectory(atPath: folder.path))
        #expect(names == ["summary.csv", "daily.csv", "comparison.csv", "reasons.csv", "batches.csv",
                          "widget_days.csv", "schema.json", "run.json"])
    }

    @Test func partsSetAsideForTheBackgroundAreDeleted() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let parts = folder.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        for b in 0 ..< 40 {
            try Data(count: 70_000).write(to: parts.appendingPathComponent("r0-b\(b).counts"))
        }
        OutputFolder.removeParts(parts, inBackground: true)
        #expect(!FileManager.default.fileExists(atPath: parts.path))
        OutputFolder.finishRemovals()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func countsThatWouldOverflowNameThePersonDayAndWidget() throws {
        let s = try tiny()
        var totals = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: 0)
        var counts = PersonCounts(days: s.days, widgets: s.widgets.count)
        counts[1, widget: 2, .charged] = Int64.max
        try totals.add(counts, person: 0, replication: 0, pair: s.policyPairs[0], widgets: s.widgets)
        do {
            try totals.add(counts, person: 7, replication: 1, pair: s.policyPairs[0], widgets: s.widgets)
            Issue.record("an overflowing total was accepted")
        } catch {
            #expect(error.description.hasPrefix("the counts of person 7 (replication 1), day 1, widget `news`, under unlimited × static exceed"))
        }
    }

    @Test func totalsOverPeopleAreTheSumsAndAnOverflowLeavesThemAsTheyWere() throws {
        let s = try tiny()
        var g = SystemRandomNumberGenerator()
        var totals = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: 1)
        var people: [PersonCounts] = []
        for _ in 0 ..< 5 {
            var c = PersonCounts(days: s.days, widgets: s.widgets.count)
            for i in c.person.indices { c.person[i] = Int64.random(in: -1000 ... 1_000_000, using: &g) }
            for i in c.widget.indices { c.widget[i] = Int64.random(in: 0 ... 40, using: &g) }
            for i in c.refusals.indices { c.refusals[i] = Int64.random(in: 0 ... 9, using: &g) }
            for i in c.missedViews.indices { c.missedViews[i] = Int64.random(in: 0 ... 9, using: &g) }
            try totals.add(c, person: people.count, replication: 0, pair: s.policyPairs[0], widgets: s.widgets)
            people.append(c)
        }
        #expect(totals.people == 5)
        for i in totals.person.indices { #expect(totals.person[i] == people.reduce(0) { $0 + $1.person[i] }) }
        for i in totals.widget.indices { #expect(totals.widget[i] == people.reduce(0) { $0 + $1.widget[i] }) }
        for i in totals.refusals.indices { #expect(totals.refusals[i] == people.reduce(0) { $0 + $1.refusals[i] }) }
        for i in totals.missedViews.indices { #expect(totals.missedViews[i] == people.reduce(0) { $0 + $1.missedViews[i] }) }
        var histogram: [Int64] = []
        for c in people {
            for day in 1 ..< s.days {
                for w in 0 ..< s.widgets.count {
                    let k = Int(c.reloads(day: day, widget: w))
                    if k >= histogram.count { histogram += Array(repeating: 0, count: k + 1 - histogram.count) }
                    histogram[k] += 1
                }
            }
        }
        #expect(totals.reloadHistogram == histogram)
        #expect(totals.reloadHistogram.reduce(0, +) == Int64(5 * (s.days - 1) * s.widgets.count))
        // An overflow in a person counter, then in a widget counter after the person
        // counters were added: the totals are those before either.
        let before = totals
        var high = PersonCounts(days: s.days, widgets: s.widgets.count)
        high[1, .views] = Int64.max
        #expect(throws: CountOverflow.self) {
            try totals.add(high, person: 9, replication: 0, pair: s.policyPairs[0], widgets: s.widgets)
        }
        #expect(totals == before)
        high = PersonCounts(days: s.days, widgets: s.widgets.count)
        high[0, .views] = 1
        high[1, widget: 2, .energyMilli] = Int64.max - 3
        high[1, widget: 2, .charged] = 1
        var wide = totals
        wide.widget[(1 * s.widgets.count + 2) * WidgetCounter.count + WidgetCounter.energyMilli.rawValue] = 4
        let wideBefore = wide
        do {
            try wide.add(high, person: 9, replication: 2, pair: s.policyPairs[0], widgets: s.widgets)
            Issue.record("an overflowing total was accepted")
        } catch {
            #expect(error.description.hasPrefix("the counts of person 9 (replication 2), day 1, widget `news`"))
        }
        #expect(wide == wideBefore)
        // Sums that reach the largest total exactly are no overflow.
        var edge = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: 0)
        var top = PersonCounts(days: s.days, widgets: s.widgets.count)
        top[0, widget: 0, .views] = Int64.max - 1
        top[0, .views] = Int64.min + 1
        try edge.add(top, person: 0, replication: 0, pair: s.policyPairs[0], widgets: s.widgets)
        top = PersonCounts(days: s.days, widgets: s.widgets.count)
        top[0, widget: 0, .views] = 1
        top[0, .views] = -1
        try edge.add(top, person: 1, replication: 0, pair: s.policyPairs[0], widgets: s.widgets)
        #expect(edge.value(day: 0, widget: 0, .views) == Int64.max)
        #expect(edge.value(day: 0, .views) == Int64.min)
    }

    @Test func randomLengthsBeyondAnyRunDoNotTrap() throws {
        // Values the scenario reader refuses, given in code: a run must still not trap.
        var content = ContentSpec()
        content.randomPerDay = 50
        content.pushFraction = 1
        content.pushLatencySigma = 30
        let s = scenario(people: 3, days: 2, widgets: [widget("a", base: 1, content: content)]) { p in
            p.sessionSigma = 40
        }
        let r = try run(s)
        #expect(r.personDays == 6)
        #expect(CheckedTime.milliseconds(1e300) == CheckedTime.limit)
        #expect(CheckedTime.milliseconds(-.infinity) == -CheckedTime.limit)
        #expect(CheckedTime.milliseconds(.nan) == 0)
        #expect(CheckedTime.milliseconds(12345) == 12345)
    }

    /// A report replaced on a nearly full disk: the earlier report stays whole and no
    /// temporary file is left. Needs a size-limited tmpfs, mounted when running as root.
    @Test func aReportIsReplacedWholeOrNotAtAll() throws {
        guard getuid() == 0 else {
            try Test.cancel("skipped: mounting a size-limited tmpfs needs root")
        }
        let mountPoint = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            try Test.cancel("skipped: cannot mount a tmpfs here (mount exited \(mount.terminationStatus))")
        }
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [mountPoint.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        // An earlier report on the small disk.
        let folder = mountPoint.appendingPathComponent("report")
        _ = try RunJob.execute(try tiny(), try options(folder))
        let before = try reports(in: folder)
        // A larger run's reports, to be written into the small disk once it is filled.
        let s = try tiny { $0.seed = 5; $0.days = 40 }
        let assembly = Assembly(result: try Runner(scenario: s).run(), rows: [])
        #expect(ReportWriter.daily(assembly.result).utf8.count > 32_768)
        // Fill the disk but for a little room: less than the new report needs.
        var stats = statvfs()
        statvfs(mountPoint.path, &stats)
        let free = Int(stats.f_bavail) * Int(stats.f_frsize)
        try Data(count: max(0, free - 16_384)).write(to: mountPoint.appendingPathComponent("filler"))
        let manifest = RunManifest(scenarioName: s.name, scenarioPath: "", scenarioText: "", overrides: RunOverrides(),
                                   widgetDays: false, blocksPerReplication: BlockPlan(s).count, shard: nil)
        let record = RunRecord(scenario: s, manifest: manifest, provenance: Provenance(), threads: 1, shards: nil,
                               started: Date(), finished: Date(), result: assembly.result)
        #expect(throws: (any Error).self) { try assembly.write(to: folder, record: record) }
        #expect(try reports(in: folder) == before, "the earlier report changed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
    }

    /// The reports are made on several threads (`Assembly.write(to:record:threads:)`):
    /// every file is the one a single thread writes, byte for byte, widget_days.csv
    /// included; and a rows log missing on the disk fails the write on any number of
    /// threads and leaves neither a report nor a temporary file.
    @Test func reportsWrittenOnSeveralThreadsAreThoseOfOne() throws {
        let s = try tiny { $0.seed = 9; $0.days = 5 }
        let parts = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parts) }
        let runner = Runner(scenario: s, threads: 2)
        runner.partsFolder = parts
        runner.partRows = { _ in WidgetDayRows(s, pairs: s.policyPairs) }
        let result = try runner.run()
        let ranges = runner.rowsRanges
        let rows = BlockPlan(s).all.map { (parts: parts, range: ranges[$0]!) }
        let assembly = Assembly(result: result, rows: rows)
        let manifest = RunManifest(scenarioName: s.name, scenarioPath: "", scenarioText: "", overrides: RunOverrides(),
                                   widgetDays: true, blocksPerReplication: BlockPlan(s).count, shard: nil)
        let record = RunRecord(scenario: s, manifest: manifest, provenance: Provenance(), threads: 1, shards: nil,
                               started: Date(), finished: Date(), result: assembly.result)
        var written: [[String: Data]] = []
        for threads in [1, 2, 3, 8] {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try assembly.write(to: folder, record: record, threads: threads)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            written.append(try Dictionary(uniqueKeysWithValues: names.map {
                ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
            }))
        }
        #expect(Set(written[0].keys).isSuperset(of: ["summary.csv", "daily.csv", "comparison.csv", "reasons.csv",
                                                     "widget_days.csv", "schema.json", "run.json"]))
        #expect((written[0]["widget_days.csv"]?.count ?? 0) > 10_000)
        for (k, files) in written.enumerated().dropFirst() {
            for (name, data) in written[0] where files[name] != data {
                Issue.record("\(name) differs on \([1, 2, 3, 8][k]) threads")
            }
            #expect(Set(files.keys) == Set(written[0].keys))
        }
        // A rows log gone: no report, nothing left behind.
        try FileManager.default.removeItem(at: RowsLog.url(parts, rows[rows.count / 2].range.log))
        for threads in [1, 3] {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(throws: (any Error).self) { try assembly.write(to: folder, record: record, threads: threads) }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            #expect(left.isEmpty, "\(threads) threads left \(left)")
        }
    }

    /// On one thread every block's rows go, in report order, into one log after the
    /// header: widget_days.csv is that log, linked into place (the same file on the disk),
    /// and its bytes are those copied from two logs (a run that stopped half way and was
    /// resumed). A log with anything else in it (a gap, bytes after the last block,
    /// another header) is copied instead.
    @Test func aRunOnOneThreadLinksItsLogAsWidgetDays() throws {
        let s = try tiny { $0.seed = 9; $0.days = 5 }
        let header = Array(ReportWriter.widgetDaysHeader(Study(single: s)).utf8)
        let blocks = BlockPlan(s).all
        #expect(blocks.count > 2)
        /// The blocks run in `halves` runs one after another, each a runner of its own:
        /// the whole run's result, and where each block's rows are.
        func run(halves: Int, into parts: URL) throws -> Assembly {
            var ranges: [BlockID: RowsRange] = [:]
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            for k in 0 ..< halves {
                let runner = Runner(scenario: s)
                runner.partsFolder = parts
                runner.partRows = { _ in WidgetDayRows(s, pairs: s.policyPairs) }
                runner.partRowsHeader = header
                _ = try runner.run(blocks: Array(blocks[k * blocks.count / halves ..< (k + 1) * blocks.count / halves]))
                ranges.merge(runner.rowsRanges) { a, _ in a }
            }
            return Assembly(result: try Runner(scenario: s).run(), rows: blocks.map { (parts: parts, range: ranges[$0]!) })
        }
        let manifest = RunManifest(scenarioName: s.name, scenarioPath: "", scenarioText: "", overrides: RunOverrides(),
                                   widgetDays: true, blocksPerReplication: BlockPlan(s).count, shard: nil)
        func write(_ assembly: Assembly, to folder: URL) throws -> Data {
            let record = RunRecord(scenario: s, manifest: manifest, provenance: Provenance(), threads: 1, shards: nil,
                                   started: Date(), finished: Date(), result: assembly.result)
            try assembly.write(to: folder, record: record)
            return try Data(contentsOf: folder.appendingPathComponent("widget_days.csv"))
        }
        func inode(_ u: URL) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: u.path)[.systemFileNumber] as? Int)
        }
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let one = try run(halves: 1, into: root.appendingPathComponent("parts-1"))
        let two = try run(halves: 2, into: root.appendingPathComponent("parts-2"))
        #expect(Set(two.rows.map(\.range.log)) == [0, 1])
        #expect(WidgetDaysFile.wholeLog(one.rows, header: header) == RowsLog.url(root.appendingPathComponent("parts-1"), 0))
        #expect(WidgetDaysFile.wholeLog(two.rows, header: header) == nil)
        let linked = try write(one, to: root.appendingPathComponent("one"))
        let copied = try write(two, to: root.appendingPathComponent("two"))
        #expect(linked == copied)
        #expect(linked.starts(with: header) && linked.count > 10_000)
        #expect(try inode(root.appendingPathComponent("one/widget_days.csv"))
                == inode(RowsLog.url(root.appendingPathComponent("parts-1"), 0)))

        var gap = one.rows
        gap.removeSubrange(1 ... 1)
        #expect(WidgetDaysFile.wholeLog(gap, header: header) == nil)
        #expect(WidgetDaysFile.wholeLog(one.rows, header: header + Array("x".utf8)) == nil)
        var otherHeader = header
        otherHeader[0] ^= 1
        #expect(WidgetDaysFile.wholeLog(one.rows, header: otherHeader) == nil)
        let log = RowsLog.url(root.appendingPathComponent("parts-1"), 0)
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("tail\n".utf8))
        try handle.close()
        #expect(WidgetDaysFile.wholeLog(one.rows, header: header) == nil)
    }
}
