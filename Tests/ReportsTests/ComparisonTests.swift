import EngineTestSupport
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling

/// `comparison.csv`: intervals against hand computations, the baseline against itself,
/// paired against unpaired intervals on a real run, and the file's layout.
@Suite struct ComparisonTests {
    static func quota(_ perDay: Int) -> PolicyChoice {
        PolicyChoice(
            label: "quota\(perDay)", name: "daily_quota",
            parameters: PolicyParameters(["per_day": .number(Double(perDay))]))
    }

    /// A scenario with two budgets (`unlimited`, the baseline, then `daily_quota` 10 a day,
    /// labelled `quota10`) × static ranking, unless told otherwise; random content, half
    /// of it pushed, so staleness depends on the budget and varies between people.
    func twoBudgets(
        people: Int = 8, days: Int = 2, replications: Int = 6,
        budgets: [PolicyChoice] = [PolicyChoice(name: "unlimited"), quota(10)], rankings: [PolicyChoice]? = nil
    ) -> Scenario {
        var content = ContentSpec()
        content.randomPerDay = 24
        content.pushFraction = 0.5
        let widgets = [
            widget("news", base: 2, content: content),
            widget("mail", base: 1, content: content),
            widget("weather", base: 1),
        ]
        var s = scenario(
            people: people, days: days, seed: 20_260_105, widgets: widgets,
            budgets: budgets, rankings: rankings ?? [PolicyChoice(name: "static")]
        ) { p in
            // People differ (views and sessions per day), so replications differ too.
            p.viewsPerDay = PerPersonRate(mean: 80, cv: 0.5)
            p.sessionsPerDay = PerPersonRate(mean: 10, cv: 0.5)
        }
        s.replications = replications
        return s
    }

    /// A result of `twoBudgets` with 4 replications of one person-day, whose totals are
    /// replaced by hand: `hits` of 100 `views_wanted` per replication, so accuracy is
    /// hits / 100. Pair 0 (`unlimited`, the baseline) and pair 1 (`quota10`).
    func handMade(baseline: [Int64], other: [Int64], otherWanted: [Int64] = [100, 100, 100, 100]) throws -> RunResult {
        var r = try run(twoBudgets(people: 1, days: 1, replications: 4))
        #expect(r.pairs.map(\.budget) == ["unlimited", "quota10"])
        #expect(r.scenario.baseline == r.pairs[0])
        func totals(hits: Int64, wanted: Int64) -> PairTotals {
            var t = PairTotals(days: 1, widgets: r.scenario.widgets.count, warmupDays: 0)
            t.people = 1
            t.person[PersonCounter.hits.rawValue] = hits
            t.person[PersonCounter.viewsWanted.rawValue] = wanted
            return t
        }
        r.totals = (0 ..< 4).map { rep in
            [totals(hits: baseline[rep], wanted: 100), totals(hits: other[rep], wanted: otherWanted[rep])]
        }
        return r
    }

    var accuracy: Metric { Metrics.all.first { $0.name == "accuracy" }! }

    func row(_ r: RunResult, budget: String, metric: String) -> [String] {
        Comparison.rows(r).first { $0[1] == budget && field($0, "metric") == metric }!
    }

    func field(_ row: [String], _ column: String) -> String {
        row[Comparison.header.firstIndex(of: column)!]
    }

    // MARK: - Hand computations

    /// Accuracy 0.50, 0.55, 0.45, 0.60 in four replications:
    ///   mean = 2.10 / 4 = 0.525
    ///   deviations −0.025, +0.025, −0.075, +0.075; squares sum to
    ///   2 · 0.000625 + 2 · 0.005625 = 0.0125; sd = √(0.0125 / 3) = 0.0645497224
    ///   t_{0.975, 3} = 3.182446305; half-width = 3.182446305 · 0.0645497224 / √4 = 0.1027130128
    @Test func intervalOfOneSample() throws {
        let r = try handMade(baseline: [50, 55, 45, 60], other: [58, 61, 52, 69])
        let e = Comparison.entry(r, pair: 0, accuracy).value
        #expect(e.n == 4)
        #expect(abs(e.mean! - 0.525) < 1e-12)
        #expect(abs(e.sd! - 0.0645497224) < 1e-9)
        #expect(abs(e.halfWidth! - 0.1027130128) < 1e-9)

        // The CSV's numbers read back to the very doubles computed (shortest round trip).
        let csv = row(r, budget: "unlimited", metric: "accuracy")
        #expect(field(csv, "replications") == "4" && field(csv, "groups") == "4")
        #expect(field(csv, "interval_over") == "replications")
        #expect(Double(field(csv, "mean")) == e.mean)
        #expect(Double(field(csv, "sd")) == e.sd)
        #expect(Double(field(csv, "ci95_half_width")) == e.halfWidth)
    }

    /// The other pair: 0.58, 0.61, 0.52, 0.69 against the baseline's 0.50, 0.55, 0.45, 0.60.
    ///   Own: mean 2.40 / 4 = 0.60; deviations −0.02, +0.01, −0.08, +0.09; squares sum to
    ///   0.0004 + 0.0001 + 0.0064 + 0.0081 = 0.0150; sd = √0.005 = 0.0707106781;
    ///   half-width = 3.182446305 · 0.0707106781 / 2 = 0.1125164682.
    ///   Paired: d = 0.08, 0.06, 0.07, 0.09; mean 0.075; deviations +0.005, −0.015,
    ///   −0.005, +0.015; squares sum to 0.0005; sd = √(0.0005 / 3) = 0.0129099445;
    ///   half-width = 3.182446305 · 0.0129099445 / 2 = 0.0205426026.
    @Test func intervalOfPairedDifference() throws {
        let r = try handMade(baseline: [50, 55, 45, 60], other: [58, 61, 52, 69])
        let e = Comparison.entry(r, pair: 1, accuracy)
        #expect(abs(e.value.mean! - 0.6) < 1e-12)
        #expect(abs(e.value.sd! - 0.0707106781) < 1e-9)
        #expect(abs(e.value.halfWidth! - 0.1125164682) < 1e-9)
        #expect(e.difference.n == 4)
        #expect(abs(e.difference.mean! - 0.075) < 1e-12)
        #expect(abs(e.difference.sd! - 0.0129099445) < 1e-9)
        #expect(abs(e.difference.halfWidth! - 0.0205426026) < 1e-9)

        let csv = row(r, budget: "quota10", metric: "accuracy")
        #expect(Double(field(csv, "mean")) == e.value.mean)
        #expect(Double(field(csv, "sd")) == e.value.sd)
        #expect(Double(field(csv, "ci95_half_width")) == e.value.halfWidth)
        #expect(Double(field(csv, "diff_mean")) == e.difference.mean)
        #expect(Double(field(csv, "diff_sd")) == e.difference.sd)
        #expect(Double(field(csv, "diff_ci95_half_width")) == e.difference.halfWidth)
    }

    /// A replication where the metric is undefined (no views with a wanted widget) is left
    /// out of the pair's sample and of the paired differences; one value left gives a
    /// mean but no interval.
    ///   Other pair without its last replication: 0.58, 0.61, 0.52: mean 1.71 / 3 = 0.57;
    ///   deviations +0.01, +0.04, −0.05; squares sum to 0.0042; sd = √0.0021 = 0.0458257569;
    ///   t_{0.975, 2} = 4.302652730; half-width = 4.302652730 · 0.0458257569 / √3 = 0.1138374910.
    ///   Differences 0.08, 0.06, 0.07: mean 0.07, sd 0.01, half-width 4.302652730 · 0.01 / √3
    ///   = 0.0248413771.
    @Test func undefinedReplicationsAreLeftOut() throws {
        let r = try handMade(baseline: [50, 55, 45, 60], other: [58, 61, 52, 0], otherWanted: [100, 100, 100, 0])
        let e = Comparison.entry(r, pair: 1, accuracy)
        #expect(e.value.n == 3)
        #expect(abs(e.value.mean! - 0.57) < 1e-12)
        #expect(abs(e.value.sd! - 0.0458257569) < 1e-9)
        #expect(abs(e.value.halfWidth! - 0.1138374910) < 1e-9)
        #expect(e.difference.n == 3)
        #expect(abs(e.difference.mean! - 0.07) < 1e-12)
        #expect(abs(e.difference.sd! - 0.01) < 1e-9)
        #expect(abs(e.difference.halfWidth! - 0.0248413771) < 1e-9)

        let single = Comparison.Estimate([0.3])
        #expect(single.n == 1 && single.mean == 0.3 && single.sd == nil && single.halfWidth == nil)
        let none = Comparison.Estimate([])
        #expect(none.n == 0 && none.mean == nil)
        let lone = row(try handMade(baseline: [50, 0, 0, 0], other: [1, 0, 0, 0], otherWanted: [100, 0, 0, 0]),
                       budget: "quota10", metric: "accuracy")
        #expect(Array(lone.suffix(6)) == ["0.01", "", "", String(0.01 - 0.5), "", ""])
    }

    // MARK: - The baseline against itself

    /// The baseline's difference to itself is empty (not 0 ± 0) for every metric, while
    /// every other pair's is filled wherever the metric is defined.
    @Test func baselineAgainstItselfIsEmpty() throws {
        let r = try run(twoBudgets())
        let b = try #require(Comparison.baselineIndex(r))
        for metric in Metrics.all {
            let e = Comparison.entry(r, pair: b, metric)
            #expect(e.difference == .init([]), "\(metric.name)")
            let other = Comparison.entry(r, pair: 1 - b, metric)
            if e.value.n > 1 && other.value.n > 1 { #expect(other.difference.halfWidth != nil, "\(metric.name)") }
        }
        for row in Comparison.rows(r) where row[1] == "unlimited" {
            #expect(row.suffix(3) == ["", "", ""], "\(row)")
        }
    }

    // MARK: - Paired against unpaired

    /// Replication r of every pair simulates the same people (common random numbers), so
    /// the noise the two policies react to alike cancels in the paired differences. Here a
    /// daily quota of 12 against one of 10 (the baseline), 20 replications of 8 people × 2
    /// days: for stale_view_share the paired half-width t_{0.975, n−1} · sd(d) / √n is less
    /// than half of the unpaired one, computed here from the replications' values as
    ///   t_{0.975, 2n−2} · √(sd₁² / n + sd₂² / n).
    /// (Over seeds 1…16 the ratio was 0.19–0.45, typically 0.27; 20 replications keep the
    /// ratio's own sampling noise small enough for a fixed threshold.)
    /// Pairing only helps as far as the two pairs' values move together: `unlimited`
    /// against `quota10` reacts to different parts of the noise (pushes and hourly reloads
    /// against the quota running out), and the output shows how little pairing gains there.
    @Test func pairedIntervalsAreMuchNarrower() throws {
        let budgets = [Self.quota(10), Self.quota(12), PolicyChoice(name: "unlimited")]
        let r = try run(twoBudgets(replications: 20, budgets: budgets))
        #expect(r.pairs.map(\.budget) == ["quota10", "quota12", "unlimited"])
        #expect(Comparison.baselineIndex(r) == 0)
        let metric = Metrics.all.first { $0.name == "stale_view_share" }!
        func sd(_ v: [Double]) -> Double {
            let m = v.reduce(0, +) / Double(v.count)
            return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)).squareRoot()
        }
        let y = Comparison.values(r, pair: 0, metric).map { $0! }  // quota10, the baseline
        let n = Double(y.count)
        #expect(y.count == 20)
        func halfWidths(_ p: Int) throws -> (paired: Double, unpaired: Double, difference: Double) {
            let x = Comparison.values(r, pair: p, metric).map { $0! }
            let unpaired = StudentT.quantile(0.975, degreesOfFreedom: 2 * n - 2)
                * (sd(x) * sd(x) / n + sd(y) * sd(y) / n).squareRoot()
            let e = Comparison.entry(r, pair: p, metric)
            let paired = try #require(e.difference.halfWidth)
            let d = zip(x, y).map { $0 - $1 }
            #expect(abs(paired - StudentT.quantile(0.975, degreesOfFreedom: n - 1) * sd(d) / n.squareRoot()) < 1e-12)
            print(String(
                format: "stale_view_share, %@ − quota10 over %d replications: %@ %.4f ± %.4f, quota10 %.4f ± %.4f; "
                    + "difference %+.4f ± %.4f paired, ± %.4f unpaired (ratio %.2f)",
                r.pairs[p].budget, y.count, r.pairs[p].budget, e.value.mean!, e.value.halfWidth!,
                Comparison.entry(r, pair: 0, metric).value.mean!, Comparison.entry(r, pair: 0, metric).value.halfWidth!,
                e.difference.mean!, paired, unpaired, paired / unpaired))
            return (paired, unpaired, e.difference.mean!)
        }
        let quota12 = try halfWidths(1)
        #expect(quota12.difference < 0, "a larger quota should leave fewer views stale")
        #expect(quota12.paired < quota12.unpaired / 2, "paired \(quota12.paired), unpaired \(quota12.unpaired)")
        let unlimited = try halfWidths(2)
        #expect(unlimited.difference < 0)
    }

    // MARK: - The file

    @Test func csvLayout() throws {
        let a = try run(twoBudgets(people: 2, days: 1, replications: 2))
        var s = twoBudgets(people: 2, days: 1, replications: 3)
        s.name = "second"
        s.seed = 99
        s.baseline = PolicyPair(budget: "quota10", ranking: "static")
        let b = try run(s)
        let text = Comparison.csv([a, b])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == Comparison.header.joined(separator: ","))
        #expect(Comparison.header == [
            "scenario", "budget", "ranking", "seed", "baseline_budget", "baseline_ranking", "metric", "unit",
            "replications", "interval_over", "groups", "mean", "sd", "ci95_half_width",
            "diff_mean", "diff_sd", "diff_ci95_half_width",
        ])
        #expect(lines.last == "")
        let rows = lines.dropFirst().dropLast().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let m = Metrics.all.count
        #expect(rows.count == 2 * 2 * m)
        #expect(rows.allSatisfy { $0.count == Comparison.header.count })
        // Runs in the order given, pairs in run order, metrics in report order.
        for (i, row) in rows.enumerated() {
            let first = i < 2 * m
            let pair = (first ? i : i - 2 * m) / m
            #expect(row[0] == (first ? "test" : "second"))
            #expect(row[1] == ["unlimited", "quota10"][pair])
            #expect(row[2] == "static")
            #expect(row[3] == (first ? "20260105" : "99"))
            #expect(row[4] == (first ? "unlimited" : "quota10"))
            #expect(row[5] == "static")
            #expect(row[6] == Metrics.all[i % m].name)
            #expect(row[7] == Metrics.all[i % m].unit)
            #expect(row[8] == (first ? "2" : "3"))
            #expect(row[9] == "replications")
            // Replications with a defined value: all of them for counts, none for a ratio
            // over nothing (no deferrals, say), and then no mean either.
            let n = try #require(Int(row[10]))
            #expect(n <= (first ? 2 : 3))
            if Metrics.all[i % m].kind == .count { #expect(n == (first ? 2 : 3)) }
            #expect((n == 0) == (row[11] == ""))
            // The baseline's own difference is empty.
            if row[1] == row[4] { #expect(row.suffix(3) == ["", "", ""]) }
        }
        #expect(Comparison.rows(a) == rows.prefix(2 * m).map { $0 })
        // Numbers: shortest doubles, always with a `.` or an exponent, or empty.
        let number = /-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/
        for row in rows {
            for v in row[11...] where !v.isEmpty {
                #expect(v.wholeMatch(of: number) != nil && (v.contains(".") || v.contains("e")), "\(v)")
                #expect(String(Double(v)!) == v || v == "0.0", "\(v) is not in its shortest form")
            }
        }
    }

    /// A run whose baseline pair was not run has empty difference columns.
    @Test func missingBaselineLeavesDifferencesEmpty() throws {
        var r = try run(twoBudgets(people: 1, days: 1, replications: 2))
        r.scenario.baseline = PolicyPair(budget: "nowhere", ranking: "static")
        #expect(Comparison.baselineIndex(r) == nil)
        for row in Comparison.rows(r) { #expect(row.suffix(3) == ["", "", ""]) }
        // A column that is empty on every row is not written.
        let header = Comparison.csv([r]).split(separator: "\n")[0].split(separator: ",").map(String.init)
        #expect(!header.contains("diff_mean") && !header.contains("diff_ci95_half_width") && header.contains("mean"))
    }

    // MARK: - The table on stdout

    @Test func summaryTable() throws {
        let s = twoBudgets(people: 4, days: 1, replications: 3,
                           rankings: [PolicyChoice(name: "static"), PolicyChoice(name: "oracle")])
        let r = try run(s)
        let text = SummaryTable.render(r)
        print(text)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))")
        // The ceiling once, the header, then each budget's line and one row per ranking, the baseline marked.
        #expect(lines.contains { $0.hasPrefix("ceiling (") && $0.contains("±") })
        let header = try #require(lines.firstIndex { $0.hasPrefix("budget") })
        #expect(lines[header + 1] == "unlimited" && lines[header + 2].hasPrefix("  static *"))
        #expect(lines[header + 4].hasPrefix(s.budgets[1].label))
        let rows = [header + 2, header + 3, header + 5, header + 6].map { lines[$0] }
        #expect(rows.allSatisfy { $0.hasPrefix("  ") && $0.contains("±") }, "\(rows)")
        // Best accuracy skips oracle, and says so.
        let best = try #require(lines.first { $0.hasPrefix("  accuracy ") && $0.contains("higher is better") })
        #expect(!best.contains("oracle"))
        #expect(lines.contains { $0.contains("oracle is left out of best accuracy") })
        #expect(lines.contains { $0.hasPrefix("  stale ") && $0.contains("lower is better") })

        // One replication: intervals over the 4 blocks of people (one person each).
        var one = s
        one.replications = 1
        let single = SummaryTable.render(try run(one))
        #expect(single.contains("±"))
        #expect(single.hasPrefix("1 replication; value±95% half-width over 4 blocks of people"))
        #expect(single.contains("expected value"))
    }
}
