import Foundation
import WidgetSimReports

/// The targets of the project's own policies (README, "Results"), measured on this run:
/// shown when the run holds the pairs a target compares, absent otherwise.
///
/// - Ranking targets, under one budget that runs `static`, `empirical_bayes` and `oracle`
///   (the baseline's budget when it does, else the first that does): the paired
///   difference `empirical_bayes` − `static` in accuracy in every week of the measured
///   days (met when its interval lies above zero), and the share of the `static` →
///   `oracle` gap that `empirical_bayes` captures in the last week (met at 0.5 or more).
/// - Budget targets, under one ranking that runs `ios_like`, `predictive` and
///   `view_weighted` (the baseline's ranking when it does, else the first that does):
///   `predictive` − `ios_like` in charged reloads per widget-day (met at zero or less),
///   how much lower `predictive`'s stale-view share is than `ios_like`'s (met at 20 % or
///   more), and the stale-view share per charged reload per widget-day of `predictive`
///   against `view_weighted` (met when lower).
///
/// Every figure comes from the run's CSVs: weekly hits and views wanted per replication
/// from daily.csv, each pair's stale-view share and charged reloads per replication
/// from summary.csv. A figure is the pooled one (sums over replications, or the ratio of
/// the pairs' means); its 95 % interval is Student t over the replications of the
/// paired per-replication figures (for the share of the gap, a ratio, of its
/// linearisation), so each replication (a block of the run's people) is one
/// observation; with one replication there is none.
struct Targets {
    struct Row: Sendable {
        var target: String
        var pairs: String
        var figure: String
        var interval: String
        var met: String
        /// The figure and the interval's ends unrounded, for readers of the page's HTML.
        var value: String
        var low: String
        var high: String
    }

    var intro: String
    var rows: [Row]

    static let ranking = (fixed: "static", ours: "empirical_bayes", ceiling: "oracle")
    static let budget = (ours: "predictive", anchor: "ios_like", other: "view_weighted")

    /// The targets this run can show, or nil when it holds none of the pairs they need.
    static func make(_ inputs: Inputs) -> Targets? {
        let c = inputs.comparison
        var rows: [Row] = []
        var replications = 0
        if let b = firstContext(c.pairs.map(\.budget), preferred: c.baseline?.budget, has: { b in
            [ranking.fixed, ranking.ours, ranking.ceiling].allSatisfy { c.pairs.contains(PairKey(budget: b, ranking: $0)) }
        }) {
            let (r, n) = rankingRows(inputs, budget: b)
            rows += r
            replications = max(replications, n)
        }
        if let r = firstContext(c.pairs.map(\.ranking), preferred: c.baseline?.ranking, has: { r in
            [budget.ours, budget.anchor, budget.other].allSatisfy { c.pairs.contains(PairKey(budget: $0, ranking: r)) }
        }) {
            let (b, n) = budgetRows(inputs, ranking: r)
            rows += b
            replications = max(replications, n)
        }
        guard !rows.isEmpty else { return nil }
        let people = inputs.identity.people == "1" ? "one person" : "\(inputs.identity.people) people"
        let over = replications >= 2
            ? "Intervals are 95% Student t over this run's \(replications) replications: each replication is a block of "
                + "\(people) simulated alike under every pair, and counts as one paired observation (the share of "
                + "the gap: a ratio of pooled accuracies, its interval linearised)."
            : "This run has one replication, so there are no intervals here."
        return Targets(
            intro: "The targets of this project's own policies (README, \"Results\"), measured on this run from its CSVs "
                + "(daily.csv for weekly accuracy, summary.csv for stale-view shares and charged reloads). " + over
                + " scripts/own-policies measures the same targets with one person per replication, so that every "
                + "difference is paired over people: its intervals are narrower, and the README's table comes from it.",
            rows: rows)
    }

    /// The preferred value when it qualifies, else the first that does.
    static func firstContext(_ values: [String], preferred: String?, has: (String) -> Bool) -> String? {
        if let p = preferred, values.contains(p), has(p) { return p }
        var seen: Set<String> = []
        for v in values where seen.insert(v).inserted && has(v) { return v }
        return nil
    }

    static func rankingRows(_ inputs: Inputs, budget b: String) -> ([Row], Int) {
        let daily = inputs.daily
        let fixed = PairKey(budget: b, ranking: ranking.fixed), ours = PairKey(budget: b, ranking: ranking.ours)
        let ceiling = PairKey(budget: b, ranking: ranking.ceiling)
        let measured = daily.days - daily.warmupDays
        guard measured > 0, daily.counts[fixed] != nil, daily.counts[ours] != nil else { return ([], 0) }
        let weeks = (measured + 6) / 7
        var rows: [Row] = []
        var replications = 0
        func accuracy(_ c: (hits: Double, wanted: Double)?) -> Double? {
            guard let c, c.wanted > 0 else { return nil }
            return c.hits / c.wanted
        }
        for w in 0 ..< weeks {
            let days = 7 * w ..< min(measured, 7 * w + 7)
            let f = daily.hits(fixed, measuredDays: days), o = daily.hits(ours, measuredDays: days)
            let keys = f.keys.filter { o[$0] != nil }.sorted()
            let diffs = keys.compactMap { k in accuracy(o[k]).flatMap { a in accuracy(f[k]).map { a - $0 } } }
            replications = max(replications, diffs.count)
            let pooled = accuracy(sum(keys.compactMap { o[$0] })).flatMap { a in accuracy(sum(keys.compactMap { f[$0] })).map { a - $0 } }
            let e = Comparison.Estimate(diffs, mean: pooled)
            let lower = e.mean.flatMap { m in e.halfWidth.map { m - $0 } }
            rows.append(row(
                "\(ranking.ours) − \(ranking.fixed) in accuracy, week \(w + 1) (days \(days.lowerBound + 1)–\(days.upperBound)), above zero",
                pairs: "under \(b)", e, scale: 100, unit: " points", signed: true,
                met: lower.map { $0 > 0 }))
        }
        let last = 7 * (weeks - 1) ..< measured
        let f = daily.hits(fixed, measuredDays: last), o = daily.hits(ours, measuredDays: last)
        let top = daily.hits(ceiling, measuredDays: last)
        func share(_ keys: [String]) -> Double? {
            func pooled(_ t: [String: (hits: Double, wanted: Double)]) -> Double? { accuracy(sum(keys.compactMap { t[$0] })) }
            guard let s = pooled(f), let e = pooled(o), let c = pooled(top), c != s else { return nil }
            return (e - s) / (c - s)
        }
        let keys = f.keys.filter { o[$0] != nil && top[$0] != nil }.sorted()
        // The interval of a ratio of means, linearised (delta method): replication r
        // contributes R + ((e_r − s_r) − R · (o_r − s_r)) / mean(o − s), whose spread is
        // the ratio's; a ratio taken in each replication alone is unstable when a
        // replication is small.
        var linearised: [Double] = []
        if let ratio = share(keys) {
            let triples = keys.compactMap { k in
                accuracy(f[k]).flatMap { s in accuracy(o[k]).flatMap { e in accuracy(top[k]).map { (s, e, $0) } } }
            }
            let gap = triples.reduce(0) { $0 + $1.2 - $1.0 } / Double(max(1, triples.count))
            if gap != 0 { linearised = triples.map { s, e, c in ratio + ((e - s) - ratio * (c - s)) / gap } }
        }
        let e = Comparison.Estimate(linearised, mean: share(keys))
        rows.append(row(
            "share of the \(ranking.fixed) → \(ranking.ceiling) accuracy gap that \(ranking.ours) captures in the last week, at least 0.5",
            pairs: "under \(b)", e, scale: 1, unit: "", signed: false, met: e.mean.map { $0 >= 0.5 }))
        return (rows, replications)
    }

    static func budgetRows(_ inputs: Inputs, ranking r: String) -> ([Row], Int) {
        let ours = PairKey(budget: budget.ours, ranking: r), anchor = PairKey(budget: budget.anchor, ranking: r)
        let other = PairKey(budget: budget.other, ranking: r)
        let per = inputs.perReplication
        let charged = "charged_reloads_per_widget_day", stale = "stale_view_share"
        func values(_ p: PairKey, _ column: String) -> [String: Double] { (per[p] ?? [:]).compactMapValues { $0[column] } }
        // Sums in replication order: a dictionary's own order changes from process to process.
        func mean(_ v: [String: Double]) -> Double? { v.isEmpty ? nil : v.keys.sorted().reduce(0) { $0 + v[$1]! } / Double(v.count) }
        func paired(_ a: [String: Double], _ b: [String: Double], _ f: (Double, Double) -> Double?) -> [Double] {
            a.keys.sorted().compactMap { k in b[k].flatMap { y in f(a[k]!, y) } }
        }
        var rows: [Row] = []
        let oc = values(ours, charged), ac = values(anchor, charged)
        let os = values(ours, stale), aStale = values(anchor, stale)
        let vc = values(other, charged), vs = values(other, stale)
        let n = max(paired(oc, ac, { $0 - $1 }).count, paired(os, aStale, { $0 - $1 }).count)

        if !oc.isEmpty && !ac.isEmpty {
            let e = Comparison.Estimate(paired(oc, ac, { $0 - $1 }),
                                        mean: mean(oc).flatMap { x in mean(ac).map { x - $0 } })
            rows.append(row("\(budget.ours) − \(budget.anchor) in charged reloads per widget-day, at most zero",
                            pairs: "under \(r)", e, scale: 1, unit: "", signed: true, met: e.mean.map { $0 <= 0 }))
        }
        if !os.isEmpty && !aStale.isEmpty {
            let pooled = mean(os).flatMap { x in mean(aStale).flatMap { $0 > 0 ? 1 - x / $0 : nil } }
            let e = Comparison.Estimate(paired(os, aStale, { x, y in y > 0 ? 1 - x / y : nil }), mean: pooled)
            rows.append(row("how much lower \(budget.ours)'s stale-view share is than \(budget.anchor)'s, at least 20 %",
                            pairs: "under \(r)", e, scale: 100, unit: " %", signed: true, met: e.mean.map { $0 >= 0.2 }))
        }
        if !os.isEmpty && !oc.isEmpty && !vs.isEmpty && !vc.isEmpty {
            func ratio(_ s: Double?, _ c: Double?) -> Double? { s.flatMap { s in c.flatMap { $0 > 0 ? s / $0 : nil } } }
            let pooled = ratio(mean(os), mean(oc)).flatMap { x in ratio(mean(vs), mean(vc)).map { x - $0 } }
            let perRep = os.keys.sorted().compactMap { k in
                ratio(os[k], oc[k]).flatMap { x in ratio(vs[k], vc[k]).map { x - $0 } }
            }
            let e = Comparison.Estimate(perRep, mean: pooled)
            rows.append(row("\(budget.ours) − \(budget.other) in stale-view share per charged reload per widget-day, below zero",
                            pairs: "under \(r)", e, scale: 1, unit: "", signed: true, met: e.mean.map { $0 < 0 }))
        }
        return (rows, n)
    }

    static func sum<S: Sequence>(_ values: S) -> (hits: Double, wanted: Double) where S.Element == (hits: Double, wanted: Double) {
        values.reduce((0, 0)) { ($0.0 + $1.hits, $0.1 + $1.wanted) }
    }

    static func row(_ target: String, pairs: String, _ e: Comparison.Estimate, scale: Double, unit: String,
                    signed: Bool, met: Bool?) -> Row {
        guard let m = e.mean else {
            return Row(target: target, pairs: pairs, figure: "–", interval: "–", met: "not measured",
                       value: "", low: "", high: "")
        }
        let decimals = abs(m * scale) >= 100 ? 1 : abs(m * scale) >= 0.1 || m == 0 ? 2 : 4
        func text(_ x: Double, sign: Bool) -> String { String(format: sign ? "%+.\(decimals)f" : "%.\(decimals)f", x) }
        let interval = e.halfWidth.map { h in
            "± " + text(h * scale, sign: false) + " (" + text((m - h) * scale, sign: false) + " … "
                + text((m + h) * scale, sign: false) + ")"
        } ?? "no interval"
        return Row(target: target, pairs: pairs, figure: text(m * scale, sign: signed) + unit, interval: interval,
                   met: met.map { $0 ? "met" : "not met" } ?? "no interval", value: String(m),
                   low: e.halfWidth.map { String(m - $0) } ?? "", high: e.halfWidth.map { String(m + $0) } ?? "")
    }
}

/// The columns of summary.csv that hold numbers (as `Schema` describes them).
let summaryNumberColumns: [String] = Schema.summaryColumns.filter { $0.type != .string }.map(\.name)
