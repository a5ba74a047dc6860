import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// Parameter studies run: each point as a plain run of its file, paired across points,
/// and cut into blocks like any run (threads, resume, shards, merge).
@Suite struct StudyRunTests {
    static let values = ["4", "12", "40"]

    /// tiny.yaml with its quota's daily limit written in, and two more replications.
    func tinyText(perDay: String = "12") throws -> String {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        #expect(text.contains("{policy: daily_quota, per_day: 12}"))
        return text.replacingOccurrences(of: "{policy: daily_quota, per_day: 12}", with: "{policy: daily_quota, per_day: \(perDay)}")
            .replacingOccurrences(of: "people: 3", with: "people: 3\nreplications: 3")
    }

    /// tiny.yaml with a study of the quota's daily limit.
    func studyText() throws -> String {
        try tinyText() + """

            study:
              parameters:
                - {path: budgets.daily_quota.per_day, values: [\(Self.values.joined(separator: ", "))]}

            """
    }

    func options(_ folder: URL, text: String, threads: Int = 1) -> RunOptions {
        var o = RunOptions(outputFolder: folder, threads: threads)
        o.provenance.scenarioPath = "study.yaml"
        o.provenance.scenarioText = text
        return o
    }

    func read(_ folder: URL, _ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// A CSV's rows without the named columns (the files here hold no quoted fields).
    func rows(_ csv: String, dropping columns: Set<String>) -> [String] {
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let keep = lines[0].indices.filter { !columns.contains(lines[0][$0]) }
        return lines.map { fields in keep.map { fields[$0] }.joined(separator: ",") }
    }

    @Test func eachPointEqualsAPlainRunOfItsFile() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let study = try ScenarioLoader.study(yaml: try studyText(), file: "study.yaml")
        #expect(study.points.count == 3)
        _ = try RunJob.execute(study, options(root.appendingPathComponent("study"), text: try studyText()))
        // The run id differs (the study's file is another text): set aside with the identity.
        let identity = Set(["run_id"] + ReportWriter.identityColumns + ["point", "budgets.daily_quota.per_day"])
        let studyRows = rows(try read(root.appendingPathComponent("study"), "summary.csv"), dropping: identity)
        let studyDaily = rows(try read(root.appendingPathComponent("study"), "daily.csv"), dropping: identity)
        let studyReasons = rows(try read(root.appendingPathComponent("study"), "reasons.csv"), dropping: identity)
        let reasonsHeader = try read(root.appendingPathComponent("study"), "reasons.csv").prefix { $0 != "\n" }
        #expect(reasonsHeader.hasPrefix("run_id," + ReportWriter.identityColumns.joined(separator: ",") + ",point,budgets.daily_quota.per_day,day"))
        let studyHeader = try read(root.appendingPathComponent("study"), "summary.csv").prefix { $0 != "\n" }
        #expect(studyHeader.hasPrefix("run_id," + ReportWriter.identityColumns.joined(separator: ",") + ",point,budgets.daily_quota.per_day,people"))
        let perPoint = (studyRows.count - 1) / 3, perPointDaily = (studyDaily.count - 1) / 3
        // A point's reasons rows: those of its number (each point has as many as its counts need).
        let reasonsText = try read(root.appendingPathComponent("study"), "reasons.csv").split(separator: "\n").map(String.init)
        let pointColumn = reasonsText[0].split(separator: ",").firstIndex(of: "point")!
        func reasonsOfPoint(_ k: Int) -> [String] {
            let mine = reasonsText.dropFirst().filter { $0.split(separator: ",", omittingEmptySubsequences: false)[pointColumn] == "\(k)" }
            return Array(rows(([reasonsText[0]] + mine).joined(separator: "\n"), dropping: identity).dropFirst())
        }
        #expect(studyReasons.count - 1 == (0 ..< 3).reduce(0) { $0 + reasonsOfPoint($1).count })
        var plainRows: [String] = [], plainDaily: [String] = [], exhausted: [Int] = []
        for (k, v) in Self.values.enumerated() {
            let text = try tinyText(perDay: v)
            let s = try ScenarioLoader.parse(yaml: text, file: "plain.yaml")
            let folder = root.appendingPathComponent("plain-\(v)")
            _ = try RunJob.execute(s, options(folder, text: text))
            let plain = rows(try read(folder, "summary.csv"), dropping: identity)
            let daily = rows(try read(folder, "daily.csv"), dropping: identity)
            let reasons = rows(try read(folder, "reasons.csv"), dropping: identity)
            #expect(plain[0] == studyRows[0], "the same columns once identity is set aside")
            #expect(Array(plain.dropFirst()) == Array(studyRows[1 + k * perPoint ..< 1 + (k + 1) * perPoint]), "point \(k)")
            #expect(Array(daily.dropFirst()) == Array(studyDaily[1 + k * perPointDaily ..< 1 + (k + 1) * perPointDaily]), "point \(k)")
            #expect(Array(reasons.dropFirst()) == reasonsOfPoint(k), "point \(k)")
            plainRows += plain.dropFirst()
            exhausted.append(reasons.filter { $0.contains(",refusal,quota_exhausted,") }.map { Int($0.split(separator: ",").last!)! }.reduce(0, +))
            plainDaily += daily.dropFirst()
        }
        // The limit matters to the quota: the points are not all the same run.
        #expect(Set(plainRows).count > plainRows.count / 2)
        // The quota's refusals are counted at every point, fewer as its limit rises.
        #expect(exhausted[0] > exhausted[1] && exhausted[1] > exhausted[2] && exhausted[2] > 0, "\(exhausted)")
    }

    @Test func aValueThatCannotMatterGivesExactlyZeroPairedDifference() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let text = try studyText()
        let study = try ScenarioLoader.study(yaml: text, file: "study.yaml")
        guard case .finished(let result) = try RunJob.execute(study, options(root, text: text)) else {
            Issue.record("the study did not finish")
            return
        }
        let table = try read(root, "study.csv").split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = table[0]
        let diffs = header.indices.filter {
            !header[$0].contains("_step_") && (header[$0].hasSuffix("_diff_mean") || header[$0].hasSuffix("_diff_ci95_half_width"))
        }
        #expect(diffs.count == 2 * StudyTable.metrics.count)
        #expect(table.count == 1 + 3 * 4)
        var quotaMoved = false
        for row in table.dropFirst() {
            let budget = row[header.firstIndex(of: "budget")!]
            if row[header.firstIndex(of: "point")!] == "0" {
                // The baseline point has no difference to itself.
                #expect(diffs.allSatisfy { row[$0] == "" }, "\(row)")
            } else if budget == "unlimited" {
                // A daily limit of a policy this pair does not use: the same people, the same run.
                #expect(diffs.allSatisfy { row[$0] == "0.0" }, "\(row)")
            } else {
                quotaMoved = quotaMoved || diffs.contains { row[$0] != "0.0" && row[$0] != "" }
            }
        }
        #expect(quotaMoved, "the quota's limit changes the quota pairs")
        // The paired difference is the mean of per-replication differences.
        let stale = Metrics.all.first { $0.name == "stale_view_share" }!
        let pair = result.results[2].pairs.firstIndex(of: PolicyPair(budget: "daily_quota", ranking: "static"))!
        let x = Comparison.values(result.results[2], pair: pair, stale).map { $0! }
        let y = Comparison.values(result.results[0], pair: pair, stale).map { $0! }
        let e = StudyTable.entry(result.results, study: study, point: 2, pair: pair, stale)
        #expect(abs(e.difference.mean! - zip(x, y).map { $0 - $1 }.reduce(0, +) / 3) < 1e-12)
        #expect(e.difference.mean! < 0, "a larger limit leaves fewer stale views")
    }

    @Test func threadsResumeAndShardsGiveTheSameStudyBytes() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let text = try studyText()
        let study = try ScenarioLoader.study(yaml: text, file: "study.yaml")
        _ = try RunJob.execute(study, options(root.appendingPathComponent("one"), text: text))
        let single = try reports(in: root.appendingPathComponent("one"))
        #expect(single.count == 7 && single["study.csv"] != nil && single["reasons.csv"] != nil && single["schema.json"] != nil)

        _ = try RunJob.execute(study, options(root.appendingPathComponent("two"), text: text, threads: 2))
        #expect(try reports(in: root.appendingPathComponent("two")) == single)

        var stopped = options(root.appendingPathComponent("resumed"), text: text, threads: 2)
        stopped.stopAfterBlocks = 20
        guard case .interrupted(let done, let total) = try RunJob.execute(study, stopped) else {
            Issue.record("the study was not interrupted")
            return
        }
        #expect(done == 20 && total == 3 * 3 * 3)
        var resumed = options(root.appendingPathComponent("resumed"), text: text)
        resumed.resume = true
        _ = try RunJob.execute(study, resumed)
        #expect(try reports(in: root.appendingPathComponent("resumed")) == single)

        for n in [2, 3, 5] {
            let folders = try (0 ..< n).map { k in
                let folder = root.appendingPathComponent("\(n)/shard-\(k)")
                var o = options(folder, text: text)
                o.shard = Shard(index: k, count: n)
                guard case .shardWritten = try RunJob.execute(study, o) else {
                    Issue.record("shard \(k)/\(n) wrote no parts")
                    return folder.path
                }
                return folder.path
            }
            let (rebuilt, first, parts) = try ShardMerge.check(folders.reversed()) { m in
                try ScenarioLoader.study(yaml: m.scenarioText, file: m.scenarioPath)
            }
            #expect(first.points == 3)
            let out = root.appendingPathComponent("\(n)/merged")
            let assembled = try Assembly.load(rebuilt, from: parts, widgetDays: first.widgetDays,
                                              identity: PartIdentity(first))
            let record = RunRecord(scenario: rebuilt.first, manifest: first, provenance: Provenance(), threads: nil,
                                   shards: n, started: Date(), finished: Date(), results: assembled.results, study: rebuilt)
            try assembled.write(to: out, record: record)
            #expect(try reports(in: out) == single, "\(n) shards")
        }
    }

    @Test func everyPointSeesTheSamePeople() throws {
        // The views of a person do not depend on any budget: equal at every point.
        let study = try ScenarioLoader.study(yaml: try studyText(), file: "study.yaml")
        let results = try Runner(study: study, threads: 2).runPoints(blocks: BlockPlan(study).all)
        let views = results.map { r in (0 ..< 3).map { totals(r, "daily_quota", "static", replication: $0).sum(PersonCounter.views, days: 0 ..< 2) } }
        #expect(views[0] == views[1] && views[1] == views[2])
        #expect(Set(views[0]).count > 1, "replications differ")
    }
}

extension StudyRunTests {
    /// Runs the built `widgetsim` with `arguments`; its exit status and output.
    func widgetsim(_ arguments: [String]) throws -> (Int32, String) {
        let binary = try #require(SlurmTests.widgetsimBinary(), "no widgetsim binary beside the tests: swift build --build-tests")
        let log = temporaryFolder().appendingPathComponent("out.txt")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        let status = try SlurmTests.run(binary.path, arguments, output: log)
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test func theCommandLineListsPointsAndRefusesBadStudiesWithStatus2() throws {
        let (listed, points) = try widgetsim(["run", "scenarios/tiny.yaml", "--sweep", "budgets.daily_quota.per_day=4..40:12",
                                              "--sweep", "widgets.news.timeline.reload.after=15m,1h", "--points"])
        #expect(listed == 0)
        #expect(points.contains("point  budgets.daily_quota.per_day  widgets.news.timeline.reload.after\n0 *    4                            15m\n"))
        #expect(points.contains("\n7      40                           1h\n"))
        let (status, message) = try widgetsim(["run", "scenarios/tiny.yaml", "--sweep", "budgets.daily_quota.per_dya=4,8"])
        #expect(status == 2)
        #expect(message == "(command line):0:0: --sweep budgets.daily_quota.per_dya=4,8: unknown path `budgets.daily_quota.per_dya`; did you mean `budgets.daily_quota.per_day`?\n")
        let (point, _) = try widgetsim(["run", "scenarios/tiny.yaml", "--sweep", "person.no_interest=0.1,0.2", "--point", "2"])
        #expect(point == 2)
    }
}

extension StudyRunTests {
    @Test func theExampleStudyReads() throws {
        let study = try ScenarioLoader.loadStudy(path: repositoryRoot.appendingPathComponent("scenarios/study-budget.yaml").path)
        #expect(study.parameters == ["budgets.quota.per_day", "person.views_per_day.mean"])
        #expect(study.points.count == 16)
        #expect(Set(study.points.map(\.scenario.seed)).count == 1, "every point has the same people")
        #expect(study.points.last!.values == ["128", "120"])
    }
}

extension StudyRunTests {
    @Test func onePointKeepsItsNumberAndProgressNamesThePoint() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let text = try studyText()
        let study = try ScenarioLoader.study(yaml: text, file: "study.yaml", StudyRequest(point: 2))
        #expect(study.points.count == 1 && study.totalPoints == 3)
        _ = try RunJob.execute(study, options(root.appendingPathComponent("two"), text: text))
        let summary = try read(root.appendingPathComponent("two"), "summary.csv").split(separator: "\n").dropFirst()
        #expect(summary.count == 3 * 4)
        #expect(summary.allSatisfy { $0.split(separator: ",")[6 ... 7] == ["2", "40"] })
        // Without the baseline point, study.csv has no differences: their columns, empty
        // on every row, are not written.
        let table = try read(root.appendingPathComponent("two"), "study.csv").split(separator: "\n")
        let header = table[0].split(separator: ",", omittingEmptySubsequences: false)
        #expect(header.contains("stale_view_share_mean") && !header.contains { $0.hasSuffix("_diff_mean") })
        #expect(table.count == 1 + 4)

        let whole = try ScenarioLoader.study(yaml: text, file: "study.yaml")
        let runner = Runner(study: whole, threads: 1)
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var entries: [(point: Int, points: Int, done: Int)] = []
        }
        let seen = Log()
        runner.onProgress = { p in
            seen.lock.lock()
            seen.entries.append((p.point, p.points, p.unitsDone))
            seen.lock.unlock()
        }
        _ = try runner.runPoints(blocks: runner.plan.all)
        let log = seen.entries
        #expect(log.map(\.point) == (0 ..< 3).flatMap { Array(repeating: $0, count: 3 * 3) })
        #expect(log.allSatisfy { $0.points == 3 } && log.map(\.done) == Array(1 ... 27))
    }
}

extension StudyRunTests {
    /// The example study's 16 points with few people: study.csv's steps between
    /// consecutive points along each parameter.
    @Test func stepsBetweenConsecutivePointsAlongEachParameter() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = repositoryRoot.appendingPathComponent("scenarios/study-budget.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "\npeople: 200\n", with: "\npeople: 6\n").replacingOccurrences(of: "\ndays: 3\n", with: "\ndays: 1\n")
        let study = try ScenarioLoader.study(yaml: text, file: "study-budget.yaml")
        #expect(study.points.count == 16)
        guard case .finished(let result) = try RunJob.execute(study, options(root, text: text)) else {
            Issue.record("the study did not finish")
            return
        }
        // Points: per_day 8 (views 40, 120), 16 (40, 120), …: point 2 follows point 0
        // along the limit, point 1 follows point 0 along the views; point 3 follows 1 and 2.
        #expect(StudyTable.previous(study, point: 0, along: 0) == nil)
        #expect(StudyTable.previous(study, point: 0, along: 1) == nil)
        #expect(StudyTable.previous(study, point: 2, along: 0) == 0)
        #expect(StudyTable.previous(study, point: 1, along: 1) == 0)
        #expect(StudyTable.previous(study, point: 3, along: 0) == 1)
        #expect(StudyTable.previous(study, point: 3, along: 1) == 2)
        #expect(StudyTable.previous(study, point: 15, along: 0) == 13)

        let csv = try read(root, "study.csv").split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = csv[0]
        let along = "stale_view_share_step_budgets.quota.per_day_diff_mean"
        let alongViews = "stale_view_share_step_person.views_per_day.mean_diff_mean"
        let c = try #require(header.firstIndex(of: along)), v = try #require(header.firstIndex(of: alongViews))
        #expect(header.contains("stale_view_share_step_budgets.quota.per_day_diff_ci95_half_width"))
        func row(_ point: String, _ budget: String) throws -> [String] {
            try #require(csv.first { $0[header.firstIndex(of: "point")!] == point && $0[header.firstIndex(of: "budget")!] == budget })
        }
        // The first value of a parameter has no step along it.
        #expect(try row("0", "quota")[c] == "" && row("0", "quota")[v] == "")
        #expect(try row("1", "quota")[c] == "" && row("1", "quota")[v] != "")
        // A limit the unlimited budget never uses: the same people, no change at all.
        #expect(try row("2", "unlimited")[c] == "0.0")
        // The step is the paired difference to the previous point, by the formulas of the baseline difference.
        let stale = Metrics.all.first { $0.name == "stale_view_share" }!
        let pair = result.results[3].pairs.firstIndex(of: PolicyPair(budget: "quota", ranking: "static"))!
        let x = Comparison.values(result.results[3], pair: pair, stale).map { $0! }
        let y = Comparison.values(result.results[1], pair: pair, stale).map { $0! }
        let expected = zip(x, y).map { $0 - $1 }.reduce(0, +) / Double(x.count)
        #expect(abs(Double(try row("3", "quota")[c])! - expected) < 1e-12)
        #expect(expected != 0)
    }
}
