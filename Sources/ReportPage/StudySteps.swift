import Foundation

/// Where a study's curve flattens: along one parameter, for one pair (and values of the
/// other parameters), the paired differences between consecutive points from study.csv
/// (`<metric>_step_<parameter>_diff_…`), and the first value from which every further
/// step's 95% interval holds zero.
struct StudySteps: Equatable {
    struct Step: Equatable {
        var from: String
        var to: String
        var difference: Estimate
        /// The interval holds zero (or there is none): no change beyond noise.
        var flat: Bool { difference.halfWidth.map { abs(difference.mean) <= $0 } ?? false }
    }

    var parameter: String
    var metric: String
    var series: String
    var steps: [Step]

    /// The value from which the curve no longer changes beyond noise; nil when its last
    /// step still does (or a step has no interval).
    var flattensAt: String? {
        var i = steps.count
        while i > 0, steps[i - 1].flat { i -= 1 }
        return i == steps.count ? nil : steps[i].from
    }

    /// Every series' steps of `metric` along `parameter` (values in the chart's order).
    static func make(_ s: StudyTable, parameter: String, metric: String) -> [StudySteps] {
        let (values, _) = Figures.studyValues(s, parameter: parameter)
        guard values.count >= 2 else { return [] }
        let others = s.parameters.filter { $0 != parameter }
        return Figures.studySeries(s, parameter: parameter).compactMap { pair, o in
            var steps: [Step] = []
            for (i, v) in values.enumerated().dropFirst() {
                let row = s.rows.first { r in
                    r.pair == pair && r.parameters[parameter] == v && others.allSatisfy { r.parameters[$0] == o[$0] }
                }
                guard let d = row?.steps[parameter]?[metric] else { continue }
                steps.append(Step(from: values[i - 1], to: v, difference: d))
            }
            return steps.isEmpty ? nil : StudySteps(parameter: parameter, metric: metric,
                                                    series: Figures.seriesTitle(pair, o, others), steps: steps)
        }
    }

    /// The table of the page's studies section: one row per series and parameter.
    static func html(_ s: StudyTable, metric: String) -> String {
        let m = HeadlineMetric.headline.first { $0.names.contains(metric) }
        let scale = m?.scale ?? 1
        var rows = ""
        for p in s.parameters {
            for st in make(s, parameter: p, metric: metric) {
                let cells = st.steps.map { step in
                    let d = step.difference
                    let text = Recommendation.format(d.mean * scale) + (d.halfWidth.map { " ± " + Recommendation.format($0 * scale, like: d.mean * scale) } ?? "")
                    return "<td class=\"\(step.flat ? "flat" : "change")\" data-from=\"\(markup(step.from))\" data-to=\"\(markup(step.to))\" "
                        + "data-diff-mean=\"\(d.mean)\">\(markup(step.from)) → \(markup(step.to))<br>\(markup(text))</td>"
                }.joined()
                let at = st.flattensAt.map { "from \(markup($0))" } ?? "still changing at the last step"
                rows += "<tr data-parameter=\"\(markup(p))\" data-series=\"\(markup(st.series))\" data-flattens-at=\"\(markup(st.flattensAt ?? ""))\">"
                    + "<td class=\"pair\"><code>\(markup(p))</code></td><td class=\"pair\">\(markup(st.series))</td><td class=\"pair\">\(at)</td>\(cells)</tr>\n"
            }
        }
        guard !rows.isEmpty else { return "" }
        let unit = scale == 100 ? " (in percentage points)" : ""
        return "<p>Where does the curve flatten? Each step is the paired difference of <code>\(markup(metric))</code>\(unit) from one "
            + "value of a parameter to the next, the other parameters the same, with its 95% interval (from <code>study.csv</code>'s "
            + "<code>…_step_…</code> columns); grey steps are within noise. \"Flat\" names the value from which no further step "
            + "changes it beyond noise.</p>\n<div class=\"scroll\"><table class=\"headline steps\" id=\"study-steps\">"
            + "<thead><tr><th class=\"pair\">parameter</th><th class=\"pair\">line</th><th class=\"pair\">flat</th><th class=\"pair\" colspan=\"99\">steps</th></tr></thead>\n<tbody>\n"
            + rows + "</tbody></table></div>"
    }
}
