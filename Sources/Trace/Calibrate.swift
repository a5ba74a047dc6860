import Foundation

/// Reading a log and fitting the person model to it, as `widgetsim calibrate` does.
public enum TraceCalibrator {
    /// The most apps made into widgets when none are named: a Smart Stack holds 10, and
    /// a handful of apps is what a stack study needs.
    public static let defaultAppCount = 6

    public struct Result: Sendable {
        public var calibration: Calibration
        public var warnings: [TraceWarning]
        public var lines: Int
        /// (widget id, app name) as fitted.
        public var apps: [(widget: String, app: String)]
    }

    /// Reads the log at `path` and fits the model for `apps` (widget id → the log's app
    /// name, in order); with no apps, the `defaultAppCount` apps with the most sessions.
    public static func calibrate(
        path: String, format: TraceFormat, zone: TimeZone?, apps: [(widget: String, app: String)]
    ) throws -> Result {
        var mapping = apps
        if mapping.isEmpty {
            var reader = TraceReader(path: path, format: format, zone: zone)
            var counts: [Int] = []
            try reader.read { (e: TraceEvent) throws(TraceError) in
                guard e.kind == .session else { return }
                while counts.count <= Int(e.app) { counts.append(0) }
                counts[Int(e.app)] += 1
            }
            let names = reader.appNames
            let top = counts.indices.sorted { counts[$0] != counts[$1] ? counts[$0] > counts[$1] : $0 < $1 }
                .prefix(defaultAppCount)
            var used = Set<String>()
            mapping = top.map { i in
                var id = widgetId(names[i])
                while used.contains(id) { id += "_" }
                used.insert(id)
                return (id, names[i])
            }
        }
        var reader = TraceReader(path: path, format: format, zone: zone, knownApps: mapping.map(\.app))
        var tally = TraceTally(widgets: mapping.map(\.widget), appNames: mapping.map(\.app))
        try reader.read { (e: TraceEvent) throws(TraceError) in tally.add(e) }
        tally.finish()
        return Result(calibration: try Calibration.fit(tally), warnings: reader.warnings, lines: reader.lines, apps: mapping)
    }

    /// A widget id made from an app name: lower case, letters, digits, `_`.
    public static func widgetId(_ name: String) -> String {
        var id = ""
        for c in name.lowercased().unicodeScalars {
            if (c >= "a" && c <= "z") || (c >= "0" && c <= "9") { id.unicodeScalars.append(c) }
            else if !id.hasSuffix("_") { id += "_" }
        }
        while id.hasSuffix("_") { id.removeLast() }
        return id.isEmpty ? "app" : id
    }
}

extension Calibration {
    /// The calibrated scenario as YAML: the fitted person model, each value with its 95%
    /// interval in a comment; what the log cannot say keeps the scenario defaults or a
    /// placeholder, and says so.
    public func scenarioYAML(name: String, source: String, timeZone: String?, days: Int = 28, people: Int = 1000) -> String {
        func f(_ x: Double) -> String {
            if x == 0 { return "0" }
            let text = String(format: abs(x) >= 100 ? "%.1f" : abs(x) >= 1 ? "%.3f" : "%.4g", x)
            guard text.contains("."), !text.contains("e") else { return text }
            var t = text
            while t.hasSuffix("0") { t.removeLast() }
            if t.hasSuffix(".") { t.removeLast() }
            return t
        }
        func ci(_ e: Estimate) -> String { "95% interval \(f(e.low)) … \(f(e.high))" }
        func list(_ values: [Double]) -> String { "[" + values.map(f).joined(separator: ", ") + "]" }
        let (y, m, d) = civilFromDays(firstDay)
        var out: [String] = []
        out.append("# Calibrated from \(source): \(self.people) people, \(Int(personDays)) person-days, \(sessions) sessions of the mapped apps.")
        out.append("# Maximum-likelihood fit; each fitted value's 95% interval is in the comment after it.")
        out.append("# Not in the log (left at the scenario defaults or placeholders): timelines, content, relevance,")
        out.append("# what a view wants (no_interest), swipes and taps, and the policies to compare.")
        for line in misfits { out.append("# Misfit: \(line)") }
        out.append("name: \(name)")
        out.append("seed: 1")
        out.append("days: \(max(1, min(days, self.days)))                  # the log covers \(self.days) days")
        out.append("people: \(people)")
        out.append(String(format: "start: %04d-%02d-%02d         # the log's first day", y, m, d))
        out.append("time_zone: \(timeZone ?? "UTC")\(timeZone == nil ? "              # the log's times were read as written" : "")")
        out.append("")
        out.append("person:")
        out.append("  sessions_per_day: {mean: \(f(sessionsPerDay.value)), cv: \(f(sessionsCV.value))}   # mean: \(ci(sessionsPerDay)); cv: \(ci(sessionsCV))")
        out.append("  # session_profile: each hour's share of the day's sessions (×24), 95% intervals:")
        for h in stride(from: 0, to: 24, by: 6) {
            out.append("  #   " + (h ..< h + 6).map { String(format: "%02d: ", $0) + f(sessionProfile[$0].low * 24) + "…" + f(sessionProfile[$0].high * 24) }.joined(separator: ", "))
        }
        out.append("  session_profile: \(list(sessionProfile.map { $0.value * 24 }))")
        if let median = sessionMedianSeconds, let sigma = sessionSigma {
            out.append("  session_length: {median: \(f(median.value))s, sigma: \(f(sigma.value))}   # median: \(ci(median)) s; sigma: \(ci(sigma))")
        } else {
            out.append("  # session_length: not fitted (too few sessions with an end in the log)")
        }
        if let p = donationProbability {
            out.append("  donation_probability: \(f(min(1, p.value)))   # \(ci(p))")
        } else {
            out.append("  # donation_probability: the log has no donations; the default (0.7) holds")
        }
        if let v = viewsPerDay, let cv = viewsCV, let profile = viewProfile {
            out.append("  views_per_day: {mean: \(f(v.value)), cv: \(f(cv.value))}   # mean: \(ci(v)); cv: \(ci(cv))")
            out.append("  view_profile: \(list(profile.map { max($0, 0) }))")
        } else {
            out.append("  # views_per_day, view_profile: the log has no home-screen views; the defaults hold")
        }
        out.append("")
        out.append("widgets:")
        for w in widgets {
            out.append("  - id: \(w.id)              # the log's \"\(w.app)\": \(w.sessions) sessions\(w.medianSeconds.map { ", median length \(f($0))s" } ?? "")")
            out.append("    interest:")
            out.append("      base: \(f(w.base.value))   # \(ci(w.base)) (the bases add up to 1)")
            out.append("      # hourly, 95% intervals: " + (0 ..< 24).map { String(format: "%02d ", $0) + f(w.hourly[$0].low) + "…" + f(w.hourly[$0].high) }.joined(separator: ", "))
            out.append("      hourly: \(list(w.hourly.map(\.value)))")
            out.append("      # weekday (Monday first), 95% intervals: " + w.weekday.map { f($0.low) + "…" + f($0.high) }.joined(separator: ", "))
            out.append("      weekday: \(list(w.weekday.map(\.value)))")
            out.append("    timeline: {horizon: 6h, reload: {after: 1h}}   # not in the log: a placeholder")
        }
        out.append("")
        out.append("budgets: [unlimited]     # not in the log: the policies to compare")
        out.append("rankings: [static, time_of_day]")
        return out.joined(separator: "\n") + "\n"
    }

    /// The goodness-of-fit report: sessions by hour, observed and expected, and where the
    /// model cannot follow the log.
    public var fitReport: String {
        var out: [String] = []
        out.append(String(format: "%d people, %.0f person-days, %d sessions of the mapped apps: %.2f a person-day (95%% interval %.2f … %.2f).",
                          people, personDays, sessions, sessionsPerDay.value, sessionsPerDay.low, sessionsPerDay.high))
        out.append("")
        out.append("hour  observed  expected  chi-square")
        for (h, row) in hours.enumerated() {
            out.append(String(format: "%4d  %8d  %8.1f  %10.1f", h, row.observed, row.expected, row.chiSquare))
        }
        out.append("")
        out.append("The expected sessions of each hour match the observed ones by construction (the session profile")
        out.append("is fitted hour by hour); the chi-square column is each hour's part of the test over its app ×")
        out.append("weekday cells, where the model's interest factors must fit.")
        out.append(String(format: "Chi-square test over app × hour × weekday cells: χ² = %.1f, %d degrees of freedom, p = %.3g.",
                          chiSquare, degreesOfFreedom, pValue))
        out.append(String(format: "Weekday totals (Monday first), observed/expected: %@; p = %.3g.",
                          weekdays.map { String(format: "%d/%.0f", $0.observed, $0.expected) }.joined(separator: " "), weekdayPValue))
        out.append(String(format: "Day-to-day dispersion of a person's sessions: %.2f (1 for Poisson), p = %.3g.", dispersion, dispersionPValue))
        out.append(String(format: "Sessions within a minute of the person's previous one: %d (Poisson: %.1f), p = %.3g.",
                          shortGaps, expectedShortGaps, shortGapPValue))
        if unclosed > 0 { out.append("\(unclosed) sessions without an end were left out of the session length fit.") }
        if instant > 0 { out.append("\(instant) sessions shorter than a second were counted as 0.5 s long.") }
        let misfits = self.misfits
        out.append("")
        if misfits.isEmpty {
            out.append("The model fits: no test rejects it at the 0.1% level.")
        } else {
            out.append("Where the model cannot fit the log:")
            for m in misfits { out.append("- " + m) }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
