import Foundation
import WidgetSimReports

/// The page's figures, each built from the tables read from the run's CSVs.
enum Figures {
    /// Filled point types for budgets (square, circle, triangle, inverted triangle, diamond, pentagon).
    static let pointTypes = [5, 7, 9, 11, 13, 15]

    static func pointType(_ i: Int) -> Int { pointTypes[i % pointTypes.count] }

    /// Pairs on the Pareto front of (x, y), both lower-is-better: no other pair is at least
    /// as good on both and better on one. Sorted by x.
    static func paretoFront(_ points: [(PairKey, Double, Double)]) -> [(PairKey, Double, Double)] {
        points.filter { p in
            !points.contains { q in q.1 <= p.1 && q.2 <= p.2 && (q.1 < p.1 || q.2 < p.2) }
        }.sorted { ($0.1, $0.2) < ($1.1, $1.2) }
    }

    /// One point per pair at (x, y) with 95% interval bars, the Pareto front joined, the baseline ringed.
    static func tradeOff(_ c: ComparisonTable, name: String, x: HeadlineMetric, y: HeadlineMetric,
                         xUnit: String = "", yUnit: String = "", caption: String) -> Chart? {
        guard let xName = c.name(of: x), let yName = c.name(of: y) else { return nil }
        let budgets = unique(c.pairs.map(\.budget)), rankings = unique(c.pairs.map(\.ranking))
        var rows: [[ChartValue]] = []
        var points: [(PairKey, Double, Double)] = []
        for pair in c.pairs {
            guard let xe = c.entries[xName]?[pair]?.value, let ye = c.entries[yName]?[pair]?.value else { continue }
            let xv = xe.mean * x.scale, yv = ye.mean * y.scale
            points.append((pair, xv, yv))
            rows.append([.label(pair.budget), .label(pair.ranking), .number(xv), .number((xe.halfWidth ?? 0) * x.scale),
                         .number(yv), .number((ye.halfWidth ?? 0) * y.scale),
                         .number(Double(pointType(budgets.firstIndex(of: pair.budget)!))),
                         .number(Double(rankings.firstIndex(of: pair.ranking)! + 1)),
                         .number(pair == c.baseline ? 1 : 0)])
        }
        guard !rows.isEmpty else { return nil }
        let front = paretoFront(points)
        let file = "\(name).csv", frontFile = "\(name)_front.csv"
        var plots = [
            "\(gp(file)) skip 1 using 3:5:($3-$4):($3+$4):($5-$6):($5+$6) with xyerrorbars pt -1 lc rgb '#9a9a9a' title '95% intervals'",
            "\(gp(frontFile)) skip 1 using 3:4 with lines lw 2 dt 2 lc rgb '#333333' title 'Pareto front'",
        ]
        // gnuplot refuses a series whose every point is undefined: a ranking or a
        // baseline without a point draws none.
        for (i, r) in rankings.enumerated() {
            if points.contains(where: { $0.0.ranking == r }) {
                plots.append("\(gp(file)) skip 1 using 3:($8==\(i + 1) ? $5 : NaN):7 with points pt variable ps 1.1 lc \(i + 1) notitle")
            }
            plots.append("NaN with points pt 7 ps 1.1 lc \(i + 1) title \(gp(r))")
        }
        for (i, b) in budgets.enumerated() {
            plots.append("NaN with points pt \(pointType(i)) ps 1.1 lc rgb '#555555' title \(gp("budget " + b))")
        }
        if let baseline = c.baseline, points.contains(where: { $0.0 == baseline }) {
            plots.append("\(gp(file)) skip 1 using 3:($9==1 ? $5 : NaN) with points pt 6 ps 2.6 lw 2 lc rgb 'black' title 'baseline'")
        }
        let xEnds = rows.flatMap { r -> [Double] in
            guard case .number(let v?) = r[2], case .number(let h?) = r[3] else { return [] }
            return [v - h, v + h]
        }
        let yEnds = rows.flatMap { r -> [Double] in
            guard case .number(let v?) = r[4], case .number(let h?) = r[5] else { return [] }
            return [v - h, v + h]
        }
        let body = """
        \(ticks("x", xEnds, most: 6))\(ticks("y", yEnds, most: 8))set xlabel \(gp(label(x, xName, xUnit)))
        set ylabel \(gp(label(y, yName, yUnit)))
        set key outside right top vertical Left reverse samplen 1.5 font ',10'
        set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
        plot \(plots.joined(separator: ", \\\n     "))
        """
        return Chart(
            name: name, caption: caption,
            data: [(file, ChartData.csv(["budget", "ranking", "x", "x_ci95_half_width", "y", "y_ci95_half_width",
                                         "budget_point_type", "ranking_index", "baseline"], rows)),
                   (frontFile, ChartData.csv(["budget", "ranking", "x", "y"],
                                             front.map { [.label($0.0.budget), .label($0.0.ranking), .number($0.1), .number($0.2)] }))],
            body: body, width: 860, height: 480, marks: rows.count)
    }

    /// Accuracy per day for each ranking (under one budget), with the ceiling and the static
    /// ranking as reference lines and the warm-up days shaded.
    static func learning(_ d: DailyTable, budget: String, staticRanking: String?) -> Chart? {
        let rankings = d.pairs.filter { $0.budget == budget }.map(\.ranking)
        guard !rankings.isEmpty, d.days > 0 else { return nil }
        let plotted = rankings.filter { $0 != staticRanking }
        let ceilingPair = PairKey(budget: budget, ranking: rankings[0])
        var header = ["day", "warmup", "ceiling"]
        if let staticRanking { header.append(staticRanking) }
        header += plotted
        var rows: [[ChartValue]] = []
        for day in 0 ..< d.days {
            var row: [ChartValue] = [.number(Double(day + 1)),
                                     .number(d.byPair[ceilingPair]![day].warmup ? 1 : 0),
                                     .number(d.byPair[ceilingPair]![day].ceiling.map { $0 * 100 })]
            if let staticRanking {
                row.append(.number(d.byPair[PairKey(budget: budget, ranking: staticRanking)]?[day].accuracy.map { $0 * 100 }))
            }
            for r in plotted { row.append(.number(d.byPair[PairKey(budget: budget, ranking: r)]?[day].accuracy.map { $0 * 100 })) }
            rows.append(row)
        }
        // Each ranking's 95% interval per day: Student t over the replications' own
        // accuracies (hits ÷ views wanted), when there are two or more.
        func band(_ ranking: String, _ day: Int) -> (Double?, Double?) {
            let byReplication = d.counts[PairKey(budget: budget, ranking: ranking)] ?? [:]
            let values = byReplication.keys.sorted().compactMap { r -> Double? in
                guard let c = byReplication[r]?[day], c.wanted > 0 else { return nil }
                return c.hits / c.wanted * 100
            }
            let e = Comparison.Estimate(values)
            guard let m = e.mean, let h = e.halfWidth else { return (nil, nil) }
            return (m - h, m + h)
        }
        let banded = ([staticRanking].compactMap { $0 } + plotted)
        header += banded.flatMap { [$0 + " ci95_low", $0 + " ci95_high"] }
        for day in 0 ..< d.days {
            for r in banded {
                let (lo, hi) = band(r, day)
                rows[day] += [.number(lo), .number(hi)]
            }
        }
        let name = "learning", file = "learning.csv"
        // gnuplot refuses a series whose every point is undefined: such a series is left out.
        func defined(_ column: Int) -> Bool {
            rows.contains { if case .number(let v?) = $0[column - 1] { v.isFinite } else { false } }
        }
        var plots: [String] = []
        let bandColumn = header.count - 2 * banded.count + 1
        for (i, r) in banded.enumerated() where defined(bandColumn + 2 * i) {
            let c = bandColumn + 2 * i
            let colour = r == staticRanking ? "rgb '#777777'" : colour(plotted.firstIndex(of: r) ?? 0)
            plots.append("\(gp(file)) skip 1 using 1:\(c):\(c + 1) with filledcurves fs transparent solid 0.10 noborder lc \(colour) notitle")
        }
        if defined(3) { plots.append("\(gp(file)) skip 1 using 1:3 with lines lw 2.5 dt 2 lc rgb 'black' title 'ceiling (best possible)'") }
        let column = staticRanking == nil ? 4 : 5
        for (i, r) in plotted.enumerated() where defined(column + i) {
            plots.append("\(gp(file)) skip 1 using 1:\(column + i) with linespoints lw 1.5 pt 7 ps 0.45 lc \(colour(i)) title \(gp(r))")
        }
        // The fixed stack last, so that no learning ranking's line hides it.
        if let staticRanking, defined(4) {
            plots.append("\(gp(file)) skip 1 using 1:4 with linespoints lw 3 dt 3 pt 4 ps 0.6 lc rgb '#444444' title \(gp(staticRanking + " (fixed order)"))")
        }
        guard !plots.isEmpty else { return nil }
        var shade = ""
        if d.warmupDays > 0 {
            shade = """
            set object 1 rect from 0.5, graph 0 to \(Double(d.warmupDays) + 0.5), graph 1 behind fc rgb '#e8e8e8' fs solid 1.0 noborder
            set label 1 'warm-up' at \(Double(d.warmupDays + 1) / 2 + 0.25), graph 0.96 center tc rgb '#555555'

            """
        }
        let body = """
        \(shade)set xlabel 'day of the run'
        set ylabel 'accuracy (%): views whose top was the wanted widget'
        set xrange [0.5:\(Double(d.days) + 0.5)]
        set xtics 1,\(d.days > 14 ? 7 : 1)
        set key outside right top vertical Left reverse samplen 2 font ',10'
        plot \(plots.joined(separator: ", \\\n     "))
        """
        let caption = "Accuracy per day under the \(budget) budget, pooled over replications (Σ hits ÷ Σ views wanted). "
            + "Each ranking learns from what it sees; the dashed black line is the best any ranking could do"
            + (staticRanking.map { ", the dotted grey line (drawn on top) the \($0) stack that never learns" } ?? "")
            + "; bands are 95% intervals over replications"
            + (d.warmupDays > 0 ? "; shaded days are warm-up, left out of every other figure." : ".")
        return Chart(name: name, caption: caption, data: [(file, ChartData.csv(header, rows))], body: body,
                     width: 860, height: 440, marks: d.days * max(1, plotted.count))
    }

    /// The paired difference to the baseline of one metric, one row per pair, 95% intervals.
    static func forest(_ c: ComparisonTable, _ m: HeadlineMetric, unit: String) -> Chart? {
        guard let baseline = c.baseline, let metric = c.name(of: m), let byPair = c.entries[metric] else { return nil }
        var rows: [[ChartValue]] = []
        for pair in c.pairs {
            guard let d = byPair[pair]?.difference else { continue }
            rows.append([.label("\(pair.budget) / \(pair.ranking)"), .number(Double(rows.count)),
                         .number(d.mean * m.scale), .number((d.halfWidth ?? 0) * m.scale),
                         .number(pair == baseline ? 1 : 0)])
        }
        guard !rows.isEmpty else { return nil }
        let name = "difference_\(metric)", file = "\(name).csv"
        let ends = rows.flatMap { r -> [Double] in
            guard case .number(let d?) = r[2], case .number(let h?) = r[3] else { return [] }
            return [d - h, d + h, 0]
        }
        // The plot area: the chart's width less the pairs' names (at font size 10) and the margins.
        let width = 560
        let longest = rows.map { r -> Int in if case .label(let l) = r[0] { l.count } else { 0 } }.max() ?? 0
        let plotWidth = Double(width) - Double(longest) * LabelPlacement.charWidth * 10 / 11 - 50
        let body = """
        \(ticks("x", ends, most: 5, width: plotWidth))set xlabel \(gp("Δ " + (label(m, metric, unit).components(separatedBy: "  [").first ?? m.label)))
        set yrange [\(Double(rows.count) - 0.5):-0.5]
        set ytics font ',10'
        set grid noytics
        set key off
        set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb '#333333'
        set offsets graph 0.08, graph 0.08, 0, 0
        plot \(gp(file)) skip 1 using 3:2:($3-$4):($3+$4):ytic(1) with xerrorbars pt 7 ps 0.8 lc rgb '#1f5fa8' title 'paired difference', \\
             \(gp(file)) skip 1 using ($5==1 ? $3 : NaN):2 with points pt 6 ps 1.8 lc rgb 'black' title 'baseline'
        """
        let better = m.lowerIsBetter ? "left of zero is better" : "right of zero is better"
        return Chart(name: name, caption: "\(metric): each pair minus the baseline (\(baseline)), 95% paired interval; \(better).",
                     data: [(file, ChartData.csv(["pair", "row", "difference", "ci95_half_width", "baseline"], rows))],
                     body: body, width: width, height: 110 + 20 * rows.count, marks: rows.count)
    }

    /// Counts per reason code, stacked, one bar per pair.
    static func reasons(_ r: ReasonsTable, kind: String, pairs: [PairKey]) -> Chart? {
        guard let byPair = r.counts[kind], let codes = r.reasonsByKind[kind], !codes.isEmpty else { return nil }
        let shown = pairs.filter { byPair[$0] != nil } + byPair.keys.filter { !pairs.contains($0) }.sorted()
        let name = "reasons" + (kind.isEmpty ? "" : "_" + kind.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce("") { $0 + String($1) })
        let file = "\(name).csv"
        let rows: [[ChartValue]] = shown.map { pair in
            [.label("\(pair.budget) / \(pair.ranking)")] + codes.map { .number(byPair[pair]?[$0] ?? 0) }
        }
        // One colour per code (gnuplot's own cycle has eight).
        let colours = codes.indices.map { "set linetype \($0 + 1) lc \(colour($0))\n" }.joined()
        let body = """
        \(colours)set linetype cycle \(max(codes.count, 1))
        set style data histograms
        set style histogram rowstacked
        set style fill solid 0.85 border rgb '#ffffff'
        set boxwidth 0.75
        set xtics rotate by -40 left font ',9'
        set ylabel 'count per replication'
        set key outside right top vertical Left reverse font ',10' autotitle columnhead
        set grid noxtics
        plot for [i=2:\(codes.count + 1)] \(gp(file)) using i:xtic(1)
        """
        let what = kind.isEmpty ? "Reason codes" : "Reasons of kind \(kind.replacingOccurrences(of: "_", with: " "))"
        return Chart(name: name, caption: "\(what) per pair (mean count per replication over the measured days), stacked by code.",
                     data: [(file, ChartData.csv(["pair"] + codes, rows))],
                     body: body, width: 860, height: 470,
                     marks: shown.filter { pair in codes.contains { (byPair[pair]?[$0] ?? 0) > 0 } }.count)
    }

    /// Twelve colours told apart on white, for charts with more series than gnuplot's eight.
    static let palette = ["#1f5fa8", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285",
                          "#e67700", "#5c940d", "#a61e4d", "#364fc7", "#495057", "#9c6644"]

    static func colour(_ i: Int) -> String { "rgb '\(palette[i % palette.count])'" }

    /// The series of a study chart along `parameter`: one per pair and combination of the
    /// other parameters' values, in the file's order.
    static func studySeries(_ s: StudyTable, parameter: String) -> [(pair: PairKey, others: [String: String])] {
        let others = s.parameters.filter { $0 != parameter }
        var series: [(pair: PairKey, others: [String: String])] = []
        for row in s.rows {
            let o = Dictionary(uniqueKeysWithValues: others.map { ($0, row.parameters[$0] ?? "") })
            if !series.contains(where: { $0.pair == row.pair && $0.others == o }) { series.append((row.pair, o)) }
        }
        return series
    }

    /// The values of `parameter` in the file's order, sorted when all are numbers.
    static func studyValues(_ s: StudyTable, parameter: String) -> (values: [String], numeric: Bool) {
        let values = unique(s.rows.map { $0.parameters[parameter] ?? "" })
        let numeric = values.allSatisfy { Double($0) != nil }
        return (numeric ? values.sorted { Double($0)! < Double($1)! } : values, numeric)
    }

    static func seriesTitle(_ pair: PairKey, _ others: [String: String], _ order: [String]) -> String {
        ([ "\(pair.budget)/\(pair.ranking)"] + order.compactMap { p in others[p].map { "\(shortName(p)) = \($0)" } })
            .joined(separator: ", ")
    }

    /// A parameter path's last two parts (`views_per_day.mean`), short enough for a key.
    static func shortName(_ path: String) -> String { path.split(separator: ".").suffix(2).joined(separator: ".") }

    /// One headline metric against one study parameter: a line per pair and value of the
    /// other parameters, each with its 95% band, so that every point of the study is drawn.
    static func study(_ s: StudyTable, parameter: String, metric: String, index: Int) -> Chart? {
        let m = HeadlineMetric.headline.first { $0.names.contains(metric) }
        let scale = m?.scale ?? 1
        let (xs, numeric) = studyValues(s, parameter: parameter)
        let others = s.parameters.filter { $0 != parameter }
        let series = studySeries(s, parameter: parameter)
        var header = ["x", "value"]
        for (pair, o) in series { header += [seriesTitle(pair, o, others), seriesTitle(pair, o, others) + " ci95_half_width"] }
        var rows: [[ChartValue]] = []
        var marks = 0
        var seriesMarks = Array(repeating: 0, count: series.count)
        for (i, x) in xs.enumerated() {
            var row: [ChartValue] = [numeric ? .number(Double(x)!) : .number(Double(i)), .label(x)]
            for (j, (pair, o)) in series.enumerated() {
                let e = s.rows.first { r in
                    r.pair == pair && r.parameters[parameter] == x && others.allSatisfy { r.parameters[$0] == o[$0] }
                }?.values[metric]
                if e != nil { marks += 1; seriesMarks[j] += 1 }
                row += [.number(e.map { $0.mean * scale }), .number(e.map { ($0.halfWidth ?? 0) * scale })]
            }
            rows.append(row)
        }
        guard marks > 0 else { return nil }
        let total = s.rows.filter { $0.values[metric] != nil }.count
        let name = "study_\(index)", file = "\(name).csv"
        let pairs = unique(series.map(\.pair))
        var plots: [String] = []
        // A series without a value at any point is left out: gnuplot refuses a plot without a point.
        for (i, (pair, o)) in series.enumerated() where seriesMarks[i] > 0 {
            let c = 3 + 2 * i
            let p = pairs.firstIndex(of: pair)!
            plots.append("\(gp(file)) skip 1 using 1:($\(c)-$\(c + 1)):($\(c)+$\(c + 1)) with filledcurves fs transparent solid 0.12 noborder lc \(colour(i)) notitle")
            plots.append("\(gp(file)) skip 1 using 1:\(c)\(numeric ? "" : ":xtic(2)") with linespoints lw 1.5 dt \(p + 1) pt \(pointType(p)) ps 0.6 lc \(colour(i)) title \(gp(seriesTitle(pair, o, others)))")
        }
        let body = studyBody(parameter: parameter, metric: metric, m: m, plots: plots)
        let lines = others.isEmpty ? "a line per pair" : "a line per pair and value of \(others.map { "`\($0)`" }.joined(separator: " and "))"
        return Chart(name: name,
                     caption: "`\(metric)` against the study parameter `\(parameter)`: \(lines), its 95% interval as a band. "
                         + "This chart draws \(marks) of the study's \(total) points × pairs\(marks == total ? " (all of them)" : "").",
                     data: [(file, ChartData.csv(header, rows))], body: body, width: 760, height: 420 + max(0, series.count - 6) * 14,
                     marks: marks)
    }

    /// An axis label: the metric's words, and the column it comes from.
    /// The gnuplot script of a chart of `metric` against a study's `parameter`: axes,
    /// key outside on the right, a margin around the points, then `plots`.
    static func studyBody(parameter: String, metric: String, m: HeadlineMetric?, plots: [String]) -> String {
        """
        set xlabel \(gp(parameter))
        set ylabel \(gp(m.map { label($0, metric, "") } ?? metric))
        set key outside right top vertical Left reverse font ',10'
        set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
        plot \(plots.joined(separator: ", \\\n     "))
        """
    }

    static func label(_ m: HeadlineMetric, _ column: String, _ unit: String) -> String {
        var text = m.label
        if column.hasSuffix("_minutes") { text += " (minutes)" } else if column.hasSuffix("_seconds") || column.hasSuffix("_s") { text += " (seconds)" }
        if !unit.isEmpty { text += " (\(unit))" }
        return text + "  [" + column + "]"
    }

    /// A tick interval of 1, 2, 2.5 or 5 × 10^k that puts at most `most` ticks across
    /// `low … high` (so that tick labels never run together), or nil for an empty range.
    static func tickStep(_ low: Double, _ high: Double, most: Int) -> Double? {
        let span = high - low
        guard span.isFinite, span > 0, most >= 1 else { return nil }
        let raw = span / Double(most)
        let power = pow(10, floor(log10(raw)))
        for m in [1, 2, 2.5, 5, 10] where m * power >= raw { return m * power }
        return 10 * power
    }

    /// `set xtics`/`set ytics` lines for an axis over `values` (with a margin), at most
    /// `most` ticks, labels in their shortest form; with `width` (the axis's length in
    /// pixels), fewer ticks until their labels fit side by side along it.
    static func ticks(_ axis: String, _ values: [Double], most: Int, width: Double? = nil) -> String {
        guard let lo = values.min(), let hi = values.max() else { return "" }
        let pad = max(hi - lo, abs(hi) * 0.1, 1e-12) * 0.1
        var most = most
        while let width, most > 1, let step = tickStep(lo - pad, hi + pad, most: most),
              tickLabelsWidth(lo - pad, hi + pad, step) > width {
            most -= 1
        }
        guard let step = tickStep(lo - pad, hi + pad, most: most) else { return "" }
        return "set \(axis)tics \(step)\nset format \(axis) '%.6g'\n"
    }

    /// The pixels the labels of the ticks every `step` across `low … high` take side by side:
    /// gnuplot widens the axis to whole steps, and writes each label with '%.6g' in
    /// digits 7 pixels wide at the charts' font size; a gap of 12 pixels between labels.
    static func tickLabelsWidth(_ low: Double, _ high: Double, _ step: Double) -> Double {
        let first = (low / step).rounded(.down), last = (high / step).rounded(.up)
        return stride(from: first, through: last, by: 1).map { k in
            Double(String(format: "%.6g", k * step).count) * 7 + 12
        }.reduce(0, +)
    }

    static func unique<T: Hashable>(_ xs: [T]) -> [T] {
        var seen = Set<T>()
        return xs.filter { seen.insert($0).inserted }
    }
}
