import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

/// The reports of `scenarios/tiny.yaml`, pinned byte for byte. After an intended
/// change of the model or the reports, regenerate them with
/// `WIDGETSIM_UPDATE_GOLDEN=1 swift test --filter GoldenTests` and review the diff.
@Suite struct GoldenTests {
    static let files = ["summary.csv", "daily.csv", "comparison.csv", "reasons.csv", "widget_days.csv", "batches.csv", "schema.json"]

    func runTiny(threads: Int, into folder: URL) throws {
        let s = try loadScenario("tiny.yaml")
        _ = try RunJob.execute(s, RunOptions(outputFolder: folder, threads: threads))
    }

    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test func tinyScenarioMatchesTheGoldenReports() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try runTiny(threads: 1, into: folder)
        let golden = repositoryRoot.appendingPathComponent("Tests/ReportsTests/Golden/tiny")
        for name in Self.files {
            let produced = try read(folder.appendingPathComponent(name))
            if ProcessInfo.processInfo.environment["WIDGETSIM_UPDATE_GOLDEN"] == "1" {
                try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
                try produced.write(to: golden.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            let expected = try read(golden.appendingPathComponent(name))
            #expect(produced == expected, "\(name) differs from its golden copy")
        }
    }

    /// Without rotation limits the tiny scenario gives the reports it gave before the
    /// rotation governor existed (`Golden/tiny-no-limits`, kept from then): the governor
    /// with `rotation_limits: none` changes nothing.
    @Test func noRotationLimitsReproduceTheReportsOfUngovernedRankings() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var s = try loadScenario("tiny.yaml")
        s.stack.rotationLimits = .none
        _ = try RunJob.execute(s, RunOptions(outputFolder: folder, threads: 1))
        let golden = repositoryRoot.appendingPathComponent("Tests/ReportsTests/Golden/tiny-no-limits")
        // The copy predates the report schema: compared on the columns both have.
        let keys: [String: [String]] = [
            "summary.csv": ["budget", "ranking", "replication"], "daily.csv": ["budget", "ranking", "replication", "day"],
            "comparison.csv": ["budget", "ranking", "metric"],
            "widget_days.csv": ["budget", "ranking", "replication", "person", "day", "widget"],
        ]
        for name in ["summary.csv", "daily.csv", "comparison.csv", "widget_days.csv"] {
            let problems = sharedColumnsProblems(
                try read(folder.appendingPathComponent(name)), try read(golden.appendingPathComponent(name)), key: keys[name]!,
                // With one replication the intervals now come from blocks; the baseline's self-difference is
                // empty; `replications` is the run's (the copy's counted those where the metric is defined).
                ignoring: ["replications", "sd", "ci95_half_width", "diff_mean", "diff_sd", "diff_ci95_half_width"],
                skip: { row in row["metric"].map { Metrics.named($0) == nil } ?? false })
            #expect(problems.isEmpty, "\(name) differs from the ungoverned copy: \(problems.prefix(5))")
        }
    }

    /// The same for all nine rankings (6 people, 4 days; `Golden/tiny-nine-no-limits`,
    /// written before the governor existed): every row but `ios_like`'s, whose quota,
    /// hold and cool-down moved into the governor, is unchanged without limits — and
    /// but those of `relevance` and `hybrid`, which read the relevance history, since a
    /// history holds its entries by date and a widget's highest score is a peak
    /// (MODEL §5); `RelevanceHistoryTests` and `RelevancePeakTests` pin those rules.
    @Test func noRotationLimitsReproduceEveryRankingButIosLike() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var s = try loadScenario("tiny.yaml")
        s.people = 6
        s.days = 4
        s.rankings = ["static", "time_of_day", "most_recent_donation", "donation_frequency", "relevance", "hybrid",
                      "ios_like", "thompson", "oracle"].map { PolicyChoice(name: $0) }
        s.stack.rotationLimits = .none
        _ = try RunJob.execute(s, RunOptions(outputFolder: folder, threads: 1))
        let golden = repositoryRoot.appendingPathComponent("Tests/ReportsTests/Golden/tiny-nine-no-limits")
        let changed: Set<String> = ["ios_like", "relevance", "hybrid"]
        func rows(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter {
                !changed.contains(String($0.split(separator: ",", omittingEmptySubsequences: false)[2]))
            }
        }
        let keys: [String: [String]] = [
            "summary.csv": ["budget", "ranking", "replication"], "daily.csv": ["budget", "ranking", "replication", "day"],
            "widget_days.csv": ["budget", "ranking", "replication", "person", "day", "widget"],
        ]
        for name in ["summary.csv", "daily.csv", "widget_days.csv"] {
            let expected = try read(golden.appendingPathComponent(name))
            #expect(rows(expected).count > 10)
            // The copy predates the report schema: compared on the columns both have.
            let problems = sharedColumnsProblems(
                try read(folder.appendingPathComponent(name)), expected, key: keys[name]!,
                skip: { changed.contains($0["ranking"] ?? "") })
            #expect(problems.isEmpty, "\(name) differs from the ungoverned copy: \(problems.prefix(5))")
        }
    }

    /// With several pairs, each trace line names its pair (every line carries the run's
    /// identity, as every report does).
    @Test func traceOfSeveralPairsNamesThePair() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var s = try loadScenario("tiny.yaml")
        s.people = 1
        var options = RunOptions(outputFolder: folder, traceFile: folder.appendingPathComponent("trace.csv"))
        options.widgetDays = false
        _ = try RunJob.execute(s, options)
        let lines = try read(folder.appendingPathComponent("trace.csv")).split(separator: "\n")
        #expect(lines.first == "run_id,scenario,budget,ranking,replication,seed,time_seconds,day,local_seconds,person,event,widget,decision,detail,reason,until_seconds,top_widget,top_relevance,wanted_widget,wanted_relevance")
        let pairs = Set(lines.dropFirst().map { $0.split(separator: ",")[2 ... 3].joined(separator: ",") })
        #expect(pairs == Set(s.policyPairs.map { "\($0.budget),\($0.ranking)" }))
        // Refusals carry their code: daily_quota's 12 a day refuse with quota_exhausted.
        #expect(lines.contains { $0.contains(",tiny,daily_quota,") && $0.contains(",quota_exhausted,") })
    }

    @Test func sameSeedSameBytesWhateverTheThreadCount() throws {
        let a = temporaryFolder(), b = temporaryFolder(), c = temporaryFolder()
        defer { [a, b, c].forEach { try? FileManager.default.removeItem(at: $0) } }
        try runTiny(threads: 1, into: a)
        try runTiny(threads: 1, into: b)
        try runTiny(threads: 3, into: c)
        for name in Self.files {
            let first = try read(a.appendingPathComponent(name))
            #expect(try first == read(b.appendingPathComponent(name)), "\(name): same seed, other bytes")
            #expect(try first == read(c.appendingPathComponent(name)), "\(name): 3 threads differ from 1")
        }
    }

    @Test func anotherSeedGivesOtherNumbers() throws {
        var s = try loadScenario("tiny.yaml")
        let first = try run(s).totals[0][0]
        s.seed += 1
        let second = try run(s).totals[0][0]
        #expect(first.person != second.person)
    }

    @Test func aFailedRunLeavesTheEarlierReportIntact() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try runTiny(threads: 1, into: folder)
        let before = try Self.files.map { try read(folder.appendingPathComponent($0)) }
        var broken = try loadScenario("tiny.yaml")
        broken.timeZone = "Mars/Olympus_Mons"
        #expect(throws: (any Error).self) { try RunJob.execute(broken, RunOptions(outputFolder: folder)) }
        let after = try Self.files.map { try read(folder.appendingPathComponent($0)) }
        #expect(before == after)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !Self.files.contains($0) && $0 != "run.json" && $0 != OutputFolder.lockName }
        #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
    }

    @Test func traceListsEveryHandledEvent() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var s = try loadScenario("tiny.yaml")
        s.people = 1
        s.budgets = [s.budgets[1]]
        s.rankings = [s.rankings[0]]
        var options = RunOptions(outputFolder: folder, traceFile: folder.appendingPathComponent("trace.csv"))
        options.widgetDays = false
        let r = try #require(finished(try RunJob.execute(s, options)))
        let lines = try read(folder.appendingPathComponent("trace.csv")).split(separator: "\n")
        #expect(lines.first == "run_id,scenario,budget,ranking,replication,seed,time_seconds,day,local_seconds,person,event,widget,decision,detail,reason,until_seconds,top_widget,top_relevance,wanted_widget,wanted_relevance")
        // One line per view, per session start and per content change, as counted.
        func count(of event: String) -> Int64 {
            Int64(lines.filter { $0.split(separator: ",", omittingEmptySubsequences: false)[10] == event }.count)
        }
        let t = r.totals[0][0]
        let all = 0 ..< s.days
        #expect(count(of: "view") == t.sum(PersonCounter.views, days: all))
        #expect(count(of: "session_start") == t.sum(.sessions, days: all))
        #expect(count(of: "content_change") == t.sum(.contentChanges, days: all))
        #expect(count(of: "view") > 50)
        let times = lines.dropFirst().map { Double($0.split(separator: ",")[5])! }
        #expect(times == times.sorted(), "trace lines are in time order")
        // The decision in columns: day and local time agree with the time; a deferral says
        // when it is due; a view names its top and wanted widgets and the reason of a miss.
        let rows = try csvRows(folder.appendingPathComponent("trace.csv"))
        var deferrals = 0, misses = 0
        for row in rows {
            let time = Double(row["time_seconds"]!)!
            #expect(Int(row["day"]!)! == Int(time / 86400))
            let local = try #require(Int(row["local_seconds"]!))
            #expect((0 ..< 86400).contains(local))
            if row["decision"] == "deferred" {
                deferrals += 1
                #expect(Double(row["until_seconds"]!)! > time)
                #expect(row["reason"] == "quota_exhausted")
            } else {
                #expect(row["until_seconds"] == "")
            }
            if row["event"] == "view" {
                #expect(row["top_widget"] != "")
                if row["decision"] == "wanted_not_on_top" {
                    misses += 1
                    #expect(row["wanted_widget"] != "" && row["wanted_widget"] != row["top_widget"] && row["reason"] != "")
                }
            }
        }
        #expect(deferrals > 0 && misses > 0)
    }
}

/// A CSV file's rows as dictionaries by column name (RFC 4180 quoting; no line breaks in fields).
func csvRows(_ url: URL) throws -> [[String: String]] {
    func fields(_ line: Substring) -> [String] {
        var out: [String] = [], field = "", quoted = false
        var chars = line.makeIterator()
        while let c = chars.next() {
            if quoted {
                if c == "\"" { quoted = false } else { field.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                out.append(field); field = ""
            } else {
                field.append(c)
            }
        }
        out.append(field)
        return out
    }
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    let header = fields(lines[0])
    return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, fields($0))) }
}
