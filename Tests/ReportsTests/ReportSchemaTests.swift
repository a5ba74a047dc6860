import EngineTestSupport
import Foundation
import Testing
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// What an analyst loads: every file described by the schema, one unit per quantity,
/// types that do not change with the data, identity on every row, warm-up kept apart,
/// intervals at one replication, numbers that read back exactly.
@Suite struct ReportSchemaTests {
    /// Runs `s` into a fresh folder and returns it.
    func report(_ s: Scenario, widgetDays: Bool = true) throws -> URL {
        let folder = temporaryFolder()
        var o = RunOptions(outputFolder: folder, threads: 2)
        o.widgetDays = widgetDays
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        _ = try RunJob.execute(s, o)
        return folder
    }

    func sheet(_ url: URL) throws -> (header: [String], rows: [[String]]) {
        var rows = CSV.parse(try String(contentsOf: url, encoding: .utf8))
        return (rows.removeFirst(), rows)
    }

    func schema(_ folder: URL) throws -> ReportSchema {
        let data = try Data(contentsOf: folder.appendingPathComponent("schema.json"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ReportSchema.self, from: data)
    }

    /// The tiny scenario, and variants that leave ratios undefined in every row.
    func variants() throws -> [(String, Scenario)] {
        let tiny = try loadScenario("tiny.yaml")
        var three = tiny
        three.replications = 3
        three.warmupDays = 1
        var still = tiny  // no rotations, no deferrals: rotation_precision and mean_deferral_seconds undefined everywhere
        still.budgets = still.budgets.filter { $0.name == "unlimited" }
        still.rankings = still.rankings.filter { $0.name == "static" }
        still.baseline = PolicyPair(budget: still.budgets[0].label, ranking: still.rankings[0].label)
        var lone = tiny  // one person, one replication: no interval can be computed
        lone.people = 1
        return [("one replication", tiny), ("three replications", three), ("one pair", still), ("one person", lone)]
    }

    /// schema.json lists exactly the files and columns written, and every cell fits its
    /// column's type: integers parse as Int64, doubles always carry a `.` or an exponent
    /// (so no reader takes a double column for integers), no column is empty on every
    /// row, and every file has the run's seed on every row.
    @Test func everyFileMatchesItsSchema() throws {
        for (name, s) in try variants() {
            let folder = try report(s)
            defer { try? FileManager.default.removeItem(at: folder) }
            try check(folder, name, s)
        }
    }

    /// A study's files too: its point columns (an integer, a duration, a word) and
    /// study.csv, with one replication (batches.csv) and with three.
    @Test func aStudysFilesMatchTheirSchema() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        for replications in ["1", "3"] {
            let request = StudyRequest(sets: ["replications=" + replications], sweeps: [
                "budgets.daily_quota.per_day=4,12", "widgets.news.timeline.reload.after=15m,1h", "stack.rotation_limits=ios,none",
            ])
            let study = try ScenarioLoader.study(yaml: text, file: "tiny.yaml", request)
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            var o = RunOptions(outputFolder: folder, threads: 2)
            o.provenance.scenarioPath = "scenarios/tiny.yaml"
            _ = try RunJob.execute(study, o)
            try check(folder, "a study, \(replications) replications", study.first)
            // After run_id and the identity: point, a number, a duration in seconds, a word.
            let types = try schema(folder).files.first { $0.file == "summary.csv" }!.columns.dropFirst(6).prefix(4).map(\.type)
            #expect(types == [.integer, .integer, .double, .string])
            let (header, rows) = try sheet(folder.appendingPathComponent("summary.csv"))
            let after = try #require(header.firstIndex(of: "widgets.news.timeline.reload.after"))
            #expect(Set(rows.map { $0[after] }) == ["900.0", "3600.0"])
            let table = try schema(folder).files.first { $0.file == "study.csv" }
            #expect(table?.columns.map(\.name).prefix(7) == ["run_id", "scenario", "seed", "point", "budgets.daily_quota.per_day",
                                                              "widgets.news.timeline.reload.after", "stack.rotation_limits"])
        }
    }

    func check(_ folder: URL, _ name: String, _ s: Scenario) throws {
        do {
            let schema = try schema(folder)
            let csvs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }.sorted()
            #expect(schema.files.map(\.file).sorted() == csvs, "\(name)")
            #expect(csvs.contains("batches.csv") == (s.replications == 1), "\(name)")
            let record = try RunRecord.read(try Data(contentsOf: folder.appendingPathComponent("run.json")))
            let runID = try #require(record.runId)
            for file in schema.files {
                let (header, rows) = try sheet(folder.appendingPathComponent(file.file))
                #expect(header == file.columns.map(\.name), "\(name): \(file.file)")
                #expect(!rows.isEmpty)
                // Every row of every file names its run, as run.json does.
                #expect(header.first == "run_id" && Set(rows.map { $0[0] }) == [runID], "\(name): \(file.file)")
                for (i, column) in file.columns.enumerated() {
                    let cells = rows.map { $0[i] }
                    #expect(cells.contains { !$0.isEmpty }, "\(name): \(file.file).\(column.name) is empty on every row")
                    if column.empty == nil { #expect(!cells.contains(""), "\(name): \(file.file).\(column.name)") }
                    for cell in cells where !cell.isEmpty {
                        switch column.type {
                        case .integer: #expect(Int64(cell) != nil, "\(file.file).\(column.name): \(cell)")
                        case .double:
                            #expect(Double(cell) != nil && (cell.contains(".") || cell.contains("e")),
                                    "\(file.file).\(column.name): \(cell)")
                        case .string: break
                        }
                    }
                }
                let seed = try #require(header.firstIndex(of: "seed"), "\(file.file) has no seed column")
                #expect(rows.allSatisfy { $0[seed] == String(s.seed) })
            }
        }
    }

    /// One unit per quantity: durations in seconds, energy in cost units, everywhere.
    @Test func csvFieldsAreQuotedByTheirBytes() {
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.field("a\nb") == "\"a\nb\"")
        // "\r\n" is one Swift character, equal to neither "\r" nor "\n": still a line break.
        #expect(CSV.field("a\r\nb") == "\"a\r\nb\"")
        #expect(CSV.row(["x", "y,z", ""]) == "x,\"y,z\",\n")
    }

    @Test func oneUnitPerQuantity() {
        for file in Schema.all.files {
            for c in file.columns {
                #expect(!c.name.hasSuffix("_ms") && !c.name.contains("minutes") && !c.name.contains("milli"), "\(file.file).\(c.name)")
                if c.name.contains("seconds") || c.name.contains("deferral") || c.name.contains("staleness") {
                    #expect(c.unit == "seconds" || c.type == .integer, "\(file.file).\(c.name)")
                }
                if c.name == "energy" { #expect(c.unit == "cost units" && c.type == .double) }
            }
        }
        #expect(Schema.all.files.allSatisfy { f in f.columns.contains { $0.name == "seed" } })
    }

    /// `docs/SCHEMA.md` is generated from the code; regenerate it with
    /// `WIDGETSIM_UPDATE_GOLDEN=1 swift test --filter ReportSchemaTests`.
    @Test func schemaDocumentMatchesTheCode() throws {
        let url = repositoryRoot.appendingPathComponent("docs/SCHEMA.md")
        if ProcessInfo.processInfo.environment["WIDGETSIM_UPDATE_GOLDEN"] == "1" {
            try Schema.markdown().write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == Schema.markdown(),
                "docs/SCHEMA.md is out of date: regenerate it (see this test's comment)")
    }

    /// `measured_days` beside `days`; widget_days.csv flags warm-up days, and its measured
    /// rows add up to summary.csv.
    @Test func warmUpIsKeptApart() throws {
        var s = try loadScenario("tiny.yaml")
        s.days = 3
        s.warmupDays = 1
        let folder = try report(s)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (sh, summary) = try sheet(folder.appendingPathComponent("summary.csv"))
        let (wh, widgetDays) = try sheet(folder.appendingPathComponent("widget_days.csv"))
        func col(_ h: [String], _ n: String) -> Int { h.firstIndex(of: n)! }
        for row in summary {
            #expect(row[col(sh, "days")] == "3" && row[col(sh, "measured_days")] == "2" && row[col(sh, "warmup_days")] == "1")
            let mine = widgetDays.filter { $0[col(wh, "budget")] == row[col(sh, "budget")] && $0[col(wh, "ranking")] == row[col(sh, "ranking")] }
            #expect(mine.allSatisfy { ($0[col(wh, "warmup")] == "1") == ($0[col(wh, "day")] == "0") })
            for name in ["reloads_charged", "reloads_timeline", "requests_deferred"] {
                let measured = mine.filter { $0[col(wh, "warmup")] == "0" }.reduce(Int64(0)) { $0 + Int64($1[col(wh, name)])! }
                #expect(measured == Int64(row[col(sh, name)])!, "\(name)")
            }
            let energy = mine.filter { $0[col(wh, "warmup")] == "0" }.reduce(0.0) { $0 + Double($1[col(wh, "energy")])! }
            #expect(abs(energy - Double(row[col(sh, "energy")])!) < 1e-9)
        }
    }

    /// Doubles print in the shortest form that reads back to the same value.
    @Test func shortestRoundTripNumbers() {
        #expect(CSV.number(0.000026) == "2.6e-05")
        #expect(CSV.number(2) == "2.0")
        #expect(CSV.number(-0.0) == "0.0")
        #expect(CSV.number(nil) == "" && CSV.number(.nan) == "")
        #expect(CSV.number(1234.5, type: .integer) == "1235")
        var x = 0.1
        for _ in 0 ..< 200 {
            x = x * 1.37 + 1e-7
            let text = CSV.number(x)
            #expect(Double(text) == x, "\(text)")
        }
    }

    /// With one replication, intervals come from the blocks of people as batch means:
    /// the value is the run's own, the spread that of the block values (block totals scaled
    /// to the run's people), and the paired difference likewise.
    @Test func oneReplicationIntervalsComeFromBlocks() throws {
        var s = try loadScenario("tiny.yaml")
        s.people = 6
        let r = try run(s)
        #expect(Comparison.source(r) == .blocks)
        #expect(r.blockTotals.count == 6)
        let views = Metrics.named("views")!, stale = Metrics.named("stale_view_share")!
        for p in r.pairs.indices {
            let e = Comparison.entry(r, pair: p, views)
            #expect(e.value.mean == Double(r.totals[0][p].sum(PersonCounter.views)))
            // Six one-person blocks: each block's views × 6 estimates the run's views.
            let xs: [Double] = r.blockTotals.map { block in Double(block[p].sum(PersonCounter.views)) * 6 }
            let mean: Double = xs.reduce(0, +) / 6
            #expect(abs(mean - e.value.mean!) < 1e-6)
            let squares: Double = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            let sd = (squares / 5).squareRoot()
            #expect(abs(e.value.sd! - sd) < 1e-6)
            #expect(abs(e.value.halfWidth! - 2.570581836 * sd / 6.0.squareRoot()) < 1e-6)
            #expect(e.value.n == 6)
            // A ratio is taken block by block, unscaled.
            let ratios = r.blockTotals.compactMap { stale.compute($0[p], $0[p].measuredDays) }
            #expect(Comparison.entry(r, pair: p, stale).value.n == ratios.count)
            #expect(Comparison.entry(r, pair: p, stale).value.mean == stale.compute(r.totals[0][p], r.totals[0][p].measuredDays))
        }
        let rows = Comparison.rows(r)
        let header = Comparison.header
        #expect(rows.allSatisfy { $0[header.firstIndex(of: "interval_over")!] == "blocks" })
        #expect(rows.contains { !$0[header.firstIndex(of: "ci95_half_width")!].isEmpty })
    }

    /// daily.csv carries each metric's 95% half-width per pair and day: the same on the
    /// rows of every replication, equal to the interval over replications of that day.
    @Test func dailyIntervals() throws {
        var s = try loadScenario("tiny.yaml")
        s.replications = 3
        let r = try run(s)
        let table = ReportWriter.dailyTable(r)
        let names = table.columns.map(\.name)
        #expect(!names.contains("reloads_per_widget_day_p95"), "a daily p95 can never be filled")
        let hw = names.firstIndex(of: "accuracy_ci95_half_width")!
        for row in table.rows {
            let p = r.pairs.firstIndex(of: PolicyPair(budget: row[1], ranking: row[2]))!
            let day = Int(row[names.firstIndex(of: "day")!])!
            let e = Comparison.entry(r, pair: p, Metrics.named("accuracy")!, days: day ..< day + 1)
            #expect(row[hw] == CSV.number(e.value.halfWidth))
            #expect(e.value.n == 3)
        }
    }

    /// The budget-only staleness does not depend on the ranking: with budgets that never
    /// look at views and no interactive widget, every ranking sees the same stale members,
    /// while the share of stale views shown moves with the ranking.
    @Test func staleMemberShareIgnoresTheRanking() throws {
        var content = ContentSpec()
        content.randomPerDay = 24
        content.pushFraction = 0.5
        let widgets = [widget("news", base: 2, content: content), widget("mail", base: 1, content: content),
                       widget("weather", base: 1)]
        let quota = PolicyChoice(label: "quota10", name: "daily_quota", parameters: PolicyParameters(["per_day": .number(10)]))
        let s = scenario(people: 6, days: 2, widgets: widgets, budgets: [PolicyChoice(name: "unlimited"), quota],
                         rankings: [PolicyChoice(name: "static"), PolicyChoice(name: "oracle"), PolicyChoice(name: "time_of_day")])
        let r = try run(s)
        let member = Metrics.named("stale_member_share")!, shown = Metrics.named("stale_view_share")!
        var shownDiffers = false
        for budget in ["unlimited", "quota10"] {
            let ts = ["static", "oracle", "time_of_day"].map { totals(r, budget, $0) }
            let m = ts.map { member.compute($0, $0.measuredDays)! }
            #expect(m.allSatisfy { $0 == m[0] }, "\(budget): \(m)")
            let v = ts.map { shown.compute($0, $0.measuredDays)! }
            if Set(v).count > 1 { shownDiffers = true }
            // Every view counts every member of the three-member stack.
            #expect(ts[0].sum(.memberViews) == 3 * ts[0].sum(PersonCounter.views))
        }
        #expect(shownDiffers)
        let a = totals(r, "unlimited", "static"), b = totals(r, "quota10", "static")
        #expect(member.compute(b, b.measuredDays)! > member.compute(a, a.measuredDays)!)
    }

    /// `widgetsim compare`'s arithmetic: read back from the files, pair against baseline
    /// gives exactly comparison.csv's difference, with one replication and with several.
    @Test func compareReadsBackTheComparison() throws {
        for replications in [1, 3] {
            var s = try loadScenario("tiny.yaml")
            s.replications = replications
            let folder = try report(s, widgetDays: false)
            defer { try? FileManager.default.removeItem(at: folder) }
            let (header, rows) = try sheet(folder.appendingPathComponent("comparison.csv"))
            func col(_ n: String) -> Int? { header.firstIndex(of: n) }
            for pair in s.policyPairs where pair != s.baseline {
                let result = try PairCompare.compare(folder: folder, pair, s.baseline)
                #expect(result.source == (replications == 1 ? .blocks : .replications))
                for row in result.rows {
                    let line = rows.first { $0[col("budget")!] == pair.budget && $0[col("ranking")!] == pair.ranking && $0[col("metric")!] == row.metric }!
                    #expect(CSV.number(row.difference.mean) == (col("diff_mean").map { line[$0] } ?? ""), "\(row.metric)")
                    #expect(CSV.number(row.difference.halfWidth) == (col("diff_ci95_half_width").map { line[$0] } ?? ""), "\(row.metric)")
                    #expect(CSV.number(row.a) == line[col("mean")!], "\(row.metric)")
                }
            }
            // Any two pairs, not only against the baseline.
            let other = try PairCompare.compare(folder: folder, s.policyPairs[3], s.policyPairs[1])
            #expect(other.rows.contains { $0.difference.halfWidth != nil })
        }
    }

    /// run.json: written by JSONEncoder (no `\/`), every policy with every parameter, the
    /// build's commit, the machine's figures.
    @Test func runRecord() throws {
        let s = try loadScenario("tiny.yaml")
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var o = RunOptions(outputFolder: folder, threads: 1)
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        o.provenance.build = BuildStamp(commit: "0123456789abcdef0123456789abcdef01234567", dirty: true)
        _ = try RunJob.execute(s, o)
        let text = try String(contentsOf: folder.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(!text.contains("\\/"))
        #expect(text.contains("\"scenarios/tiny.yaml\""))
        let record = try RunRecord.read(Data(text.utf8))
        #expect(record.build.commit == "0123456789abcdef0123456789abcdef01234567" && record.build.dirty)
        #expect(record.budgets.map(\.label) == s.budgets.map(\.label))
        for (info, choice) in zip(record.budgets, s.budgets) {
            let spec = BudgetPolicies.named(choice.name)!.parameters
            #expect(Set(info.parameters.keys) == Set(spec.map(\.name)), "\(choice.label)")
        }
        let quota = try #require(record.budgets.first { $0.policy == "daily_quota" })
        if case .number(let n) = quota.parameters["per_day"] { #expect(n > 0) } else { Issue.record("per_day not a number") }
        #expect(record.pairSeconds.count == s.policyPairs.count)
        #expect(record.events > 0 && record.wallSeconds > 0 && (record.eventsPerSecond ?? 0) > 0)
        #expect(record.scenario.measuredDays == s.days - s.warmupDays)
        #expect(text.contains("\"warmup_days\""))
    }
}
