import Foundation

extension Figures {
    /// The budgets' trade-off: what each budget charges (charged reloads per widget-day)
    /// against its own staleness (`stale_member_share`: the stack's members stale at a
    /// view, whatever the ranking shows), one labelled point per budget under one
    /// ranking (the baseline's when every budget runs it, else the first that every
    /// budget runs), the Pareto front joined. Nil when the run lacks either metric.
    static func budgetTradeOff(_ c: ComparisonTable) -> Chart? {
        guard let xName = c.name(of: .chargedPerWidgetDay) ?? c.name(of: .reloadsPerWidgetDay),
              let yName = c.name(of: .staleMemberShare) else { return nil }
        let budgets = unique(c.pairs.map(\.budget)), rankings = unique(c.pairs.map(\.ranking))
        guard let ranking = Targets.firstContext(rankings, preferred: c.baseline?.ranking, has: { r in
            budgets.allSatisfy { c.pairs.contains(PairKey(budget: $0, ranking: r)) }
        }) ?? rankings.first else { return nil }
        let xm: HeadlineMetric = xName == c.name(of: .chargedPerWidgetDay) ? .chargedPerWidgetDay : .reloadsPerWidgetDay
        var points: [(PairKey, Double, Double)] = []
        var xh: [Double] = [], yh: [Double] = []
        var rows: [[ChartValue]] = []
        for b in budgets {
            let pair = PairKey(budget: b, ranking: ranking)
            guard let xe = c.entries[xName]?[pair]?.value, let ye = c.entries[yName]?[pair]?.value else { continue }
            let x = xe.mean * xm.scale, y = ye.mean * 100
            points.append((pair, x, y))
            xh.append((xe.halfWidth ?? 0) * xm.scale)
            yh.append((ye.halfWidth ?? 0) * 100)
            rows.append([.label(b), .number(x), .number((xe.halfWidth ?? 0) * xm.scale), .number(y), .number((ye.halfWidth ?? 0) * 100),
                         .number(pair == c.baseline ? 1 : 0)])
        }
        guard !points.isEmpty else { return nil }
        let front = paretoFront(points)
        // Axis ranges fixed here (not by gnuplot) so that labels can be placed in pixels.
        func range(_ v: [Double], _ h: [Double]) -> (Double, Double) {
            let lo = zip(v, h).map { $0 - $1 }.min()!, hi = zip(v, h).map { $0 + $1 }.max()!
            let span = max(hi - lo, max(abs(hi), 1) * 0.1)
            return (lo - 0.12 * span, hi + 0.12 * span)
        }
        let xs = points.map(\.1), ys = points.map(\.2)
        let (x0, x1) = range(xs, xh), (y0, y1) = range(ys, yh)
        let width = 860.0, height = 480.0
        let left = 0.10, right = 0.96, bottom = 0.13, top = 0.88
        let pw = width * (right - left), ph = height * (top - bottom)
        let px = points.map { (x: ($0.1 - x0) / (x1 - x0) * pw, y: ($0.2 - y0) / (y1 - y0) * ph) }
        let placed = LabelPlacement.place(px, points.map(\.0.budget), width: pw, height: ph)
        var labels = ""
        for (i, l) in placed.enumerated() {
            let lx = x0 + l.x / pw * (x1 - x0), ly = y0 + l.y / ph * (y1 - y0)
            labels += "set label \(i + 1) \(gp(points[i].0.budget)) at \(lx),\(ly) \(l.align) font ',10' front\n"
        }
        let name = "tradeoff_budgets", file = "\(name).csv", frontFile = "\(name)_front.csv"
        var plots = [
            "\(gp(file)) skip 1 using 2:4:($2-$3):($2+$3):($4-$5):($4+$5) with xyerrorbars pt -1 lc rgb '#9a9a9a' title '95% intervals'",
            "\(gp(frontFile)) skip 1 using 2:3 with lines lw 2 dt 2 lc rgb '#333333' title 'Pareto front'",
            "\(gp(file)) skip 1 using 2:4 with points pt 7 ps 1.2 lc rgb '#1f5fa8' title 'budget'",
        ]
        if let baseline = c.baseline, points.contains(where: { $0.0 == baseline }) {
            plots.append("\(gp(file)) skip 1 using 2:($6==1 ? $4 : NaN) with points pt 6 ps 2.6 lw 2 lc rgb 'black' title 'baseline'")
        }
        let body = """
        set lmargin at screen \(left)
        set rmargin at screen \(right)
        set bmargin at screen \(bottom)
        set tmargin at screen \(top)
        set xrange [\(x0):\(x1)]
        set yrange [\(y0):\(y1)]
        set xtics nomirror
        \(ticks("x", [x0, x1], most: 6))\(ticks("y", [y0, y1], most: 8))        set xlabel \(gp(xm.label + " (cost)"))
        set ylabel \(gp("stack members stale at a view (%)"))
        set key at screen \(right), screen 0.99 right top horizontal Left reverse samplen 1.5 font ',10'
        \(labels)plot \(plots.joined(separator: ", \\\n     "))
        """
        return Chart(
            name: name,
            caption: "What each budget costs against its own staleness, under the \(ranking) ranking: charged reloads per widget-day "
                + "against `stale_member_share` (the share of the stack's widgets whose content is stale at a view, whatever the "
                + "ranking shows). One labelled point per budget with 95% interval bars; the dashed line joins the Pareto front "
                + "(no other budget is both cheaper and fresher). Lower-left is better.",
            data: [(file, ChartData.csv(["budget", "x", "x_ci95_half_width", "y", "y_ci95_half_width", "baseline"], rows)),
                   (frontFile, ChartData.csv(["budget", "x", "y"], front.map { [.label($0.0.budget), .number($0.1), .number($0.2)] }))],
            body: body, width: Int(width), height: Int(height), marks: rows.count)
    }
}
