import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimSampling

/// `robust.csv`: how each policy pair fares over the sampled worlds of an exploring
/// study (`study: explore:`), per headline metric (those of `study.csv`).
///
/// Each point is one world; in it, a pair's value and its paired difference to the
/// baseline pair come from `Comparison.entry` (over replications, or blocks of people
/// with one replication; every pair sees the same people). A pair **wins** in a world
/// when its difference to the baseline points the better way (`better`) and its 95%
/// interval excludes 0 (beyond noise); without an interval (fewer than two groups), the
/// sign alone decides. It **loses** when the same holds the other way. Over the worlds
/// where both values are defined:
///
///     win_share  = wins / worlds,  with its exact 95% interval (Clopper–Pearson)
///     regret_k   = |best value in world k − the pair's value|  (best among the pairs defined there)
///     mean_regret, worst_regret = the mean and the largest regret_k
///     best_share = worlds where the pair's value is the best (ties count for each) / worlds
public enum RobustTable {
    public static let file = "robust.csv"
    public static let rowsMeaning = "an exploring study only (`study: explore:`): one per budget × ranking pair × headline metric, over the sampled worlds (points)"

    /// Which way is better for each headline metric: higher accuracy, less of everything else.
    public static func higherIsBetter(_ metric: String) -> Bool { metric == "accuracy" }

    static let perWorld = "over the sampled worlds where the pair's and the baseline's values are defined"

    public static var columns: [Column] {
        let noBaseline = "the baseline pair itself"
        return [
            Column("scenario", .string, "the scenario's name"),
            Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1), the same in every world"),
            Column("budget", .string, "the budget policy's label"),
            Column("ranking", .string, "the ranking policy's label"),
            Column("baseline_budget", .string, "the baseline pair's budget label"),
            Column("baseline_ranking", .string, "the baseline pair's ranking label"),
            Column("metric", .string, "the headline metric (those of study.csv)"),
            Column("unit", .string, "the metric's unit"),
            Column("better", .string, "`higher` or `lower`: which way of the metric is better"),
            Column("worlds", .integer, "sampled worlds (points) where the pair's value is defined"),
            Column("wins", .integer, "worlds where the pair beats the baseline beyond noise: the paired difference is better and its 95% interval excludes 0 (the sign alone without an interval)",
                   empty: noBaseline),
            Column("losses", .integer, "worlds where the baseline beats the pair beyond noise", empty: noBaseline),
            Column("win_share", .double, unit: "share", "wins ÷ worlds compared \(perWorld)", empty: noBaseline + ", or no world compared"),
            Column("win_share_ci95_low", .double, unit: "share", "lower end of the exact (Clopper–Pearson) 95% interval of win_share", empty: noBaseline + ", or no world compared"),
            Column("win_share_ci95_high", .double, unit: "share", "upper end of that interval", empty: noBaseline + ", or no world compared"),
            Column("loss_share", .double, unit: "share", "losses ÷ worlds compared", empty: noBaseline + ", or no world compared"),
            Column("mean_regret", .double, unit: "metric's unit", "mean over worlds of the distance from the pair's value to the best pair's value in that world (0 where it is the best)",
                   empty: "the metric undefined in every world"),
            Column("worst_regret", .double, unit: "metric's unit", "the largest of those distances", empty: "the metric undefined in every world"),
            Column("best_share", .double, unit: "share", "worlds where the pair's value is the best of all pairs (ties count for each) ÷ worlds",
                   empty: "the metric undefined in every world"),
            Column("interval_over", .string, "`replications`, or `blocks` with one replication: what each world's interval is over"),
        ]
    }

    /// One pair's figures for one metric.
    public struct Row: Sendable, Equatable {
        public var pair: PolicyPair
        public var metric: String
        public var worlds = 0
        public var compared = 0
        public var wins = 0
        public var losses = 0
        public var regrets: [Double] = []
        public var best = 0
        public var isBaseline = false
        public var winShare: Double? { compared > 0 && !isBaseline ? Double(wins) / Double(compared) : nil }
        public var bestShare: Double? { worlds > 0 ? Double(best) / Double(worlds) : nil }
        public var meanRegret: Double? { regrets.isEmpty ? nil : regrets.reduce(0, +) / Double(regrets.count) }
    }

    /// Per world k (`results[k]`), whether pair `p` wins (+1), loses (−1) or neither (0)
    /// against the baseline on `metric`; nil when undefined or the pair is the baseline.
    public static func verdict(_ r: RunResult, pair p: Int, _ metric: Metric) -> Int? {
        guard let b = Comparison.baselineIndex(r), b != p else { return nil }
        let e = Comparison.entry(r, pair: p, metric)
        guard let d = e.difference.mean else { return nil }
        let signed = higherIsBetter(metric.name) ? d : -d
        let beyond = e.difference.halfWidth.map { abs(d) > $0 } ?? (d != 0)
        return !beyond ? 0 : signed > 0 ? 1 : -1
    }

    public static func rows(_ results: [RunResult]) -> [Row] {
        guard let first = results.first else { return [] }
        var out: [Row] = []
        for name in StudyTable.metrics {
            let metric = Metrics.named(name)!
            let higher = higherIsBetter(name)
            var rows = first.pairs.map { Row(pair: $0, metric: name, isBaseline: $0 == first.scenario.baseline) }
            for r in results {
                let values = r.pairs.indices.map { Comparison.entry(r, pair: $0, metric).value.mean }
                let defined = values.compactMap { $0 }
                guard let best = higher ? defined.max() : defined.min() else { continue }
                for (p, pair) in r.pairs.enumerated() {
                    guard let i = rows.firstIndex(where: { $0.pair == pair }), let v = values[p] else { continue }
                    rows[i].worlds += 1
                    rows[i].regrets.append(abs(best - v))
                    if v == best { rows[i].best += 1 }
                    if let verdict = verdict(r, pair: p, metric) {
                        rows[i].compared += 1
                        if verdict > 0 { rows[i].wins += 1 }
                        if verdict < 0 { rows[i].losses += 1 }
                    }
                }
            }
            out += rows
        }
        return out
    }

    public static func table(_ results: [RunResult]) -> Table {
        var table = Table(file: file, rows: rowsMeaning, columns: columns)
        guard let first = results.first else { return table }
        let s = first.scenario
        for row in rows(results) {
            let metric = Metrics.named(row.metric)!
            let interval = row.isBaseline ? nil : BinomialInterval.clopperPearson(successes: row.wins, trials: row.compared)
            table.rows.append([
                s.name, String(s.seed), row.pair.budget, row.pair.ranking, s.baseline.budget, s.baseline.ranking,
                row.metric, metric.unit, higherIsBetter(row.metric) ? "higher" : "lower", String(row.worlds),
                row.isBaseline ? "" : String(row.wins), row.isBaseline ? "" : String(row.losses),
                CSV.number(row.winShare), CSV.number(interval?.lowerBound), CSV.number(interval?.upperBound),
                CSV.number(row.compared > 0 && !row.isBaseline ? Double(row.losses) / Double(row.compared) : nil),
                CSV.number(row.meanRegret), CSV.number(row.regrets.max()), CSV.number(row.bestShare),
                Comparison.source(first).rawValue,
            ])
        }
        return table
    }
}
