import Foundation
import WidgetSimReports

/// The page's first answer: for each goal (accuracy, freshness, cost), which budget ×
/// ranking pair does best against the scenario's baseline pair, by how much, and how
/// sure that is.
///
/// Every pair of a run is simulated on the same people as the baseline, so
/// `comparison.csv`'s paired difference to the baseline (with its 95% interval) is the
/// figure each pair is judged by:
///
/// - A pair is **better than the baseline** when its paired interval lies wholly on the
///   goal's good side of zero. When no pair is, the recommendation says so.
/// - Among those, the pair with the best mean difference leads. Every other pair whose
///   paired interval overlaps the leader's could be as good: when there is one, the
///   goal has a **tie** and the page names the tied set, never one "best" pair.
/// - Otherwise the leader is the **best** pair for the goal.
struct Recommendation: Equatable {
    /// What a goal measures and how its sentences read.
    struct Goal: Equatable {
        /// `accuracy`, `freshness` or `cost`.
        var name: String
        var metric: HeadlineMetric
        /// "… `pair` <phrase(amount, better)> than the baseline …": the difference in words.
        var phrase: @Sendable (String, Bool) -> String

        static func == (a: Goal, b: Goal) -> Bool { a.name == b.name }

        static let accuracy = Goal(name: "accuracy", metric: .accuracy) { amount, better in
            "shows the wanted widget on top \(amount) points \(better ? "more" : "less") often"
        }
        static let freshness = Goal(name: "freshness", metric: .staleMemberShare) { amount, better in
            "leaves \(amount) points \(better ? "fewer" : "more") of the stack's widgets stale at a view"
        }
        static let cost = Goal(name: "cost", metric: .chargedPerWidgetDay) { amount, better in
            "charges \(amount) \(better ? "fewer" : "more") reloads per widget-day"
        }
        static let all = [accuracy, freshness, cost]
        /// Accuracy over the first seven measured days (from daily.csv).
        static let accuracyWeekOne = Goal(
            name: "accuracy in week one",
            metric: HeadlineMetric(names: ["accuracy_week_1"], label: "accuracy in week one (%)", lowerIsBetter: false, scale: 100)
        ) { amount, better in
            "shows the wanted widget on top \(amount) points \(better ? "more" : "less") often in week one"
        }
    }

    enum Verdict: Equatable {
        /// One pair, better than the baseline beyond noise and than every other pair.
        case best(PairKey)
        /// Pairs better than the baseline whose intervals overlap the leader's (leader first).
        case tie([PairKey])
        /// No pair is better than the baseline beyond noise.
        case noneBetter
        /// No baseline, or no paired interval: nothing can be said.
        case unknown(String)
    }

    /// A pair's paired difference to the baseline, on the display scale.
    struct Standing: Equatable {
        var pair: PairKey
        var difference: Double
        var halfWidth: Double?
        var value: Double
        var low: Double { difference - (halfWidth ?? 0) }
        var high: Double { difference + (halfWidth ?? 0) }
    }

    var goal: Goal
    var column: String
    var baseline: PairKey?
    var verdict: Verdict
    /// The pairs the verdict names, with their differences (the leader first).
    var named: [Standing]
    /// The baseline's own value, on the display scale.
    var baselineValue: Double?

    /// Every goal this comparison has a metric for, in page order; with `daily`, when the
    /// run measured more than a week, accuracy in week one too (after accuracy).
    static func make(_ c: ComparisonTable, daily: DailyTable? = nil) -> [Recommendation] {
        var goals = Goal.all.compactMap { make(c, goal: $0) }
        if let daily, let week = weekOne(c, daily), let r = make(week, goal: .accuracyWeekOne) {
            goals.insert(r, at: goals.firstIndex { $0.goal.name == "accuracy" }.map { $0 + 1 } ?? 0)
        }
        return goals
    }

    /// Accuracy over the first seven measured days, per pair: pooled over replications
    /// (Σ hits ÷ Σ views wanted), its interval and the paired difference to the baseline
    /// over replications (Student t); nil unless more than seven days were measured.
    static func weekOne(_ c: ComparisonTable, _ d: DailyTable) -> ComparisonTable? {
        guard d.days - d.warmupDays > 7, let baseline = c.baseline else { return nil }
        let days = 0 ..< 7
        func accuracy(_ x: (hits: Double, wanted: Double)) -> Double? { x.wanted > 0 ? x.hits / x.wanted : nil }
        let base = d.hits(baseline, measuredDays: days)
        var week = ComparisonTable()
        week.pairs = c.pairs
        week.baseline = baseline
        for pair in c.pairs {
            let mine = d.hits(pair, measuredDays: days)
            let keys = mine.keys.sorted()
            guard !keys.isEmpty else { continue }
            let pooled = accuracy(keys.reduce((0.0, 0.0)) { ($0.0 + mine[$1]!.hits, $0.1 + mine[$1]!.wanted) })
            let values = keys.compactMap { accuracy(mine[$0]!) }
            let value = Comparison.Estimate(values, mean: pooled)
            guard let mean = value.mean else { continue }
            var difference: Estimate?
            if pair != baseline {
                let diffs = keys.compactMap { k in accuracy(mine[k]!).flatMap { a in base[k].flatMap(accuracy).map { a - $0 } } }
                let e = Comparison.Estimate(diffs)
                if let m = e.mean { difference = Estimate(mean: m, halfWidth: e.halfWidth) }
            }
            week.entries["accuracy_week_1", default: [:]][pair] = (Estimate(mean: mean, halfWidth: value.halfWidth), difference)
        }
        return week.entries.isEmpty ? nil : week
    }

    /// The recommendation of one goal, or nil when the run lacks its metric.
    static func make(_ c: ComparisonTable, goal: Goal) -> Recommendation? {
        guard let column = c.name(of: goal.metric), let byPair = c.entries[column] else { return nil }
        let scale = goal.metric.scale
        var r = Recommendation(goal: goal, column: column, baseline: c.baseline, verdict: .unknown(""), named: [],
                               baselineValue: c.baseline.flatMap { byPair[$0]?.value.mean }.map { $0 * scale })
        guard let baseline = c.baseline, byPair[baseline] != nil else {
            r.verdict = .unknown("the baseline pair was not run, so no pair can be compared with it")
            return r
        }
        // Differences signed so that larger is better.
        let sign: Double = goal.metric.lowerIsBetter ? -1 : 1
        let standings: [Standing] = c.pairs.compactMap { pair in
            guard pair != baseline, let e = byPair[pair], let d = e.difference else { return nil }
            return Standing(pair: pair, difference: d.mean * scale, halfWidth: d.halfWidth.map { $0 * scale },
                            value: e.value.mean * scale)
        }
        guard standings.contains(where: { $0.halfWidth != nil }) else {
            r.verdict = .unknown("the run has no paired intervals (one group of people)")
            return r
        }
        func good(_ s: Standing) -> (low: Double, high: Double) {
            sign > 0 ? (s.low, s.high) : (-s.high, -s.low)
        }
        let better = standings.filter { s in s.halfWidth != nil && good(s).low > 0 }
        guard let leader = better.max(by: { sign * $0.difference < sign * $1.difference }) else {
            r.verdict = .noneBetter
            return r
        }
        let l = good(leader)
        let tied = standings.filter { s in
            s.pair != leader.pair && good(s).high >= l.low && good(s).low <= l.high
        }.sorted { sign * $0.difference > sign * $1.difference }
        if tied.isEmpty {
            r.verdict = .best(leader.pair)
            r.named = [leader]
        } else {
            r.verdict = .tie([leader.pair] + tied.map(\.pair))
            r.named = [leader] + tied
        }
        return r
    }

    /// The verdict in a word, for the table and for readers of the HTML.
    var verdictWord: String {
        switch verdict {
        case .best: return "best"
        case .tie: return "tie"
        case .noneBetter: return "none better"
        case .unknown: return "unknown"
        }
    }

    /// The leader's paired difference to the baseline with its 95% half-width
    /// ("+1.20 ± 0.40"), and how many pairs tie with it; empty when no pair is named.
    var differenceText: String {
        guard let s = named.first else { return "" }
        return (s.difference >= 0 ? "+" : "−") + Self.format(abs(s.difference))
            + (s.halfWidth.map { " ± " + Self.format($0, like: s.difference) } ?? "")
            + (named.count > 1 ? " (the first; \(named.count - 1) tied)" : "")
    }

    /// A plain sentence; code (pair names) between backticks.
    var sentence: String {
        let base = baseline.map { "the baseline `\(Self.name($0))`" } ?? "the baseline"
        switch verdict {
        case .unknown(let why):
            return "On \(goal.name): nothing to recommend, because \(why)."
        case .noneBetter:
            return "On \(goal.name) (`\(column)`) no pair does better than \(base) beyond noise: every 95% paired interval "
                + "reaches zero or lies on the wrong side, so keep the baseline or choose on another goal."
        case .best:
            return clause(named[0], base) + "; no other pair's 95% paired interval reaches its own, so it is the best pair on \(goal.name)."
        case .tie(let pairs):
            let list = pairs.map { "`\(Self.name($0))`" }
            let names = list.dropLast().joined(separator: ", ") + " and " + list.last!
            let others = named.dropFirst().map(\.difference)
            let low = Self.format(others.min()!), high = Self.format(others.max()!)
            let range = low == high ? low : low + " … " + high
            return "On \(goal.name) \(pairs.count) pairs are tied — \(names) — their 95% paired intervals overlap, so none is "
                + "best. " + clause(named[0], base) + "; the other\(others.count == 1 ? "" : "s") differ from the baseline by "
                + range + (goal.metric.scale == 100 ? " points" : "") + "."
        }
    }

    func clause(_ s: Standing, _ base: String) -> String {
        let better = goal.metric.lowerIsBetter == (s.difference < 0)
        let amount = Self.format(abs(s.difference)) + (s.halfWidth.map { " ± " + Self.format($0, like: s.difference) } ?? "")
        return "`\(Self.name(s.pair))` \(goal.phrase(amount, better)) than \(base)"
    }

    static func name(_ p: PairKey) -> String { "\(p.budget)/\(p.ranking)" }

    /// Two significant decimals for small figures, fewer for large ones.
    static func format(_ x: Double, like reference: Double? = nil) -> String {
        let a = abs(reference ?? x)
        let decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.1 ? 2 : 3
        return String(format: "%.\(decimals)f", x)
    }
}

/// HTML from text with code between backticks: the text escaped, each `…` a `<code>`.
func markup(_ text: String) -> String {
    var out = ""
    var inCode = false
    for ch in text {
        switch ch {
        case "`": out += inCode ? "</code>" : "<code>"; inCode.toggle()
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(ch)
        }
    }
    if inCode { out += "</code>" }
    return out
}

/// Where each point's label goes so that no two labels, and no label and point, overlap:
/// a few places around the point are tried in turn, nearest first, in a plot area of
/// known size in pixels. Labels are boxes `characters × charWidth` wide, `lineHeight` high.
enum LabelPlacement {
    struct Box: Equatable {
        var x0: Double, y0: Double, x1: Double, y1: Double
        func overlaps(_ b: Box) -> Bool { x0 < b.x1 && b.x0 < x1 && y0 < b.y1 && b.y0 < y1 }
    }

    struct Placed: Equatable {
        /// The label's anchor in pixels from the plot area's lower-left corner.
        var x: Double
        var y: Double
        /// `left` (text starts at x) or `right` (text ends at x).
        var align: String
        var box: Box
    }

    static let charWidth = 6.2
    static let lineHeight = 13.0
    static let pointRadius = 10.0

    /// `points` in pixels (x right, y up) in a `width` × `height` area; labels' texts.
    static func place(_ points: [(x: Double, y: Double)], _ texts: [String], width: Double, height: Double) -> [Placed] {
        var taken = points.map { Box(x0: $0.x - pointRadius, y0: $0.y - pointRadius, x1: $0.x + pointRadius, y1: $0.y + pointRadius) }
        var placed: [Placed] = []
        for (i, p) in points.enumerated() {
            let w = Double(texts[i].count) * charWidth, h = lineHeight
            var candidates: [Placed] = []
            for ring in 0 ..< 8 {
                let gap = pointRadius + 3
                let d = gap + Double(ring) * (h + 1)
                let options: [(Double, Double, String)] = [
                    (p.x + gap, p.y + (ring == 0 ? 0 : d - gap), "left"), (p.x - gap, p.y + (ring == 0 ? 0 : d - gap), "right"),
                    (p.x + gap, p.y - (ring == 0 ? 0 : d - gap), "left"), (p.x - gap, p.y - (ring == 0 ? 0 : d - gap), "right"),
                    (p.x - w / 2, p.y + d, "left"), (p.x - w / 2, p.y - d, "left"),
                ]
                for (x, y, align) in options {
                    let x0 = align == "left" ? x : x - w
                    candidates.append(Placed(x: x, y: y, align: align, box: Box(x0: x0, y0: y - h / 2, x1: x0 + w, y1: y + h / 2)))
                }
            }
            let inside = candidates.filter { $0.box.x0 >= 0 && $0.box.x1 <= width && $0.box.y0 >= 0 && $0.box.y1 <= height }
            let pool = inside.isEmpty ? candidates : inside
            let choice = pool.first { c in !taken.contains { $0.overlaps(c.box) } }
                ?? pool.min { a, b in taken.filter { $0.overlaps(a.box) }.count < taken.filter { $0.overlaps(b.box) }.count }!
            taken.append(choice.box)
            placed.append(choice)
        }
        return placed
    }
}
