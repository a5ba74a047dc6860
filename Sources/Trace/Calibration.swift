import CGSL
import Foundation

/// A fitted value with its 95% interval.
public struct Estimate: Sendable {
    public var value: Double
    public var low: Double
    public var high: Double

    public init(_ value: Double, _ low: Double, _ high: Double) {
        self.value = value
        self.low = low
        self.high = high
    }

    public func contains(_ x: Double) -> Bool { low <= x && x <= high }
}

/// The person model fitted to a tally by maximum likelihood, with 95% intervals, and
/// how well it fits.
public struct Calibration: Sendable {
    public struct WidgetFit: Sendable {
        public var id: String
        public var app: String
        public var sessions: Int
        /// Interest: the base (the bases add up to 1), hour factors (mean 1) and weekday
        /// factors (mean 1, Monday first).
        public var base: Estimate
        public var hourly: [Estimate]
        public var weekday: [Estimate]
        /// The median session length of this app alone (s), for comparison with the pooled one.
        public var medianSeconds: Double?
        public var donations: Int
        public var pushes: Int
        /// The fitted share of this app among the mapped apps' sessions at each local
        /// hour and weekday, at `weekday * 24 + hour`: what the simulation uses (the
        /// factors above are one way of writing these shares; common factors of an hour
        /// or a weekday cancel out of them).
        public var shares: [Double]
    }

    public var people: Int
    public var personDays: Double
    public var firstDay: Int64
    public var days: Int
    public var sessions: Int
    public var sessionsPerDay: Estimate
    public var sessionsCV: Estimate
    /// The session profile: each hour's share of the day's sessions.
    public var sessionProfile: [Estimate]
    /// Log-normal session length: median in seconds and sigma.
    public var sessionMedianSeconds: Estimate?
    public var sessionSigma: Estimate?
    public var donationProbability: Estimate?
    public var views: Int
    public var viewsPerDay: Estimate?
    public var viewsCV: Estimate?
    public var viewProfile: [Double]?
    public var widgets: [WidgetFit]
    /// Mapped apps with no session in the log.
    public var missingApps: [String]
    /// Observed and expected sessions by local hour, and each hour's part of χ² over
    /// its app × weekday cells.
    public var hours: [(observed: Int, expected: Double, chiSquare: Double)]
    public var chiSquare: Double
    public var degreesOfFreedom: Int
    public var pValue: Double
    /// Observed and expected sessions by weekday (Monday first), and their χ² test.
    public var weekdays: [(observed: Int, expected: Double)]
    public var weekdayPValue: Double
    /// Day-to-day variation of each person's count against Poisson: ratio and p-value.
    public var dispersion: Double
    public var dispersionPValue: Double
    /// Gaps under a minute between a person's consecutive sessions: observed, expected.
    public var shortGaps: Int
    public var expectedShortGaps: Double
    public var shortGapPValue: Double
    public var unclosed: Int
    public var instant: Int

    /// Plain sentences on where the person model cannot follow the log.
    public var misfits: [String] {
        var lines: [String] = []
        if pValue < 0.001 {
            lines.append(String(format: "The sessions by app, hour and weekday differ from the model's more than chance allows (χ² = %.1f, %d degrees of freedom, p = %.2g): interest is a product of one hour factor and one weekday factor per app, so an app whose hours differ between weekdays is averaged.", chiSquare, degreesOfFreedom, pValue))
        }
        if weekdayPValue < 0.001 {
            lines.append(String(format: "The number of sessions depends on the weekday (p = %.2g), but the model's sessions_per_day is the same every day of the week; weekday factors only move sessions between apps.", weekdayPValue))
        }
        if dispersionPValue < 0.001 && dispersion > 1.2 {
            lines.append(String(format: "A person's sessions vary from day to day %.1f times as much as a Poisson process with their own rate makes (p = %.2g): the model draws one rate per person for the whole run.", dispersion, dispersionPValue))
        }
        if shortGapPValue < 0.001 && Double(shortGaps) > 1.5 * expectedShortGaps {
            lines.append(String(format: "Bursts: %d sessions start within a minute of the person's previous one, where a Poisson process with each person's hourly rates makes %.0f: sessions come in bunches that a Poisson process cannot make.", shortGaps, expectedShortGaps))
        }
        for app in missingApps {
            lines.append("The app \"\(app)\" never occurs in the log: its widget is left out.")
        }
        return lines
    }
}

public enum CalibrationError: Error, CustomStringConvertible {
    case noSessions(String)
    public var description: String {
        switch self {
        case .noSessions(let text): text
        }
    }
}

extension Calibration {
    static let z975 = 1.959963984540054

    /// Fits the model to a finished tally.
    public static func fit(_ t: TraceTally) throws(CalibrationError) -> Calibration {
        widgetsim_gsl_disable_abort()
        let W = t.widgetCount
        // People with any event: each covers the days from their first to their last.
        let people = t.people.filter { $0.firstDay <= $0.lastDay }
        var exposure = [Double](repeating: 0, count: 7)
        for p in people {
            let days = p.lastDay - p.firstDay + 1
            for d in 0 ..< 7 { exposure[d] += Double(days / 7) }
            for k in 0 ..< days % 7 { exposure[Int(floorMod(p.firstDay + k + 3, 7))] += 1 }
        }
        let personDays = exposure.reduce(0, +)
        let N = t.cells.reduce(0, +)
        let widgetSessions = (0 ..< W).map { w in t.cells[w * 168 ..< (w + 1) * 168].reduce(0, +) }
        let missing = (0 ..< W).filter { widgetSessions[$0] == 0 }
        guard N > 0, personDays > 0 else {
            throw .noSessions("no session of a mapped app in the log (apps: \(t.appNames.map { "\"\($0)\"" }.joined(separator: ", ")))")
        }

        // sessions_per_day: the ML mean (Poisson or gamma-Poisson alike) with a
        // ratio-estimator interval over people; cv: the between-people moment estimate.
        let S = Double(N) / personDays
        let days = people.map { Double($0.lastDay - $0.firstDay + 1) }
        let counts = people.map { Double($0.sessions) }
        let sessionsPerDay = ratioInterval(counts, days, mean: S)
        let cv = betweenPeopleCV(counts, days, seed: 1)

        // The session profile: each hour's share, a binomial interval.
        var hourTotals = [Int](repeating: 0, count: 24)
        var hdTotals = [Double](repeating: 0, count: 168)
        for w in 0 ..< W {
            for c in 0 ..< 168 {
                hourTotals[c % 24] += t.cells[w * 168 + c]
                hdTotals[c] += Double(t.cells[w * 168 + c])
            }
        }
        let profile = hourTotals.map { share(Double($0), Double(N)) }

        // Interest: shares of the apps at each hour and weekday, log-linear with an
        // app × hour and an app × weekday term, fitted by iterative proportional fitting
        // (the ML fit of that model; Bishop, Fienberg & Holland, ch. 3).
        var x = [Double](repeating: 1, count: 168)
        var y = [Double](repeating: 1, count: W * 24)
        var z = [Double](repeating: 1, count: W * 7)
        var wh = [Double](repeating: 0, count: W * 24), wd = [Double](repeating: 0, count: W * 7)
        for w in 0 ..< W {
            for c in 0 ..< 168 {
                wh[w * 24 + c % 24] += Double(t.cells[w * 168 + c])
                wd[w * 7 + c / 24] += Double(t.cells[w * 168 + c])
            }
        }
        func mu(_ w: Int, _ c: Int) -> Double { x[c] * y[w * 24 + c % 24] * z[w * 7 + c / 24] }
        for _ in 0 ..< 500 {
            var m = [Double](repeating: 0, count: W * 24)
            for w in 0 ..< W { for c in 0 ..< 168 { m[w * 24 + c % 24] += mu(w, c) } }
            for i in y.indices { y[i] = m[i] > 0 ? y[i] * wh[i] / m[i] : 0 }
            m = [Double](repeating: 0, count: W * 7)
            for w in 0 ..< W { for c in 0 ..< 168 { m[w * 7 + c / 24] += mu(w, c) } }
            for i in z.indices { z[i] = m[i] > 0 ? z[i] * wd[i] / m[i] : 0 }
            var change = 0.0
            m = [Double](repeating: 0, count: 168)
            for w in 0 ..< W { for c in 0 ..< 168 { m[c] += mu(w, c) } }
            for c in 0 ..< 168 {
                let next = m[c] > 0 ? x[c] * hdTotals[c] / m[c] : 0
                change = max(change, abs(next - x[c]) / max(x[c], 1e-300))
                x[c] = next
            }
            if change < 1e-12 { break }
        }
        // λ_w(h, d) ∝ y[w, h] · z[w, d]: base × hourly (mean 1) × weekday (mean 1).
        var fits: [Calibration.WidgetFit] = []
        var rawBase = [Double](repeating: 0, count: W)
        for w in 0 ..< W {
            let hy = (0 ..< 24).map { y[w * 24 + $0] }, dz = (0 ..< 7).map { z[w * 7 + $0] }
            rawBase[w] = hy.reduce(0, +) / 24 * dz.reduce(0, +) / 7
        }
        let baseTotal = rawBase.reduce(0, +)
        for w in 0 ..< W where widgetSessions[w] > 0 {
            let hy = (0 ..< 24).map { y[w * 24 + $0] }, dz = (0 ..< 7).map { z[w * 7 + $0] }
            let hm = hy.reduce(0, +) / 24, dm = dz.reduce(0, +) / 7
            let baseShare = share(Double(widgetSessions[w]), Double(N))
            let b = rawBase[w] / baseTotal
            let scale = baseShare.value > 0 ? b / baseShare.value : 1
            let count = t.widgetLengthCount[w]
            fits.append(Calibration.WidgetFit(
                id: t.widgets[w], app: t.appNames[w], sessions: widgetSessions[w],
                base: Estimate(b, baseShare.low * scale, baseShare.high * scale),
                hourly: (0 ..< 24).map { poissonScaled(hy[$0] / hm, count: wh[w * 24 + $0]) },
                weekday: (0 ..< 7).map { poissonScaled(dz[$0] / dm, count: wd[w * 7 + $0]) },
                medianSeconds: count > 0 ? exp(t.widgetLogSum[w] / Double(count)) : nil,
                donations: w < t.appDonations.count ? t.appDonations[w] : 0,
                pushes: w < t.appPushes.count ? t.appPushes[w] : 0,
                shares: (0 ..< 168).map { c in
                    let total = (0 ..< W).reduce(0.0) { $0 + mu($1, c) }
                    return total > 0 ? mu(w, c) / total : 0
                }))
        }

        // Session length: log-normal ML (mean and spread of ln length), t and χ² intervals.
        var median: Estimate?, sigma: Estimate?
        if t.lengthCount >= 2 {
            let n = Double(t.lengthCount)
            let m = t.logSum / n
            let v = max(0, t.logSquares / n - m * m)
            let s = v.squareRoot()
            let half = gsl_cdf_tdist_Pinv(0.975, n - 1) * s * (n / (n - 1)).squareRoot() / n.squareRoot()
            median = Estimate(exp(m), exp(m - half), exp(m + half))
            sigma = Estimate(
                s, s * (n / chiSquareQuantile(0.975, n - 1)).squareRoot(),
                s * (n / chiSquareQuantile(0.025, n - 1)).squareRoot())
        }

        // Donations: share of mapped sessions that donate, where the log has donations.
        let donations = fits.map(\.donations).reduce(0, +)
        let donation: Estimate? = donations > 0 ? share(Double(min(donations, N)), Double(N)) : nil

        // Views, where the log has them.
        let V = people.map(\.views).reduce(0, +)
        var viewsPerDay: Estimate?, viewsCV: Estimate?, viewProfile: [Double]?
        if V > 0 {
            let viewCounts = people.map { Double($0.views) }
            viewsPerDay = ratioInterval(viewCounts, days, mean: Double(V) / personDays)
            viewsCV = betweenPeopleCV(viewCounts, days, seed: 2)
            viewProfile = t.viewHours.map { Double($0) / Double(V) * 24 }
        }

        // Goodness of fit: expected sessions at (w, h, d) = N_h · E_d / ΣE · share.
        var hours = [(observed: Int, expected: Double, chiSquare: Double)](repeating: (0, 0, 0), count: 24)
        var chi = 0.0, cellsUsed = 0, pooledO = 0.0, pooledE = 0.0
        var pooledHours = [Double](repeating: 0, count: 24)
        for c in 0 ..< 168 {
            let h = c % 24, d = c / 24
            var total = 0.0
            for w in 0 ..< W { total += mu(w, c) }
            for w in 0 ..< W where widgetSessions[w] > 0 {
                let share = total > 0 ? mu(w, c) / total : 0
                let e = Double(hourTotals[h]) * exposure[d] / personDays * share
                let o = Double(t.cells[w * 168 + c])
                hours[h].observed += Int(o)
                hours[h].expected += e
                if e >= 5 {
                    let part = (o - e) * (o - e) / e
                    chi += part
                    hours[h].chiSquare += part
                    cellsUsed += 1
                } else {
                    pooledO += o
                    pooledE += e
                    pooledHours[h] += e
                }
            }
        }
        if pooledE > 0 {
            let part = (pooledO - pooledE) * (pooledO - pooledE) / pooledE
            chi += part
            cellsUsed += 1
            for h in 0 ..< 24 { hours[h].chiSquare += part * pooledHours[h] / pooledE }
        }
        let fitted = fits.count
        let df = max(1, cellsUsed - 1 - 23 - 30 * max(0, fitted - 1))
        let p = gsl_cdf_chisq_Q(chi, Double(df))

        var weekdays = [(observed: Int, expected: Double)](repeating: (0, 0), count: 7)
        var weekdayChi = 0.0
        for d in 0 ..< 7 {
            weekdays[d].observed = Int((0 ..< 24).map { hdTotals[d * 24 + $0] }.reduce(0, +))
            weekdays[d].expected = Double(N) * exposure[d] / personDays
            if weekdays[d].expected > 0 {
                weekdayChi += pow(Double(weekdays[d].observed) - weekdays[d].expected, 2) / weekdays[d].expected
            }
        }
        let weekdayP = gsl_cdf_chisq_Q(weekdayChi, Double(max(1, exposure.filter { $0 > 0 }.count - 1)))

        // Day-to-day dispersion of each person's counts around their own mean.
        var dispersionSum = 0.0, dispersionDF = 0.0
        for p in people where p.sessions > 0 && p.lastDay > p.firstDay {
            let D = Double(p.lastDay - p.firstDay + 1), n = Double(p.sessions)
            dispersionSum += (p.squares - n * n / D) / (n / D)
            dispersionDF += D - 1
        }
        let dispersion = dispersionDF > 0 ? dispersionSum / dispersionDF : 1
        let dispersionP = dispersionDF > 0 ? gsl_cdf_chisq_Q(dispersionSum, dispersionDF) : 1

        // Short gaps expected of a Poisson process at each person's rate in each hour.
        var expectedGaps = 0.0
        let tau = Double(TraceTally.burstGapMs) / 3_600_000
        for p in people where p.sessions > 1 {
            let D = Double(p.lastDay - p.firstDay + 1)
            for h in 0 ..< 24 where p.byHour[h] > 0 {
                let n = Double(p.byHour[h])
                expectedGaps += n * (1 - exp(-n / D * tau))
            }
        }
        let gapP = t.shortGaps > 0 ? gsl_cdf_poisson_Q(UInt32(clamping: t.shortGaps - 1), max(expectedGaps, 1e-9)) : 1

        return Calibration(
            people: people.count, personDays: personDays, firstDay: t.firstDay,
            days: Int(t.lastDay - t.firstDay + 1), sessions: N,
            sessionsPerDay: sessionsPerDay, sessionsCV: cv, sessionProfile: profile,
            sessionMedianSeconds: median, sessionSigma: sigma, donationProbability: donation,
            views: V, viewsPerDay: viewsPerDay, viewsCV: viewsCV, viewProfile: viewProfile,
            widgets: fits, missingApps: missing.map { t.appNames[$0] },
            hours: hours, chiSquare: chi, degreesOfFreedom: df, pValue: p,
            weekdays: weekdays, weekdayPValue: weekdayP,
            dispersion: dispersion, dispersionPValue: dispersionP,
            shortGaps: t.shortGaps, expectedShortGaps: expectedGaps, shortGapPValue: gapP,
            unclosed: t.unclosed, instant: t.instant)
    }

    /// The χ² quantile (`gsl_cdf_chisq_Pinv`); where GSL gives no finite answer (very
    /// many degrees of freedom), the Wilson–Hilferty approximation, exact to 1e-4 there.
    static func chiSquareQuantile(_ p: Double, _ df: Double) -> Double {
        let q = gsl_cdf_chisq_Pinv(p, df)
        if q.isFinite && q > 0 { return q }
        let z = gsl_cdf_ugaussian_Pinv(p), a = 2 / (9 * df)
        return df * pow(1 - a + z * a.squareRoot(), 3)
    }

    /// k of n as a share, with its Wilson 95% interval.
    static func share(_ k: Double, _ n: Double) -> Estimate {
        guard n > 0 else { return Estimate(0, 0, 1) }
        let p = k / n, z = z975, z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return Estimate(p, max(0, centre - half), min(1, centre + half))
    }

    /// A factor fitted from `count` events: the interval of a Poisson count, as a ratio.
    static func poissonScaled(_ value: Double, count: Double) -> Estimate {
        guard count > 0 else { return Estimate(value, 0, value) }
        let low = chiSquareQuantile(0.025, 2 * count) / 2
        let high = chiSquareQuantile(0.975, 2 * count + 2) / 2
        return Estimate(value, value * low / count, value * high / count)
    }

    /// Σn / ΣD with the ratio estimator's interval over people (which includes the
    /// spread of rates between people).
    static func ratioInterval(_ n: [Double], _ d: [Double], mean: Double) -> Estimate {
        let P = Double(n.count)
        guard P > 1 else { return Estimate(mean, 0, .infinity) }
        let D = d.reduce(0, +)
        var ss = 0.0
        for i in n.indices { ss += pow(n[i] - mean * d[i], 2) }
        let se = (ss / (P - 1) * P).squareRoot() / D
        let t = gsl_cdf_tdist_Pinv(0.975, P - 1)
        return Estimate(mean, max(0, mean - t * se), mean + t * se)
    }

    /// The coefficient of variation of people's rates: the moment estimate of the
    /// between-people variance (observed spread less the Poisson part), with a
    /// percentile bootstrap interval over people (400 resamples, fixed seed).
    static func betweenPeopleCV(_ n: [Double], _ d: [Double], seed: UInt64) -> Estimate {
        func cv(_ idx: [Int]) -> Double {
            let N = idx.reduce(0.0) { $0 + n[$1] }, D = idx.reduce(0.0) { $0 + d[$1] }
            guard N > 0, idx.count > 1 else { return 0 }
            let m = N / D
            var ss = 0.0, d2 = 0.0
            for i in idx {
                ss += d[i] * pow(n[i] / d[i] - m, 2)
                d2 += d[i] * d[i]
            }
            let between = (ss - Double(idx.count - 1) * m) / (D - d2 / D)
            return between > 0 ? between.squareRoot() / m : 0
        }
        let all = Array(n.indices)
        let value = cv(all)
        guard n.count > 2 else { return Estimate(value, 0, .infinity) }
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n.count))
        }
        var samples: [Double] = []
        for _ in 0 ..< 400 { samples.append(cv(all.map { _ in next() })) }
        samples.sort()
        return Estimate(value, samples[9], samples[389])
    }
}
