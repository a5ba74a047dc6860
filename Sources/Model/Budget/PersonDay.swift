import WidgetSimKernel

/// How a budget policy cuts time into budget days, and when a day's budget may be spent.
public enum BudgetDayRule: String, Sendable, CaseIterable {
    /// Days that start at the person's usual first view (`PersonDay`), the whole budget
    /// available at once and spent greedily, as phones do (MODEL §4 "Budget days").
    case person
    /// The same days, with the day's budget released through the day in proportion to
    /// the views expected so far (`PersonDay.released`): a design of our own.
    case paced
    /// A rolling 24-hour window, the whole budget available at once.
    case rolling
    /// Days from midnight of the run's time zone (simulation days), the whole budget
    /// available at once.
    case midnight
}

/// The person's day as a budget policy learns it from the home-screen views it is
/// told of (`didView`): when the waking day usually starts, and how the day's views
/// are spread over the hours after it. Simulation days run from the run's local
/// midnight; "hour" below is the hour of a simulation day.
///
/// Rule:
/// - A day's **first view** is the view that ends the longest gap between consecutive
///   views among the views of that simulation day (the first view after the night).
///   The **anchor** is the median (the lower middle one) of the first views' times of
///   day over the previous min(7, d) simulation days with a view; with none, 0.
/// - The **profile** counts views by hour over the same days. The share of the day's
///   views expected in the τ after the anchor, F(τ), integrates that profile (each
///   hour's views spread evenly over the hour, on a 24-hour circle) from the anchor;
///   with no views yet it is τ / 24 h. F(τ) = 1 for τ ≥ 24 h.
/// - Budget day k starts at the first time `now` with ⌊(now − anchor) / 24 h⌋ = k
///   for the anchor learned at the start of now's simulation day; a later anchor
///   never reopens a day that has begun.
/// - Paced release (`budget_day: paced`, and `predictive`): of a budget B,
///   ⌊B · F(τ)⌋ + 1 (at most B) are released τ after the day's start: the budget follows
///   the views expected so far, with one grant at hand from the start. With k spent, the
///   next grant is released at the least τ with B · F(τ) ≥ k (`nextRelease`). Greedy
///   days (`budget_day: person`) release all of B at the day's start.
///
/// Source: Apple, "Keeping a widget up to date" (WidgetKit "tunes the 24-hour window
/// to the user's daily usage pattern"); the anchor rule is our calibration, and so is
/// paced release (phones spend the day's budget greedily, MODEL §4 "Budget days").
struct PersonDay {
    static let history = 7
    private static let slots = 8
    /// Views per hour, at `slot * 24 + hour`, of the day `slotDay[slot]`.
    private var hourly: [Int] = []
    private var slotDay: [Int64] = []
    /// Per slot: the longest gap ending in that day so far, and the time of day of the
    /// view that ended it (−1: no view yet).
    private var longestGap: [Int64] = []
    private var firstView: [Int64] = []
    private var lastView: SimTime = .min
    /// The simulation day the anchor and profile were learned for.
    private var learnedDay: Int64 = -1
    private(set) var anchor: Int64 = 0
    /// Views by hour from the anchor's hour on, over two turns of the circle, summed:
    /// `cumulative[h]` is the count of hours [0, h) of that doubled day.
    private var cumulative: [Int] = Array(repeating: 0, count: 49)
    private var total = 0
    /// `integral(anchor)`, fixed while the anchor is.
    private var atAnchor = 0.0
    private var offsets: [Int64] = []
    private var byHour: [Int] = Array(repeating: 0, count: 24)
    /// The current budget day: its number and start.
    private(set) var day: Int64 = -1
    private(set) var dayStart: SimTime = 0

    mutating func reset() {
        hourly.resetFlat(count: Self.slots * 24, to: 0)
        slotDay.resetFlat(count: Self.slots, to: -1)
        longestGap.resetFlat(count: Self.slots, to: -1)
        firstView.resetFlat(count: Self.slots, to: -1)
        lastView = .min
        learnedDay = -1
        anchor = 0
        total = 0
        atAnchor = 0
        day = -1
        dayStart = 0
        offsets.reserveCapacity(Self.history)
    }

    /// A view at `t` (several instances seen at one view count once).
    mutating func recordView(at t: SimTime) {
        guard t != lastView else { return }
        let d = t / Milliseconds.day
        let s = Int(d % Int64(Self.slots))
        if slotDay[s] != d {
            slotDay[s] = d
            for h in 0 ..< 24 { hourly[s * 24 + h] = 0 }
            longestGap[s] = -1
            firstView[s] = -1
        }
        let timeOfDay = t - d * Milliseconds.day
        hourly[s * 24 + Int(timeOfDay / Milliseconds.hour)] += 1
        // The first view of a run ends a gap from the run's start.
        let gap = lastView == .min ? t : t - lastView
        if gap > longestGap[s] {
            longestGap[s] = gap
            firstView[s] = timeOfDay
        }
        lastView = t
    }

    /// Learns the anchor and profile from the days before `d`.
    private mutating func learn(before d: Int64) {
        learnedDay = d
        offsets.removeAll(keepingCapacity: true)
        for h in 0 ..< 24 { byHour[h] = 0 }
        total = 0
        for back in stride(from: 1, through: min(Int64(Self.history), d), by: 1) {
            let s = Int((d - back) % Int64(Self.slots))
            guard slotDay[s] == d - back, firstView[s] >= 0 else { continue }
            offsets.append(firstView[s])
            for h in 0 ..< 24 {
                byHour[h] += hourly[s * 24 + h]
                total += hourly[s * 24 + h]
            }
        }
        offsets.sort()
        anchor = offsets.isEmpty ? 0 : offsets[(offsets.count - 1) / 2]
        for h in 0 ..< 48 { cumulative[h + 1] = cumulative[h] + byHour[h % 24] }
        atAnchor = integral(anchor)
    }

    /// Expected views from the start of the doubled day to `x` (0 ≤ x ≤ 48 h).
    private func integral(_ x: Int64) -> Double {
        let h = Int(x / Milliseconds.hour)
        guard h < 48 else { return Double(cumulative[48]) }
        let within = Double(x - Int64(h) * Milliseconds.hour) / Double(Milliseconds.hour)
        return Double(cumulative[h]) + within * Double(cumulative[h + 1] - cumulative[h])
    }

    /// The share of the day's views expected in the `tau` after the anchor.
    func share(after tau: Int64) -> Double {
        if tau >= Milliseconds.day { return 1 }
        let tau = max(0, tau)
        guard total > 0 else { return Double(tau) / Double(Milliseconds.day) }
        return min(1, (integral(anchor + tau) - atAnchor) / Double(total))
    }

    /// Moves to the budget day of `now`; true when a new one begins.
    mutating func advance(to now: SimTime) -> Bool {
        let d = now / Milliseconds.day
        if d != learnedDay { learn(before: d) }
        let k = Self.floorDiv(now - anchor, Milliseconds.day)
        guard k > day else { return false }
        day = k
        dayStart = max(0, k * Milliseconds.day + anchor)
        return true
    }

    /// Of `budget`, what is released at `now` (after `advance(to: now)`).
    func released(_ budget: Int, at now: SimTime) -> Int {
        min(budget, Int((Double(budget) * share(after: now - dayStart)).rounded(.down)) + 1)
    }

    /// The first time after `now` at which more than `spent` of `budget` is released
    /// (after `advance(to: now)`; `spent` < `budget`): the least τ with
    /// B · F(τ) ≥ `spent`, F inverted hour by hour, then checked against `released`
    /// (a few milliseconds on where rounding left it short). At most the day's end,
    /// where the next day begins.
    func nextRelease(of budget: Int, spent: Int, after now: SimTime) -> SimTime {
        let end = dayStart + Milliseconds.day
        guard spent < budget else { return end }
        let goal = Double(spent) / Double(budget)
        var tau: Int64
        if total == 0 {
            tau = Int64((goal * Double(Milliseconds.day)).rounded(.up))
        } else {
            // Views from the anchor to τ reach goal · total in the hour where the
            // cumulative count passes it.
            let need = goal * Double(total) + atAnchor
            let first = Int(anchor / Milliseconds.hour)
            tau = Milliseconds.day
            for h in first ..< first + 24 {
                let hourEnd = Int64(h + 1) * Milliseconds.hour
                guard Double(cumulative[h + 1]) >= need else { continue }
                let from = max(anchor, Int64(h) * Milliseconds.hour)
                let inHour = Double(cumulative[h + 1] - cumulative[h])
                let x = inHour > 0 ? Double(Int64(h) * Milliseconds.hour)
                    + (need - Double(cumulative[h])) / inHour * Double(Milliseconds.hour) : Double(from)
                tau = min(hourEnd, max(from, Int64(x.rounded(.up)))) - anchor
                break
            }
        }
        var t = max(now + 1, dayStart + tau)
        for _ in 0 ..< 8 where t < end && released(budget, at: t) <= spent { t += 1 }
        return min(t, end)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
