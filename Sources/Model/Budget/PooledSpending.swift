import Foundation
import WidgetSimKernel

/// `predictive`'s pooled spending (`spending: pooled`, MODEL §4): one budget for the
/// person's instances together, no larger than what `ios_like` would have charged, spent
/// on the requests whose reload is expected to keep a member fresh for the most stack
/// views.
///
/// Rule:
/// - **The pool.** Beside its own grants it keeps `ios_like`'s account as a shadow: each
///   instance's daily budget B (`PredictiveBudget`'s, `ios_like`'s rule), set at each
///   budget day's start, and the requests `ios_like` would have granted from it: the
///   instance's timeline request an interval I after each of its free reloads and each
///   shadow grant (I learned as the time from a reload to the instance's first request
///   after it, the latest such), retried 15 minutes after the budget's start once B is
///   spent, and each background request (and an instance's first request, when no reload
///   came before it). The shadow's grants so far are the credit C; a request may be
///   granted only while spent < `share` · C.
/// - **What a reload keeps fresh.** From every rendered reload (`didRender`) it learns each
///   instance's rate of content change by hour of the day, λ(h): an interval from one
///   reload to the next that showed no change adds its length as exposure; one that
///   showed a change adds one change and the exposure before it, shared among the hours
///   it spans as expected for its first change τ given that τ came in the interval,
///   under the day's λ by hour: each hour's piece gets P(τ in the piece) changes and the
///   expected time of the piece before τ (so a change seen at 9:10 after a quiet night
///   goes mostly to 9:00–9:10 once the night is known to be quiet). λ(h) = (changes +
///   `change_prior`) / (exposure hours + `change_prior` / λ̄), λ̄ the instance's changes
///   per exposure hour over all hours (one a day before any): the mean rate weighs as
///   `change_prior` changes seen at it, so an instance that changes often learns its quiet
///   hours within days and one that changes seldom keeps its hours near its mean. Free reloads by hour, μ(h), are counted per day, the person's
///   stack views by hour (several instances at one view count once), ν(h), and the
///   instance's own views by hour, ν_i(h).
/// - A reload of instance i at t alone is worth G = P(stale) · W(t): with Λ = ∫ λ from its
///   last reload to t, P(stale) = 1 − (1 − 1/k)^p e^{−Λ} after p background requests
///   (pushes) since that reload, a deferred one's retry not counted again, k being the
///   instances seen asking at the instant of one of i's pushes (a push asks every instance
///   of its kind and says one of them changed; 1 for a kind of one), else 1 − e^{−Λ} (1
///   before any reload); W(t) = ∫ (ν(s) +
///   `own_weight` · ν_i(s)) · exp(−∫_t^s (λ + μ)) ds over the next 24 h: the stack views
///   expected before its next change or free reload, every one of which counts the
///   member (MODEL §6), and its own views, which the stale-view share counts, weighted.
/// - **The plan.** G says nothing of when: a reload at 2:00 and one at 7:00 keep the same
///   morning views fresh when nothing can change in between. Each day, with θ as the
///   price of a reload, the pool solves per instance the rates bound's shortest path
///   (MODEL §4, "What a phone can reach") on what it learned: over the doubled day from
///   midnight in stretches of 15 minutes, V(k) is the least, over the reloads after one
///   at stretch k's start, of the expected stale views to the horizon plus θ per reload,
///   a stretch's views (ν + `own_weight` · ν_i) stale with the chance of a change since
///   the last reload at its middle, and not counted after a free reload. A request at t,
///   in stretch c, is worth granting when θ + V(c) is less than waiting for any later
///   first reload: the stale views until stretch j, from P(stale) now, plus θ + V(j), or
///   no reload to the horizon (a tie waits). In the next `nearStretches` the instance's
///   own views are weighed by who is on top now (`onTopFactor`: how often an instance
///   shown, or not shown, at one of the person's views was shown at the next within
///   `OnTopOdds.nearGap`), in V(c) and in the wait alike.
/// - A charged request is granted when the pool allows it and it is worth granting, or on
///   the person's first day, before any day to learn from, whenever the pool allows it for
///   a push, an instance's first request or within an hour of a stack view (not at night,
///   before anyone has looked) an hour or more after the instance's last reload (the first
///   day's shadow budgets are `initial_per_day`, several days' credit: what it does not
///   spend is left for days with rates). Otherwise it is deferred `poll`
///   (`below_threshold`: waiting is better at price θ; `not_yet_released`: the pool is
///   spent). θ starts at `threshold` and is set at each budget day's start: × 1.3 when a
///   request worth granting was refused for want of pool the day before, × 0.75 when that
///   day's grants left more than `unspent` of its credit (credit saved on earlier
///   days stays a reserve for evenings and pushes), within [0.01, 1,000].
///
/// Source: ours.
struct PooledSpending {
    var share = 0.98
    var changePrior = 0.1
    var pollMs: Int64 = 10 * Milliseconds.minute
    var ownWeight = 40.0
    var unspent = 0.2
    /// The gain a request must reach (views kept fresh), learned day by day.
    private(set) var theta = 10.0
    private var initialTheta = 10.0

    private var instances = 0
    // The shadow `ios_like`.
    private var shadowBalance: [Int] = []
    private var shadowNext: [SimTime] = []
    private var shadowBlocked: [Bool] = []
    private var interval: [Int64] = []
    private var firstCounted: [Bool] = []
    private(set) var credit = 0
    private(set) var spent = 0
    private var creditAtDayStart = 0
    private var spentAtDayStart = 0
    private var blocked = false
    // What the policy has seen of each instance.
    private var lastReload: [SimTime] = []
    private var lastRender: [SimTime] = []
    private var awaitingRequest: [Bool] = []
    /// Background requests (pushes) since the last reload, a deferred one's retry not
    /// counted again; the instance's kin, the instances seen asking at the instant of one
    /// of its pushes (a push asks every instance of its kind), itself included; the instant
    /// of its last push; whether its last refused request was a push (so the next is its retry).
    private var pushes: [Int] = []
    private var kin: [Int] = []
    private var lastPush: [SimTime] = []
    private var retrying: [Bool] = []
    /// Who is on top, learned from the person's views.
    private var onTop = OnTopOdds()
    private var changes: [Double] = []
    private var exposure: [Double] = []
    private var freeReloads: [Double] = []
    private var personViews: [Double] = Array(repeating: 0, count: 24)
    private var ownViews: [Double] = []
    private var ownRate: [Double] = []
    private var lastView: SimTime = .min
    private var viewDays: [Int64] = []
    private var daysSeen = 0
    // Today's tables: hazards by hour, and over a doubled day the cumulative change
    // hazard (`i * 49 + k`) and the views kept fresh by a reload at each hour's start.
    private var hazard: [Double] = []
    private var exitHazard: [Double] = []
    private var cumulative: [Double] = []
    private var kept: [Double] = []
    private var viewRate: [Double] = Array(repeating: 0, count: 24)
    // The plan over the doubled day in stretches (`i * stretches + k`): views kept, the
    // per-stretch factors of the change and free-reload hazards, and V(k), the least
    // expected stale views plus θ per later reload after a reload at stretch k's start
    // (`i * (stretches + 1) + k`), for each instance at the price `planTheta[i]` (−1:
    // not yet planned today) from stretch `plannedFrom[i]` on.
    private var stretchViews: [Double] = []
    private var stretchOwnViews: [Double] = []
    private var changeFactor: [Double] = []
    private var freeFactor: [Double] = []
    private var value: [Double] = []
    private var planTheta: [Double] = []
    private var plannedFrom: [Int] = []
    /// V(now) of the instance's last request since its plan (on the views weighed by who
    /// is on top): its stretch (−1: none), the factor's excess over 1 and the value. A poll
    /// in the same stretch with the same factor reads the same tables.
    private var nowStretch: [Int] = []
    private var nowExtra: [Double] = []
    private var nowValue: [Double] = []
    /// Whether the plan and the request take their exact shortcuts: the loops cut short
    /// where no later stretch can change the outcome, and V(now) read from the plan or
    /// from the last request where its views are the same. Off, every value is worked
    /// out in full (the shortcuts' tests compare the two).
    var shortcuts = true

    /// Stretches of a day in the plan, and of the doubled day it looks over.
    static let stretchesPerDay = 96
    static let stretches = 2 * stretchesPerDay
    /// Who is on top now weighs the instance's own views in this many stretches from now
    /// (half an hour), learned from the person's views (`OnTopOdds`).
    static let nearStretches = 2

    init() {}

    init(share: Double, threshold: Double, changePrior: Double, pollMs: Int64, ownWeight: Double, unspent: Double = 0.2) {
        self.share = share
        self.unspent = unspent
        self.ownWeight = ownWeight
        self.initialTheta = threshold
        self.theta = threshold
        self.changePrior = changePrior
        self.pollMs = pollMs
    }

    mutating func reset(instances n: Int) {
        instances = n
        shadowBalance.resetFlat(count: n, to: 0)
        shadowNext.resetFlat(count: n, to: .max)
        shadowBlocked.resetFlat(count: n, to: false)
        interval.resetFlat(count: n, to: 0)
        firstCounted.resetFlat(count: n, to: false)
        credit = 0
        spent = 0
        creditAtDayStart = 0
        spentAtDayStart = 0
        blocked = false
        theta = initialTheta
        lastReload.resetFlat(count: n, to: .min)
        lastRender.resetFlat(count: n, to: .min)
        awaitingRequest.resetFlat(count: n, to: false)
        pushes.resetFlat(count: n, to: 0)
        onTop.reset(instances: n)
        kin.resetFlat(count: n, to: 1)
        lastPush.resetFlat(count: n, to: .min)
        retrying.resetFlat(count: n, to: false)
        changes.resetFlat(count: n * 24, to: 0)
        exposure.resetFlat(count: n * 24, to: 0)
        freeReloads.resetFlat(count: n * 24, to: 0)
        personViews.resetFlat(count: 24, to: 0)
        ownViews.resetFlat(count: n * 24, to: 0)
        ownRate.resetFlat(count: n * 24, to: 0)
        lastView = .min
        viewDays.removeAll(keepingCapacity: true)
        daysSeen = 0
        hazard.resetFlat(count: n * 24, to: 1.0 / 24)
        exitHazard.resetFlat(count: n * 24, to: 1.0 / 24)
        cumulative.resetFlat(count: n * 49, to: 0)
        kept.resetFlat(count: n * 49, to: 0)
        viewRate.resetFlat(count: 24, to: 0)
        stretchViews.resetFlat(count: n * Self.stretches, to: 0)
        stretchOwnViews.resetFlat(count: n * Self.stretches, to: 0)
        changeFactor.resetFlat(count: n * Self.stretches, to: 1)
        freeFactor.resetFlat(count: n * Self.stretches, to: 1)
        value.resetFlat(count: n * (Self.stretches + 1), to: 0)
        planTheta.resetFlat(count: n, to: -1)
        plannedFrom.resetFlat(count: n, to: 0)
        nowStretch.resetFlat(count: n, to: -1)
        nowExtra.resetFlat(count: n, to: 0)
        nowValue.resetFlat(count: n, to: 0)
    }

    // MARK: - The shadow ios_like

    /// Plays `instance`'s shadow requests up to `now` (those at `now` too when `inclusive`).
    private mutating func advanceShadow(_ i: Int, to now: SimTime, inclusive: Bool) {
        guard interval[i] > 0 else { return }
        while shadowNext[i] < now || (inclusive && shadowNext[i] == now) {
            if shadowGrant(i) {
                shadowNext[i] += interval[i]
            } else {
                shadowBlocked[i] = true
                shadowNext[i] = .max
            }
        }
    }

    /// One request `ios_like` would have granted from `i`'s balance, if any is left.
    private mutating func shadowGrant(_ i: Int) -> Bool {
        guard shadowBalance[i] >= 1 else { return false }
        shadowBalance[i] -= 1
        credit += 1
        return true
    }

    /// A new budget day starting at `start`, with these budgets: plays every shadow request
    /// before it on the old balances, sets the new ones, and sets θ from the day before.
    mutating func newBudgetDay(start: SimTime, budgets: [Int], first: Bool) {
        for i in 0 ..< instances {
            advanceShadow(i, to: start, inclusive: false)
            shadowBalance[i] = budgets[i]
            if shadowBlocked[i] {
                shadowBlocked[i] = false
                shadowNext[i] = start + 15 * Milliseconds.minute / 2
            }
        }
        if !first {
            let dayCredit = credit - creditAtDayStart
            let left = share * Double(dayCredit) - Double(spent - spentAtDayStart)
            if blocked {
                theta *= 1.3
            } else if left > unspent * share * Double(dayCredit) {
                theta *= 0.75
            }
            theta = min(1_000, max(0.01, theta))
        }
        creditAtDayStart = credit
        spentAtDayStart = spent
        blocked = false
    }

    /// An instance added at `now`: its shadow starts empty of history.
    mutating func added(_ i: Int, budget: Int) {
        shadowBalance[i] = budget
        shadowNext[i] = .max
        shadowBlocked[i] = false
    }

    // MARK: - Observations

    mutating func viewed(_ i: Int, at now: SimTime) {
        ownViews[i * 24 + Self.hour(of: now)] += 1
        onTop.viewed(i, at: now)
        guard now != lastView else { return }
        lastView = now
        let day = DailyViewCounts.day(of: now)
        if viewDays.last != day { viewDays.append(day) }
        personViews[Int((now - day * Milliseconds.day) / Milliseconds.hour)] += 1
    }

    mutating func reloaded(_ i: Int, charged: Bool, at now: SimTime) {
        advanceShadow(i, to: now, inclusive: false)
        if !charged {
            let day = DailyViewCounts.day(of: now)
            freeReloads[i * 24 + Int((now - day * Milliseconds.day) / Milliseconds.hour)] += 1
            shadowNext[i] = interval[i] > 0 && !shadowBlocked[i] ? now + interval[i] : shadowNext[i]
        }
        lastReload[i] = now
        awaitingRequest[i] = true
        pushes[i] = 0
        retrying[i] = false
    }

    mutating func rendered(_ i: Int, changed: Bool, at now: SimTime) {
        let from = lastRender[i]
        lastRender[i] = now
        guard from != .min, now > from, now - from <= Milliseconds.day else { return }
        if changed {
            attributeChange(i, from: from, to: now)
        } else {
            Self.forEachHour(from: from, to: now) { h, hours in exposure[i * 24 + h] += hours }
        }
    }

    /// A change seen at `b` after a render at `a`: the expected share of the first change
    /// τ in each hour piece of (a, b], and of the time before τ, under today's λ by hour,
    /// given that τ ≤ b. With Λ(t) the hazard from a to t and S = e^{−Λ}, a piece starting
    /// at s gets P(s < τ ≤ s + l) / P(τ ≤ b) changes and ∫_s^{s+l} (S(t) − S(b)) dt /
    /// P(τ ≤ b) exposure hours; over a small Λ(b), to first order in Λ, (λ l) / Λ(b) and
    /// ∫ (Λ(b) − Λ(t)) dt / Λ(b) (with equal λ when every λ is 0).
    private mutating func attributeChange(_ i: Int, from a: SimTime, to b: SimTime) {
        var total = 0.0
        Self.forEachHour(from: a, to: b) { h, hours in total += hazard[i * 24 + h] * hours }
        let flat = total <= 1e-12
        if flat { total = Double(b - a) / Double(Milliseconds.hour) }
        let seen = -expm1(-total)
        let linear = total < 1e-4
        let survivesAll = exp(-total)
        var before = 0.0
        Self.forEachHour(from: a, to: b) { h, l in
            let lambda = flat ? 1 : hazard[i * 24 + h]
            let x = lambda * l
            let share: Double, time: Double
            if linear {
                share = x / total
                time = (l * (total - before) - lambda * l * l / 2) / total
            } else {
                let survives = exp(-before)
                share = survives * -expm1(-x) / seen
                let alive = x > 1e-9 ? survives * -expm1(-x) / lambda : survives * l
                time = (alive - survivesAll * l) / seen
            }
            changes[i * 24 + h] += share
            exposure[i * 24 + h] += max(0, time)
            before += x
        }
    }

    private static func hour(of t: SimTime) -> Int { Int((t - DailyViewCounts.day(of: t) * Milliseconds.day) / Milliseconds.hour) }

    /// Calls `body` with the hour of the day and the length in hours of each piece of
    /// [a, b) that lies within one hour.
    private static func forEachHour(from a: SimTime, to b: SimTime, _ body: (Int, Double) -> Void) {
        var t = a
        while t < b {
            let h = hour(of: t)
            let hourEnd = DailyViewCounts.day(of: t) * Milliseconds.day + Int64(h + 1) * Milliseconds.hour
            let step = min(b, hourEnd) - t
            body(h, Double(step) / Double(Milliseconds.hour))
            t += step
        }
    }

    // MARK: - Today's tables

    /// Sets the tables for simulation day `day` from what was seen before it.
    mutating func forecast(day: Int64) {
        daysSeen = 0
        for d in viewDays where d < day { daysSeen += 1 }
        let days = Double(max(1, daysSeen))
        for h in 0 ..< 24 { viewRate[h] = personViews[h] / days }
        for i in 0 ..< instances {
            for h in 0 ..< 24 { ownRate[i * 24 + h] = viewRate[h] + ownWeight * ownViews[i * 24 + h] / days }
            var n = 0.0, e = 0.0
            for h in 0 ..< 24 {
                n += changes[i * 24 + h]
                e += exposure[i * 24 + h]
            }
            let mean = (n + 1) / (e + 24)
            for h in 0 ..< 24 {
                let lambda = (changes[i * 24 + h] + changePrior) / (exposure[i * 24 + h] + changePrior / mean)
                hazard[i * 24 + h] = lambda
                exitHazard[i * 24 + h] = lambda + freeReloads[i * 24 + h] / days
            }
            let c = i * 49
            cumulative[c] = 0
            for k in 0 ..< 48 { cumulative[c + k + 1] = cumulative[c + k] + hazard[i * 24 + k % 24] }
            kept[c + 48] = 0
            for k in stride(from: 47, through: 0, by: -1) {
                kept[c + k] = keptWithin(i, hour: k % 24, hours: 1) + exp(-exitHazard[i * 24 + k % 24]) * kept[c + k + 1]
            }
            let hours = 24.0 / Double(Self.stretchesPerDay)
            for k in 0 ..< Self.stretches {
                let h = (k * 24 / Self.stretchesPerDay) % 24
                stretchViews[i * Self.stretches + k] = ownRate[i * 24 + h] * hours
                stretchOwnViews[i * Self.stretches + k] = (ownRate[i * 24 + h] - viewRate[h]) * hours
                changeFactor[i * Self.stretches + k] = exp(-hazard[i * 24 + h] * hours / 2)
                freeFactor[i * Self.stretches + k] = exp(-(exitHazard[i * 24 + h] - hazard[i * 24 + h]) * hours / 2)
            }
        }
        for i in 0 ..< instances { planTheta[i] = -1 }
    }

    /// V(k) for every stretch of instance `i` at today's θ: after a reload at stretch k's
    /// start, the least over the later reloads of the expected stale views to the end of
    /// the doubled day plus θ per reload. A stretch's views count stale with the chance
    /// of a change since the last reload at its middle, and not at all after a free
    /// reload (the member then starts afresh whatever was planned). Planned when a
    /// request of `i` first asks at today's θ, from its stretch `from` on: V(k) reads only
    /// later stretches, and the day's later requests only later ones (an instance that
    /// does not ask is not planned).
    private mutating func plan(_ i: Int, from first: Int) {
        let n = Self.stretches, theta = theta, cutoff = shortcuts
        let s = i * n, v = i * (n + 1)
        stretchViews.withUnsafeBufferPointer { views in
            stretchOwnViews.withUnsafeBufferPointer { own in
                changeFactor.withUnsafeBufferPointer { change in
                    freeFactor.withUnsafeBufferPointer { free in
                        value.withUnsafeMutableBufferPointer { value in
                            let table = Self.Stretches(
                                views: views.baseAddress! + s, own: own.baseAddress! + s, change: change.baseAddress! + s,
                                free: free.baseAddress! + s, value: UnsafePointer(value.baseAddress! + v), theta: theta)
                            value[v + n] = 0
                            // `cutoff` a constant in each loop.
                            @inline(__always) func fill(cutoff: Bool) {
                                for k in stride(from: n - 1, through: first, by: -1) {
                                    value[v + k] = table.leastAfterReload(at: k, extra: 0, near: k, cutoff: cutoff)
                                }
                            }
                            if cutoff { fill(cutoff: true) } else { fill(cutoff: false) }
                        }
                    }
                }
            }
        }
        planTheta[i] = theta
        plannedFrom[i] = first
        nowStretch[i] = -1
    }

    /// One instance's plan tables over the doubled day, from its first stretch: the views
    /// (ν + `own_weight` · ν_i per stretch), its own weighted views, the factors of the
    /// change and free-reload hazards, V (`stretches` + 1 values, V at the horizon 0) and θ.
    struct Stretches {
        let views: UnsafePointer<Double>
        let own: UnsafePointer<Double>
        let change: UnsafePointer<Double>
        let free: UnsafePointer<Double>
        let value: UnsafePointer<Double>
        let theta: Double

        /// The views of stretch `l` with the instance's own weighed by 1 + `extra`.
        @inline(__always) func weighted(_ l: Int, extra: Double) -> Double { max(0, views[l] + extra * own[l]) }

        /// The stale views of stretch `l` (`staleViews`), on `views`.
        @inline(__always) func stale(_ l: Int, _ views: Double, fresh: inout Double, kept: inout Double) -> Double {
            PooledSpending.staleViews(views, change[l], free[l], fresh: &fresh, kept: &kept)
        }

        /// After a reload at stretch k's start, the least over the later reloads of the
        /// expected stale views to the horizon plus θ per reload: V(k), on the own views
        /// weighed by 1 + `extra` before stretch `near` (k ≤ near < `stretches` − 1).
        ///
        /// The least of the candidates, reloading next after stretch l ((cost to l + θ) + V(l + 1))
        /// or never (the cost to the horizon). Every stretch's stale views are ≥ 0 and V ≥ 0,
        /// so the cost never falls, and rounding keeps the order of sums: once the cost
        /// reaches the best so far, no later candidate is less; with `cutoff`, once cost + θ
        /// reaches it, no later reload is, and only the cost to the horizon is left to read.
        /// Either way the result is the least of every candidate, as the full loop finds it.
        @inline(__always) func leastAfterReload(at k: Int, extra: Double, near: Int, cutoff: Bool) -> Double {
            let n = PooledSpending.stretches
            var fresh = 1.0, kept = 1.0, cost = 0.0, best = Double.infinity
            var l = k
            while l < near {
                cost += stale(l, weighted(l, extra: extra), fresh: &fresh, kept: &kept)
                best = min(best, cost + theta + value[l + 1])
                if cost >= best { return best }
                l += 1
            }
            while l < n - 1 {
                cost += stale(l, views[l], fresh: &fresh, kept: &kept)
                let reload = cost + theta
                if cutoff && reload >= best {
                    while cost < best && l < n - 2 {
                        l += 1
                        cost += stale(l, views[l], fresh: &fresh, kept: &kept)
                    }
                    if cost >= best { return best }
                    return min(best, cost + stale(n - 1, views[n - 1], fresh: &fresh, kept: &kept))
                }
                best = min(best, reload + value[l + 1])
                if cost >= best { return best }
                l += 1
            }
            cost += stale(n - 1, views[n - 1], fresh: &fresh, kept: &kept)
            return min(best, cost)
        }

        /// Whether a later first reload, or none, leaves no more expected stale views plus θ
        /// per reload than `reloadNow`, waiting from stretch `c` with `fresh0` the chance
        /// that nothing changed since the last reload, on the own views weighed by
        /// 1 + `extra` before stretch `near` (c ≤ near < `stretches` − 1). As in
        /// `leastAfterReload`, with `cutoff` a cost + θ above `reloadNow` leaves only the
        /// cost to the horizon to read.
        @inline(__always) func waitingIsNoWorse(
            from c: Int, extra: Double, near: Int, fresh0: Double, reloadNow: Double, cutoff: Bool
        ) -> Bool {
            let n = PooledSpending.stretches
            var fresh = fresh0, kept = 1.0, cost = 0.0
            var l = c
            while l < near {
                cost += stale(l, weighted(l, extra: extra), fresh: &fresh, kept: &kept)
                if cost + theta + value[l + 1] <= reloadNow { return true }
                if cost > reloadNow { return false }
                l += 1
            }
            while l < n - 1 {
                cost += stale(l, views[l], fresh: &fresh, kept: &kept)
                let reload = cost + theta
                if cutoff && reload > reloadNow {
                    while cost <= reloadNow && l < n - 2 {
                        l += 1
                        cost += stale(l, views[l], fresh: &fresh, kept: &kept)
                    }
                    if cost > reloadNow { return false }
                    return cost + stale(n - 1, views[n - 1], fresh: &fresh, kept: &kept) <= reloadNow
                }
                if reload + value[l + 1] <= reloadNow { return true }
                if cost > reloadNow { return false }
                l += 1
            }
            cost += stale(n - 1, views[n - 1], fresh: &fresh, kept: &kept)
            return cost <= reloadNow
        }
    }

    /// The expected stale views of a stretch with these views and factors of the change
    /// and free-reload hazards, with `fresh` the chance that no change came since the last
    /// reload and `kept` the chance that no free reload came, both at the stretch's start;
    /// moves both to its end.
    @inline(__always) private static func staleViews(
        _ views: Double, _ c: Double, _ f: Double, fresh: inout Double, kept: inout Double
    ) -> Double {
        let stale = views * kept * f * (1 - fresh * c)
        fresh *= c * c
        kept *= f * f
        return stale
    }

    /// Whether a reload of `i` now leaves fewer expected stale views plus θ per reload than
    /// any later first reload (or none), by the plan: reloading now costs θ + V(now);
    /// waiting to stretch j costs the stale views until then, from the chance it is stale
    /// now, plus θ + V(j). A tie waits. In the next `nearStretches` the instance's own views
    /// are weighed by who is on top now (`onTopFactor`), in V(now) and in the wait alike:
    /// V(now) is the plan's V(c) when that leaves every view of those stretches as it was,
    /// and the last request's when it was in the same stretch with the same factor.
    mutating func reloadNowIsBest(_ i: Int, at now: SimTime) -> Bool {
        let n = Self.stretches, s = i * n, v = i * (n + 1)
        let into = now - DailyViewCounts.day(of: now) * Milliseconds.day
        let c = min(Self.stretchesPerDay - 1, Int(into * Int64(Self.stretchesPerDay) / Milliseconds.day))
        if planTheta[i] != theta || c < plannedFrom[i] { plan(i, from: c) }
        let fresh0 = 1 - staleChance(i, at: now)
        let extra = onTopFactor(i, at: now) - 1, near = c + Self.nearStretches
        let theta = theta, cutoff = shortcuts
        let cached = cutoff && nowStretch[i] == c && nowExtra[i] == extra
        var valueNow = cached ? nowValue[i] : 0
        let waiting = stretchViews.withUnsafeBufferPointer { views in
            stretchOwnViews.withUnsafeBufferPointer { own in
                changeFactor.withUnsafeBufferPointer { change in
                    freeFactor.withUnsafeBufferPointer { free in
                        value.withUnsafeBufferPointer { value in
                            let table = Self.Stretches(
                                views: views.baseAddress! + s, own: own.baseAddress! + s, change: change.baseAddress! + s,
                                free: free.baseAddress! + s, value: value.baseAddress! + v, theta: theta)
                            if !cached {
                                valueNow = value[v + c]
                                if extra != 0 && !(cutoff && (c ..< near).allSatisfy { table.weighted($0, extra: extra) == views[s + $0] }) {
                                    // V(now) on the views weighed by who is on top.
                                    valueNow = table.leastAfterReload(at: c, extra: extra, near: near, cutoff: cutoff)
                                }
                            }
                            let reloadNow = theta + valueNow
                            return cutoff
                                ? table.waitingIsNoWorse(from: c, extra: extra, near: near, fresh0: fresh0, reloadNow: reloadNow, cutoff: true)
                                : table.waitingIsNoWorse(from: c, extra: extra, near: near, fresh0: fresh0, reloadNow: reloadNow, cutoff: false)
                        }
                    }
                }
            }
        }
        if !cached {
            nowStretch[i] = c
            nowExtra[i] = extra
            nowValue[i] = valueNow
        }
        return !waiting
    }

    /// How many times its mean share of the person's views `i` is expected to get at the
    /// next ones, by who is on top now (`OnTopOdds.factor`).
    func onTopFactor(_ i: Int, at now: SimTime) -> Double { onTop.factor(i, at: now) }

    /// Views in `hours` (≤ 1) of hour `h` before the instance's next change or free reload.
    private func keptWithin(_ i: Int, hour h: Int, hours: Double) -> Double {
        let k = exitHazard[i * 24 + h]
        let v = ownRate[i * 24 + h]
        return k > 1e-9 ? v * (1 - exp(-k * hours)) / k : v * hours
    }

    /// The stack views a reload of `i` at `now` is expected to keep fresh: W(now).
    func keptFresh(_ i: Int, at now: SimTime) -> Double {
        let x = Double(now - DailyViewCounts.day(of: now) * Milliseconds.day) / Double(Milliseconds.hour)
        let h = min(23, Int(x))
        let rest = Double(h + 1) - x
        return keptWithin(i, hour: h, hours: rest) + exp(-exitHazard[i * 24 + h] * rest) * kept[i * 49 + h + 1]
    }

    /// The chance that `i` shows stale content at `now`: 1 − e^{−Λ} on its learned rates,
    /// and after p pushes to a kind of k instances since its last reload, each of which
    /// announced a change of one of them, 1 − (1 − 1/k)^p e^{−Λ} (1 for a kind of one).
    func staleChance(_ i: Int, at now: SimTime) -> Double {
        if lastReload[i] == .min || (pushes[i] > 0 && kin[i] == 1) { return 1 }
        let span = now - lastReload[i]
        if span >= Milliseconds.day { return 1 }
        let start = lastReload[i]
        let x = Double(start - DailyViewCounts.day(of: start) * Milliseconds.day) / Double(Milliseconds.hour)
        let y = x + Double(span) / Double(Milliseconds.hour)
        let quiet = exp(-(cumulativeAt(i, y) - cumulativeAt(i, x)))
        guard pushes[i] > 0 else { return 1 - quiet }
        return 1 - quiet * pow(1 - 1 / Double(kin[i]), Double(pushes[i]))
    }

    /// A push to `i` at `now`, not the retry of one deferred: counted, and the instances
    /// asking at the same instant learned as its kin.
    private mutating func pushed(_ i: Int, at now: SimTime) {
        pushes[i] += 1
        var together = 1
        for j in 0 ..< instances where j != i && lastPush[j] == now { together += 1 }
        if together > 1 {
            for j in 0 ..< instances where j == i || lastPush[j] == now { kin[j] = max(kin[j], together) }
        }
        lastPush[i] = now
    }

    private func cumulativeAt(_ i: Int, _ x: Double) -> Double {
        let k = min(47, Int(x))
        return cumulative[i * 49 + k] + (x - Double(k)) * hazard[i * 24 + k % 24]
    }

    /// Today's estimate of `i`'s content changes per hour in hour `h` of the day: λ(h).
    func changeRate(_ i: Int, hour h: Int) -> Double { hazard[i * 24 + h] }

    /// G: the stale stack views a reload of `i` at `now` is expected to save.
    func gain(_ i: Int, at now: SimTime) -> Double { staleChance(i, at: now) * keptFresh(i, at: now) }

    // MARK: - Requests

    mutating func decide(_ i: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        advanceShadow(i, to: now, inclusive: true)
        if reason == .background {
            if !retrying[i] { pushed(i, at: now) }
            if shadowGrant(i) && interval[i] > 0 { shadowNext[i] = now + interval[i] }
        } else if interval[i] == 0 && !firstCounted[i] && lastReload[i] == .min {
            // A first request with no reload before it: the shadow's own first request.
            firstCounted[i] = true
            _ = shadowGrant(i)
        } else if awaitingRequest[i] {
            awaitingRequest[i] = false
            if lastReload[i] != .min && now > lastReload[i] {
                let known = interval[i] > 0
                interval[i] = now - lastReload[i]
                if !known && !shadowBlocked[i] { advanceShadowFirst(i, at: now) }
            }
        }
        // The first day, with nothing learned: a push, an instance's first request, or while
        // the person is looking, an hour or more after the instance's last reload.
        let first = lastReload[i] == .min
        let looking = lastView != .min && now - lastView <= Milliseconds.hour
            && (first || now - lastReload[i] >= Milliseconds.hour)
        let learning = daysSeen == 0 && (reason == .background || first || looking)
        let worth = learning || reloadNowIsBest(i, at: now)
        guard Double(spent) < share * Double(credit) else {
            if worth { blocked = true }
            retrying[i] = reason == .background
            return .deferUntil(now + pollMs, because: .notYetReleased)
        }
        guard worth else {
            retrying[i] = reason == .background
            return .deferUntil(now + pollMs, because: .belowThreshold)
        }
        spent += 1
        return .grant
    }

    /// The shadow's first request of `i`, once its interval is known: now, as the real one.
    private mutating func advanceShadowFirst(_ i: Int, at now: SimTime) {
        shadowNext[i] = now
        advanceShadow(i, to: now, inclusive: true)
    }
}
