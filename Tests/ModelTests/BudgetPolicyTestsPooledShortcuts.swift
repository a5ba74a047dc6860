import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel

// `predictive`'s plan takes exact shortcuts (`PooledSpending.shortcuts`): its loops stop
// where no later stretch can change the outcome, and V(now) is read from the plan or from
// the last request where its views are the same. Each is compared here with the full
// computation, bit for bit.

private extension BudgetSplitMix64 {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / 9_007_199_254_740_992 }
}

@Suite struct PooledShortcutTests {
    /// Random plan tables of one instance: views with runs of none (the nights), own
    /// views a share of them, hazard factors from quiet to several changes a stretch,
    /// and a price from 0.01 to 1,000.
    private struct Tables {
        var views: [Double], own: [Double], change: [Double], free: [Double]
        var theta: Double

        init(_ random: inout BudgetSplitMix64) {
            let n = PooledSpending.stretches
            views = []; own = []; change = []; free = []
            var quiet = random.unit() < 0.5
            for _ in 0 ..< n {
                if random.unit() < 0.05 { quiet.toggle() }
                let v = quiet ? 0 : random.unit() * 6 * random.unit()
                views.append(v)
                own.append(v * random.unit())
                change.append(exp(-pow(10, random.unit() * 4 - 3) / 8))
                free.append(random.unit() < 0.7 ? 1 : exp(-pow(10, random.unit() * 3 - 2) / 8))
            }
            theta = pow(10, random.unit() * 5 - 2)
        }

        /// V over the doubled day, by the plan's loop from stretch 0 (`cutoff` as given).
        func values(cutoff: Bool) -> [Double] {
            let n = PooledSpending.stretches
            var value = Array(repeating: 0.0, count: n + 1)
            views.withUnsafeBufferPointer { views in
                own.withUnsafeBufferPointer { own in
                    change.withUnsafeBufferPointer { change in
                        free.withUnsafeBufferPointer { free in
                            value.withUnsafeMutableBufferPointer { value in
                                let table = PooledSpending.Stretches(
                                    views: views.baseAddress!, own: own.baseAddress!, change: change.baseAddress!,
                                    free: free.baseAddress!, value: UnsafePointer(value.baseAddress!), theta: theta)
                                for k in stride(from: n - 1, through: 0, by: -1) {
                                    value[k] = table.leastAfterReload(at: k, extra: 0, near: k, cutoff: cutoff)
                                }
                            }
                        }
                    }
                }
            }
            return value
        }

        /// Calls `body` with these tables and the values `value`.
        func with<T>(_ value: [Double], _ body: (PooledSpending.Stretches) -> T) -> T {
            views.withUnsafeBufferPointer { views in
                own.withUnsafeBufferPointer { own in
                    change.withUnsafeBufferPointer { change in
                        free.withUnsafeBufferPointer { free in
                            value.withUnsafeBufferPointer { value in
                                body(PooledSpending.Stretches(
                                    views: views.baseAddress!, own: own.baseAddress!, change: change.baseAddress!,
                                    free: free.baseAddress!, value: value.baseAddress!, theta: theta))
                            }
                        }
                    }
                }
            }
        }
    }

    /// On 400 random tables, the plan's V with its loops cut short is the full loops' V,
    /// bit for bit at every stretch; so is V(now) on the views weighed by who is on top
    /// (factors from 0 to 4), and the wait's verdict against a reload at V(now) and at
    /// prices near the tie. The prices span both sides of V: in many tables some V is
    /// below θ, so a later reload's cost + θ soon passes the best and the cut-off is taken.
    @Test func theLoopsCutShortGiveTheFullLoopsValues() {
        var random = BudgetSplitMix64(seed: 20261128)
        var waits = 0, reloads = 0, farFromReload = 0
        for _ in 0 ..< 400 {
            let tables = Tables(&random)
            let full = tables.values(cutoff: false), cut = tables.values(cutoff: true)
            #expect(full.map(\.bitPattern) == cut.map(\.bitPattern))
            if full.contains(where: { $0 < tables.theta }) { farFromReload += 1 }
            for _ in 0 ..< 20 {
                let c = random.below(PooledSpending.stretchesPerDay)
                let extra = random.unit() < 0.2 ? 0 : random.unit() * 4 - 1
                let near = c + PooledSpending.nearStretches
                let (a, b) = tables.with(full) { table in
                    (table.leastAfterReload(at: c, extra: extra, near: near, cutoff: false),
                     table.leastAfterReload(at: c, extra: extra, near: near, cutoff: true))
                }
                #expect(a.bitPattern == b.bitPattern, "V(now) at stretch \(c), factor \(extra + 1): \(a) in full, \(b) cut short")
                let fresh0 = random.unit() < 0.3 ? 1 : random.unit()
                for reloadNow in [tables.theta + a, (tables.theta + a) * (0.5 + random.unit()), full[c] * random.unit()] {
                    let (x, y) = tables.with(full) { table in
                        (table.waitingIsNoWorse(from: c, extra: extra, near: near, fresh0: fresh0, reloadNow: reloadNow, cutoff: false),
                         table.waitingIsNoWorse(from: c, extra: extra, near: near, fresh0: fresh0, reloadNow: reloadNow, cutoff: true))
                    }
                    #expect(x == y, "waiting at stretch \(c) against \(reloadNow): \(x) in full, \(y) cut short")
                    if x { waits += 1 } else { reloads += 1 }
                }
            }
        }
        #expect(waits > 1_000 && reloads > 1_000, "waits \(waits), reloads \(reloads)")
        #expect(farFromReload > 100, "\(farFromReload) tables with a V below the price")
    }

    /// A person of four instances over eight days of random views (one on top at a time,
    /// which changes now and then), free and charged reloads, renders that show a change
    /// or not, pushes and timeline requests, the pool's requests taken with and without
    /// the shortcuts at five prices: the same decisions, and the same verdict of a second
    /// request in the same stretch (read from the last one's V(now)) at every request and
    /// of the requests on both sides of a new budget day's θ within one stretch.
    @Test func theRequestsDecideAsWithoutShortcuts() {
        for (run, threshold) in [0.05, 0.5, 3.0, 10.0, 80.0].enumerated() {
            let withShortcuts = drive(seed: 7 + UInt64(run), threshold: threshold, shortcuts: true)
            let inFull = drive(seed: 7 + UInt64(run), threshold: threshold, shortcuts: false)
            #expect(withShortcuts == inFull, "threshold \(threshold)")
            #expect(inFull.count > 1_500, "\(inFull.count) verdicts")
            #expect(inFull.contains("grant") && inFull.contains("wait") && inFull.contains("reload"),
                    "threshold \(threshold): \(Set(inFull))")
        }
    }

    private func drive(seed: UInt64, threshold: Double, shortcuts: Bool) -> [String] {
        var random = BudgetSplitMix64(seed: seed)
        var pool = PooledSpending(share: 1, threshold: threshold, changePrior: 0.1, pollMs: 10 * bpMinute, ownWeight: 40)
        pool.shortcuts = shortcuts
        let n = 4
        pool.reset(instances: n)
        for i in 0 ..< n { pool.added(i, budget: 300) }
        var verdicts: [String] = []
        var top = 0
        pool.newBudgetDay(start: 0, budgets: Array(repeating: 300, count: n), first: true)
        for day in Int64(0) ..< 8 {
            let midnight = day * bpDay
            pool.forecast(day: day)
            var t = midnight + random.upTo(20 * bpMinute)
            var newDay = day > 0
            while t < midnight + bpDay {
                // A budget day from 4:05, θ set anew within a stretch: each instance asks
                // in that stretch before it and after it.
                if newDay && t >= midnight + 4 * bpHour {
                    for i in 0 ..< n { verdicts.append(pool.reloadNowIsBest(i, at: midnight + 4 * bpHour + bpMinute) ? "reload" : "wait") }
                    pool.newBudgetDay(start: midnight + 4 * bpHour + 5 * bpMinute, budgets: Array(repeating: 300, count: n), first: false)
                    for i in 0 ..< n { verdicts.append(pool.reloadNowIsBest(i, at: midnight + 4 * bpHour + 9 * bpMinute) ? "reload" : "wait") }
                    t = max(t, midnight + 4 * bpHour + 10 * bpMinute)
                    newDay = false
                }
                let hour = (t - midnight) / bpHour
                let i = random.below(n)
                let r = random.unit()
                if hour >= 7 && hour < 23 && r < 0.35 {
                    if random.unit() < 0.25 { top = random.below(n) }
                    pool.viewed(top, at: t)
                    if random.unit() < 0.2 { pool.viewed((top + 1) % n, at: t) }
                } else if r < 0.5 {
                    pool.reloaded(i, charged: random.unit() < 0.5, at: t)
                    pool.rendered(i, changed: random.unit() < 0.15 * Double(i + 1), at: t)
                } else {
                    let reason: ReloadReason = random.unit() < 0.15 ? .background : .timeline
                    switch pool.decide(i, reason: reason, at: t) {
                    case .grant:
                        verdicts.append("grant")
                        pool.reloaded(i, charged: true, at: t)
                        pool.rendered(i, changed: random.unit() < 0.3, at: t)
                    case .deferUntil(let until, let why):
                        verdicts.append("defer \(until) \(why)")
                    case .deny(let why):
                        verdicts.append("deny \(why)")
                    }
                    if day > 0 {
                        let later = t + random.upTo(4 * bpMinute)
                        verdicts.append(pool.reloadNowIsBest(i, at: later) ? "reload" : "wait")
                    }
                }
                t += 1 + random.upTo(12 * bpMinute)
            }
        }
        return verdicts
    }
}
