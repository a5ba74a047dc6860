import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling
import WidgetSimScenario

/// Exploring studies run: robust.csv, discovery.csv and sensitivity.csv from the sampled
/// worlds, on cases whose answer is known.
@Suite struct ExploreRunTests {
    /// tiny.yaml with one ranking, an unlimited budget and a quota of 2 reloads a day
    /// (the baseline), three replications, and the given `study:` lines.
    func text(_ study: String, replications: Int = 3) throws -> String {
        var t = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        t = t.replacingOccurrences(of: "{policy: daily_quota, per_day: 12}", with: "{policy: daily_quota, per_day: 2}")
            .replacingOccurrences(of: "people: 3", with: "people: 3\nreplications: \(replications)")
            .replacingOccurrences(of: "  - time_of_day\n", with: "")
        return t + "\nbaseline: {budget: daily_quota}\n\n" + study
    }

    func run(_ yaml: String) throws -> (Study, URL) {
        let study = try ScenarioLoader.study(yaml: yaml, file: "explore.yaml")
        let folder = temporaryFolder()
        var o = RunOptions(outputFolder: folder, threads: 2)
        o.provenance.scenarioPath = "explore.yaml"
        o.provenance.scenarioText = yaml
        _ = try RunJob.execute(study, o)
        return (study, folder)
    }

    /// A CSV file as rows of named fields (no quoted commas in these files but box_ranges, read apart).
    func sheet(_ folder: URL, _ name: String) throws -> [[String: String]] {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        let lines = CSV.parse(text)
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
    }

    /// With a quota of 2 reloads a day against no limit, the unlimited budget shows fewer
    /// stale views in every sampled world, beyond noise: win share 1, its exact interval
    /// [0.025^(1/6), 1], best in every world, no regret; and it reloads more in every
    /// world, so PRIM's box of its losses on reloads is the whole space. The quota's
    /// regret is its distance to unlimited, world by world, as study.csv gives the values.
    @Test func aWinnerInEveryWorldWinsWithProbabilityOne() throws {
        let (study, folder) = try run(try text("""
            study:
              explore:
                method: lhs
                samples: 6
                ranges:
                  person.views_per_day.mean: 20..80
                  widgets.news.content.random_per_day: 5..40

            """))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(study.points.count == 6 && study.design?.method == "lhs")
        let robust = try sheet(folder, "robust.csv")
        #expect(robust.count == 2 * StudyTable.metrics.count)
        func row(_ budget: String, _ metric: String) throws -> [String: String] {
            try #require(robust.first { $0["budget"] == budget && $0["metric"] == metric })
        }
        let u = try row("unlimited", "stale_view_share")
        #expect(u["worlds"] == "6" && u["wins"] == "6" && u["losses"] == "0" && u["win_share"] == "1.0")
        #expect(abs(Double(u["win_share_ci95_low"]!)! - pow(0.025, 1.0 / 6)) < 1e-9 && u["win_share_ci95_high"] == "1.0")
        #expect(u["best_share"] == "1.0" && u["mean_regret"] == "0.0" && u["worst_regret"] == "0.0" && u["better"] == "lower")
        let q = try row("daily_quota", "stale_view_share")
        #expect(q["wins"] == "" && q["win_share"] == "" && q["best_share"] == "0.0")
        // The quota's regret from study.csv's means.
        let means = try sheet(folder, "study.csv")
        let gaps = (0 ..< 6).map { k -> Double in
            let at = means.filter { $0["point"] == String(k) }
            let v = { (b: String) in Double(at.first { $0["budget"] == b }!["stale_view_share_mean"]!)! }
            return v("daily_quota") - v("unlimited")
        }
        #expect(gaps.allSatisfy { $0 > 0 })
        #expect(abs(Double(q["mean_regret"]!)! - gaps.reduce(0, +) / 6) < 1e-12)
        #expect(Double(q["worst_regret"]!)! == gaps.max()!)
        // Reloads: unlimited loses everywhere.
        let r = try row("unlimited", "reloads_per_widget_day")
        #expect(r["losses"] == "6" && r["win_share"] == "0.0" && r["better"] == "lower")
        let boxes = try sheet(folder, "discovery.csv")
        #expect(!boxes.contains { $0["metric"] == "stale_view_share" })
        let reloads = boxes.filter { $0["metric"] == "reloads_per_widget_day" }
        #expect(reloads.count == 1 && reloads[0]["box_ranges"] == "everywhere" && reloads[0]["coverage"] == "1.0"
            && reloads[0]["density"] == "1.0" && reloads[0]["worlds"] == "6" && reloads[0]["budget"] == "unlimited")
        // No Saltelli design, no sensitivity.csv.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("sensitivity.csv").path))
        let schema = try String(contentsOf: folder.appendingPathComponent("schema.json"), encoding: .utf8)
        #expect(schema.contains("\"robust.csv\"") && schema.contains("\"discovery.csv\""))
    }

    /// Under `method: sobol`, the quota's daily limit cannot change anything the
    /// unlimited pair does (every world sees the same people): its indices are exactly 0,
    /// intervals included; the views a day move the unlimited pair's reloads.
    @Test func anInertValueHasSobolIndicesOfZero() throws {
        let (study, folder) = try run(try text("""
            study:
              explore:
                method: sobol
                samples: 8
                ranges:
                  budgets.daily_quota.per_day: 1..40
                  person.views_per_day.mean: 20..80

            """, replications: 1))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(study.points.count == 32)
        let rows = try sheet(folder, "sensitivity.csv")
        #expect(rows.count == 2 * StudyTable.metrics.count * 2)
        let inert = rows.filter { $0["budget"] == "unlimited" && $0["parameter"] == "budgets.daily_quota.per_day" }
        #expect(inert.count == StudyTable.metrics.count)
        #expect(inert.filter { $0["first_order"] != "" }.count >= 4, "accuracy and the staleness metrics vary over the worlds")
        for r in inert where r["first_order"] != "" {
            #expect(r["first_order"] == "0.0" && r["first_order_ci95_low"] == "0.0" && r["first_order_ci95_high"] == "0.0", "\(r)")
            #expect(r["total"] == "0.0" && r["total_ci95_low"] == "0.0" && r["total_ci95_high"] == "0.0", "\(r)")
        }
        let views = try #require(rows.first { $0["budget"] == "unlimited" && $0["parameter"] == "person.views_per_day.mean"
            && $0["metric"] == "stale_view_share" })
        #expect(views["base_samples"] == "8")
        #expect(Double(views["total"]!)! > 0.5, "\(views)")
    }

    /// The design is drawn when the file is read, so two shards merged give the very
    /// bytes of one run, robust.csv and discovery.csv included; the cost line counts the
    /// person-days before anything runs.
    @Test func shardsMergeToTheSameExploreReports() throws {
        let yaml = try text("""
            study:
              explore:
                samples: 4
                ranges:
                  person.views_per_day.mean: 20..80

            """)
        let study = try ScenarioLoader.study(yaml: yaml, file: "explore.yaml")
        // 4 worlds × 2 pairs × 3 replications × 3 people × 2 days.
        #expect(ExploreCost.personDays(study) == 4 * 2 * 3 * 3 * 2)
        #expect(ExploreCost.line(study) == "explore: lhs design: 4 worlds over 1 range (seed 7); 4 to run × 2 pairs × 3 replications × "
            + "3 people × 2 days = 144 person-days simulated, 4 times one run of the file")
        let (_, one) = try run(yaml)
        defer { try? FileManager.default.removeItem(at: one) }
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let folders = try (0 ..< 2).map { k in
            let folder = root.appendingPathComponent("shard-\(k)")
            var o = RunOptions(outputFolder: folder, threads: 1)
            o.provenance.scenarioPath = "explore.yaml"
            o.provenance.scenarioText = yaml
            o.shard = Shard(index: k, count: 2)
            _ = try RunJob.execute(study, o)
            return folder.path
        }
        let (rebuilt, first, parts) = try ShardMerge.check(folders) { m in try ScenarioLoader.study(yaml: m.scenarioText, file: m.scenarioPath) }
        #expect(rebuilt.design == study.design)
        let out = root.appendingPathComponent("merged")
        let assembled = try Assembly.load(rebuilt, from: parts, widgetDays: first.widgetDays,
                                          identity: PartIdentity(first))
        try assembled.write(to: out, record: RunRecord(scenario: rebuilt.first, manifest: first, provenance: Provenance(), threads: nil,
                                                       shards: 2, started: Date(), finished: Date(), results: assembled.results, study: rebuilt))
        for name in ["robust.csv", "discovery.csv", "study.csv", "summary.csv"] {
            #expect(try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
                == String(contentsOf: one.appendingPathComponent(name), encoding: .utf8), "\(name)")
        }
    }

    @Test func theExampleReads() throws {
        let study = try ScenarioLoader.loadStudy(path: repositoryRoot.appendingPathComponent("scenarios/explore-default.yaml").path)
        #expect(study.parameters == ["person.views_per_day.mean", "widgets.news.content.random_per_day",
                                     "widgets.news.content.push_fraction", "person.swipe_probability"])
        #expect(study.points.count == 192 && study.design?.isSaltelli == true && study.design?.samples == 32)
        #expect(study.first.policyPairs.count == 4)
    }
}
