import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel

// `predictive` with `spending: pooled`: one pool for the person, no larger than what
// `ios_like` would have charged, spent where a reload keeps a member fresh for the most
// stack views.

/// A person of two instances, each asking for a timeline reload an hour after its last
/// reload (as the engine does: after a grant, and after every free reload, at the start
/// and at each midnight), for `days` days; a stack view every 12 minutes from 7:00 to
/// 23:00 shows instance 0. Instance 0's content never changes; instance 1's changes at
/// every half hour past, so each of its reloads an hour or more after the last shows new
/// content. Returns each instance's grants per day; `deferrals` counts the reasons of the
/// requests it deferred, by instance.
private func driveTwo(_ policy: PredictiveBudget, days: Int64, deferrals: Deferrals? = nil) -> [[Int]] {
    policy.begin(instances: 2)
    var grants = Array(repeating: Array(repeating: 0, count: Int(days)), count: 2)
    var lastReload: [Int64] = [0, 0]
    var next: [Int64] = [bpHour, bpHour]
    var view: Int64 = 7 * bpHour
    var midnight: Int64 = 0
    func changed(_ i: Int, from a: Int64, to b: Int64) -> Bool {
        // A change at every (k + ½) hours of instance 1.
        i == 1 && (b + bpHour / 2) / bpHour > (a + bpHour / 2) / bpHour
    }
    func reload(_ i: Int, charged: Bool, at t: Int64) {
        policy.didReload(instance: i, charged: charged, at: t)
        policy.didRender(instance: i, changed: changed(i, from: lastReload[i], to: t), at: t)
        lastReload[i] = t
        next[i] = t + bpHour
    }
    for i in 0 ..< 2 { reload(i, charged: false, at: 0) }
    let end = days * bpDay
    while true {
        let request = min(next[0], next[1])
        let t = min(request, view, midnight + bpDay)
        guard t < end else { break }
        if t == midnight + bpDay {
            midnight = t
            for i in 0 ..< 2 { reload(i, charged: false, at: t) }
        } else if t == view {
            policy.didView(instance: 0, at: t)
            let day = t / bpDay, hour = (t - day * bpDay) / bpHour
            view = hour >= 23 || t + 12 * bpMinute >= day * bpDay + 23 * bpHour
                ? (day + 1) * bpDay + 7 * bpHour : t + 12 * bpMinute
        } else {
            let i = next[0] <= next[1] ? 0 : 1
            switch policy.decide(instance: i, reason: .timeline, at: t) {
            case .grant:
                grants[i][Int(t / bpDay)] += 1
                reload(i, charged: true, at: t)
            case .deferUntil(let until, let why):
                #expect(until > t)
                deferrals?.count[i][why, default: 0] += 1
                next[i] = until
            case .deny:
                Issue.record("predictive never drops")
                return grants
            }
        }
    }
    return grants
}

/// The reasons of deferred requests, counted by instance.
private final class Deferrals {
    var count: [[RefusalReason: Int]] = [[:], [:]]
}

@Suite struct PooledSpendingTests {
    /// The pool moves reloads from an instance whose reloads find nothing new (viewed at
    /// every view, so `ios_like`'s rule gives it the budget: 30 + 2 · √(80 − 30) = 44 a
    /// day, and it asks 24 times) to one whose content changes every hour and that nobody
    /// looks at (`ios_like`'s budget: 1 a day), whose reloads keep the stack's members
    /// fresh. Spending at the views (`spending: views`), each instance keeps its own
    /// budget: instance 0 gets most of its requests, and instance 1, never seen, none.
    @Test func poolMovesReloadsToContentThatChanges() throws {
        let pooled = driveTwo(try makePredictive([
            "spending": .text("pooled"), "own_weight": .number(0), "threshold": .number(3),
        ]), days: 8)
        let byViews = driveTwo(try makePredictive(), days: 8)
        for day in 3 ..< 8 {
            #expect(byViews[1][day] == 0, "day \(day): views")
            #expect(byViews[0][day] >= 10, "day \(day): views")
            #expect(pooled[1][day] >= 8, "day \(day): pooled, instance 1 got \(pooled[1][day])")
            #expect(pooled[0][day] < pooled[1][day], "day \(day): pooled, instance 0 got \(pooled[0][day])")
        }
    }

    /// The pool spends at most `share` of what `ios_like` would have charged: here, with
    /// every free reload at midnight and requests an hour after each reload, `ios_like`
    /// grants instance 0 all of its 24 requests a day (budget 44: the 23 after the
    /// midnight reload and the one at its hour) and instance 1 one (budget 1), so the
    /// pooled grants over the days after the first stay within `share` · 25 a day (plus
    /// the first day's 40 + 40 budget, from which at most 2 · 24 were asked). Once θ has
    /// walked down from its start (10 stale views, twice what a reload of instance 1 keeps
    /// fresh here: four days at × 0.75), the pool is spent, not hoarded.
    @Test(arguments: [0.5, 0.97])
    func poolNeverSpendsMoreThanItsShareOfIOSLike(share: Double) throws {
        let days: Int64 = 8
        let grants = driveTwo(try makePredictive(["spending": .text("pooled"), "share": .number(share)]), days: days)
        let total = grants[0].reduce(0, +) + grants[1].reduce(0, +)
        let bound = share * (Double(2 * 24) + 25 * Double(days - 1))
        #expect(Double(total) <= bound + 1, "\(total) grants against at most \(bound)")
        let late = (4 ..< Int(days)).map { grants[0][$0] + grants[1][$0] }.reduce(0, +)
        #expect(Double(late) >= 0.6 * share * 25 * Double(days - 4), "\(late) grants on days 4 to 7: the pool is spent, not hoarded")
    }

    /// A pooled request worth less than the day's threshold waits as `below_threshold`:
    /// with no weight on an instance's own views, instance 0's requests keep nothing
    /// fresh once renders have shown that its content never changes, while instance 1,
    /// which changes every hour, takes the pool. Spending at the views, the same person's
    /// instance 1, never seen, waits as `no_view_expected`.
    @Test func aPooledRequestWorthTooLittleWaitsBelowThreshold() throws {
        let pooled = Deferrals()
        _ = driveTwo(try makePredictive(["spending": .text("pooled"), "own_weight": .number(0)]), days: 4, deferrals: pooled)
        #expect(pooled.count[0][.belowThreshold, default: 0] > 0, "\(pooled.count[0])")
        #expect(pooled.count[0][.noViewExpected] == nil && pooled.count[1][.noViewExpected] == nil, "\(pooled.count)")
        let byViews = Deferrals()
        _ = driveTwo(try makePredictive(["spending": .text("views")]), days: 4, deferrals: byViews)
        #expect(byViews.count[1][.noViewExpected, default: 0] > 0, "\(byViews.count[1])")
        #expect(byViews.count[0][.belowThreshold] == nil && byViews.count[1][.belowThreshold] == nil, "\(byViews.count)")
    }

    /// A render that shows a change after a long quiet stretch does not blame the quiet
    /// hours for it: an instance whose content changes every minute from 9:00 to 18:00 and
    /// never at night, reloaded free at midnight, once in the night at a time that moves
    /// from 1:50 to 8:50 day by day (showing nothing new), and at 9:10 and every hour after
    /// until 18:10. Each interval from the night reload to 9:10 shows a change that came
    /// after 9:00: the night hours' rate (0:00 to 8:00, the hours some quiet interval
    /// covers) falls day by day, to less than a twentieth of the day's. Charging the change
    /// to the hours after the night reload, at its hour's rate, leaves them near a fifth of
    /// a change an hour.
    @Test func aChangeAfterTheNightIsNotLearnedByTheNight() {
        var pool = PooledSpending()
        pool.reset(instances: 1)
        pool.added(0, budget: 10)
        var night: [Double] = []
        func render(_ t: Int64, changed: Bool) {
            pool.reloaded(0, charged: true, at: t)
            pool.rendered(0, changed: changed, at: t)
        }
        for day in Int64(0) ..< 40 {
            let midnight = day * bpDay
            pool.forecast(day: day)
            night.append((0 ..< 8).map { pool.changeRate(0, hour: $0) }.reduce(0, +) / 8)
            pool.reloaded(0, charged: false, at: midnight)
            pool.rendered(0, changed: false, at: midnight)
            render(midnight + (1 + day % 8) * bpHour + 50 * bpMinute, changed: false)
            for hour in Int64(9) ... 18 { render(midnight + hour * bpHour + 10 * bpMinute, changed: true) }
        }
        let day = (10 ..< 18).map { pool.changeRate(0, hour: $0) }.reduce(0, +) / 8
        #expect(night[39] < 0.05 * day, "night \(night[39]) against day \(day)")
        #expect(night[39] < 0.7 * night[10], "night \(night[10]) on day 10, \(night[39]) on day 39")
    }

    /// The weight of the mean rate behind each hour's rate is counted in changes, not in
    /// hours: an instance that changes every minute from 9:00 to 18:00 learns within three
    /// days that its nights are quiet (below 0.05 changes an hour, so six night hours carry
    /// less than a quarter chance of a change), while one that changes once a day, at
    /// noon, keeps its night hours near its mean rate (above 0.01 an hour: three quiet
    /// nights say little of a rate of one a day). Both are rendered on the hour's tenth
    /// minute from 1:10 to 23:10 and reloaded free at midnight. Counted in hours, no
    /// weight does both: one pseudo-hour leaves the busy nights above 0.1, a tenth of one
    /// takes the slow ones below 0.002.
    @Test func aBusyInstanceLearnsItsQuietHoursInDays() {
        var pool = PooledSpending(share: 0.98, threshold: 10, changePrior: 0.1, pollMs: 10 * bpMinute, ownWeight: 15)
        pool.reset(instances: 2)
        for i in 0 ..< 2 { pool.added(i, budget: 10) }
        func changed(_ i: Int, from a: Int64, to b: Int64) -> Bool {
            let start = a % bpDay, end = start + (b - a)
            return i == 0 ? start < 18 * bpHour && end > 9 * bpHour : start < 12 * bpHour && end >= 12 * bpHour
        }
        var last = [Int64](repeating: 0, count: 2)
        for day in Int64(0) ..< 3 {
            let midnight = day * bpDay
            pool.forecast(day: day)
            for i in 0 ..< 2 {
                for t in [midnight] + (1 ... 23).map({ midnight + Int64($0) * bpHour + 10 * bpMinute }) {
                    pool.reloaded(i, charged: t != midnight, at: t)
                    pool.rendered(i, changed: t != midnight && changed(i, from: last[i], to: t), at: t)
                    last[i] = t
                }
            }
        }
        pool.forecast(day: 3)
        let night = (0 ..< 2).map { i in (1 ..< 7).map { pool.changeRate(i, hour: $0) }.reduce(0, +) / 6 }
        #expect(night[0] < 0.05, "busy nights \(night[0])")
        #expect(night[1] > 0.01, "slow nights \(night[1])")
    }

    /// θ is lowered after a day whose grants left more than `unspent` of its credit: a day
    /// that brought twenty pushes (each adding one to the shadow's credit), three at night,
    /// worth waiting for the day's views at noon, and seventeen at noon, each granted as it
    /// comes, left 15 % of its credit; θ is lowered (× 0.75) at `unspent` 0.1 and kept at
    /// 0.2.
    @Test(arguments: [(0.1, 7.5), (0.2, 10.0)])
    func thetaIsLoweredAfterADayThatLeftMoreThanUnspent(unspent: Double, theta: Double) {
        var pool = PooledSpending(share: 1, threshold: 10, changePrior: 0.1, pollMs: 10 * bpMinute, ownWeight: 50,
                                  unspent: unspent)
        pool.reset(instances: 1)
        pool.added(0, budget: 100)
        var granted = 0
        for day in Int64(0) ... 2 {
            let midnight = day * bpDay
            pool.newBudgetDay(start: midnight, budgets: [100], first: day == 0)
            pool.forecast(day: day)
            guard day < 2 else { break }
            pool.reloaded(0, charged: false, at: midnight)
            pool.rendered(0, changed: false, at: midnight)
            let pushes = day == 0 ? [] : (0 ..< 3).map { midnight + bpHour + $0 * bpMinute }
                + (0 ..< 17).map { midnight + 12 * bpHour + $0 * bpMinute }
            for t in pushes where pool.decide(0, reason: .background, at: t) == .grant {
                granted += 1
                pool.reloaded(0, charged: true, at: t)
                pool.rendered(0, changed: true, at: t)
            }
            pool.viewed(0, at: midnight + 12 * bpHour + 10 * bpMinute)
        }
        #expect(granted == 17 && pool.credit == 20, "granted \(granted), credit \(pool.credit)")
        #expect(abs(pool.theta - theta) < 1e-9, "θ \(pool.theta)")
    }

    /// θ follows each day's own spending, not the credit left from days before: a pool that
    /// saved credit on one day (forty pushes at night, worth waiting for the day's one view
    /// at noon, each adding to the shadow's credit) and spent what the next day brought
    /// (ten pushes at noon, each granted as it comes) keeps θ on the day after, where the
    /// saving alone would have lowered it (× 0.75) day after day until it was spent.
    @Test func thetaFollowsTheDaysOwnSpending() {
        var pool = PooledSpending(share: 0.97, threshold: 10, changePrior: 1, pollMs: 10 * bpMinute, ownWeight: 50)
        pool.reset(instances: 1)
        pool.added(0, budget: 100)
        var thetas: [Double] = []
        var granted = [0, 0, 0]
        for day in Int64(0) ... 3 {
            let midnight = day * bpDay
            pool.newBudgetDay(start: midnight, budgets: [100], first: day == 0)
            pool.forecast(day: day)
            thetas.append(pool.theta)
            guard day < 3 else { break }
            pool.reloaded(0, charged: false, at: midnight)
            pool.rendered(0, changed: false, at: midnight)
            let pushes = day == 1 ? (0 ..< 40).map { midnight + bpHour + $0 * bpMinute }
                : day == 2 ? (0 ..< 10).map { midnight + 12 * bpHour + $0 * bpMinute } : []
            for t in pushes where pool.decide(0, reason: .background, at: t) == .grant {
                granted[Int(day)] += 1
                pool.reloaded(0, charged: true, at: t)
                pool.rendered(0, changed: true, at: t)
            }
            pool.viewed(0, at: midnight + 12 * bpHour + 10 * bpMinute)
        }
        #expect(granted == [0, 0, 10], "grants by day \(granted)")
        #expect(pool.credit == 50 && pool.spent == 10, "credit \(pool.credit), spent \(pool.spent)")
        #expect(thetas[3] == thetas[2], "θ by day \(thetas)")
    }

    /// A push to a kind with two instances (both ask at its instant, as two stocks do when
    /// one symbol's change is pushed) says that one of them changed, not which: once the
    /// pool has seen the two ask together, an instance pushed since its last reload is
    /// stale with chance 1 − ½ e^{−Λ} (Λ its learned hazard since that reload: an hour at
    /// the first day's 1/24 an hour, so about 0.52), and after two such pushes 1 − ¼ e^{−Λ}.
    /// An instance whose pushes come alone (a kind of its own) is stale for certain after
    /// one, as before.
    @Test func aPushToAKindOfTwoLeavesEachHalfSureOfAChange() {
        var pool = PooledSpending()
        pool.reset(instances: 3)
        for i in 0 ..< 3 { pool.added(i, budget: 20) }
        pool.forecast(day: 0)
        for i in 0 ..< 3 {
            pool.reloaded(i, charged: false, at: 0)
            pool.rendered(i, changed: false, at: 0)
        }
        // The kind's first push: both stocks ask at once, and the pool learns they are one kind.
        for i in 0 ..< 2 { _ = pool.decide(i, reason: .background, at: bpHour) }
        for i in 0 ..< 2 {
            pool.reloaded(i, charged: true, at: bpHour)
            pool.rendered(i, changed: i == 0, at: bpHour)
        }
        for i in 0 ..< 2 { _ = pool.decide(i, reason: .background, at: 2 * bpHour) }
        _ = pool.decide(2, reason: .background, at: 2 * bpHour + bpMinute)
        let quiet = exp(-1.0 / 24)
        let once = pool.staleChance(0, at: 2 * bpHour)
        #expect(abs(once - (1 - quiet / 2)) < 1e-6, "stale chance \(once) after one push to a kind of two")
        #expect(abs(pool.staleChance(1, at: 2 * bpHour) - once) < 1e-9)
        #expect(pool.staleChance(2, at: 2 * bpHour + bpMinute) == 1, "a push to a kind of one")
        for i in 0 ..< 2 { _ = pool.decide(i, reason: .background, at: 2 * bpHour + 5 * bpMinute) }
        let twice = pool.staleChance(0, at: 2 * bpHour + 5 * bpMinute)
        let quietLonger = exp(-(65.0 / 60) / 24)
        #expect(abs(twice - (1 - quietLonger / 4)) < 1e-6, "stale chance \(twice) after two pushes to a kind of two")
    }

    /// The instance on top now is likely on top at the next views: a stack that shows
    /// instance 1 at the views of each hour's first half (every 5 minutes from 7:00 to
    /// 23:00) and instance 0 at those of its second half, for five days, each shown at half
    /// the views and kept on top from one view to the next five times in six. Then
    /// instance 0's own views in the next half hour are worth 5/3 of the hour's mean while
    /// it is on top and 1/3 while the other is. On the sixth day, with instance 0 reloaded
    /// at 12:00 (its content changes every hour), a request at 12:26 after a view at 12:25
    /// is granted at some price when that view showed instance 0 and waits when it showed
    /// instance 1; at no price is it the other way round.
    @Test func theInstanceOnTopNowIsReloadedBeforeOneOutOfSight() {
        func pool(threshold: Double) -> PooledSpending {
            var pool = PooledSpending(share: 1, threshold: threshold, changePrior: 0.1, pollMs: 10 * bpMinute,
                                      ownWeight: 50)
            pool.reset(instances: 2)
            for i in 0 ..< 2 { pool.added(i, budget: 100) }
            for day in Int64(0) ... 5 {
                let midnight = day * bpDay
                pool.forecast(day: day)
                for i in 0 ..< 2 {
                    pool.reloaded(i, charged: false, at: midnight)
                    pool.rendered(i, changed: day > 0, at: midnight)
                }
                let end = midnight + (day < 5 ? 23 * bpHour : 12 * bpHour + 25 * bpMinute)
                var t = midnight + 7 * bpHour
                while t < end {
                    if day < 5 && (t - midnight) % bpHour == 0 {
                        pool.reloaded(0, charged: true, at: t)
                        pool.rendered(0, changed: true, at: t)
                    }
                    if day == 5 && t == midnight + 12 * bpHour {
                        pool.reloaded(0, charged: true, at: t)
                        pool.rendered(0, changed: true, at: t)
                    }
                    pool.viewed((t - midnight) % bpHour < 30 * bpMinute ? 1 : 0, at: t)
                    t += 5 * bpMinute
                }
            }
            return pool
        }
        let view = 5 * bpDay + 12 * bpHour + 25 * bpMinute
        var shown = pool(threshold: 10), hidden = shown
        shown.viewed(0, at: view)
        hidden.viewed(1, at: view)
        #expect(abs(shown.onTopFactor(0, at: view + bpMinute) - 5.0 / 3) < 0.05, "\(shown.onTopFactor(0, at: view + bpMinute))")
        #expect(abs(hidden.onTopFactor(0, at: view + bpMinute) - 1.0 / 3) < 0.05, "\(hidden.onTopFactor(0, at: view + bpMinute))")
        var onTop = 0, outOfSight = 0
        for threshold in stride(from: 0.5, through: 60, by: 0.5) {
            var shown = pool(threshold: threshold), hidden = shown
            shown.viewed(0, at: view)
            hidden.viewed(1, at: view)
            let a = shown.reloadNowIsBest(0, at: view + bpMinute), b = hidden.reloadNowIsBest(0, at: view + bpMinute)
            if a && !b { onTop += 1 }
            if b && !a { outOfSight += 1 }
        }
        #expect(onTop > 0, "no price at which the instance on top is reloaded and the one out of sight waits")
        #expect(outOfSight == 0, "\(outOfSight) prices at which only the one out of sight is reloaded")
    }

    /// A reload is held while waiting for it costs nothing: an instance whose content
    /// changes only from 9:00 to 18:00, reloaded last at 17:30 (the content may have
    /// changed before the close), with stack views every 12 minutes from 7:00 to 23:00.
    /// At 2:00 a reload would keep the morning views fresh, so its gain is well above
    /// the threshold, but one at 7:00 keeps the same views fresh and nothing can change
    /// in between: the request waits as `below_threshold`, and the one at 7:05, with
    /// the views begun, is granted.
    @Test func aReloadWaitsWhileWaitingCostsNothing() {
        var pool = PooledSpending(share: 0.97, threshold: 1, changePrior: 1, pollMs: 10 * bpMinute, ownWeight: 0)
        pool.reset(instances: 1)
        pool.added(0, budget: 100)
        func reload(_ t: Int64, charged: Bool, changed: Bool) {
            pool.reloaded(0, charged: charged, at: t)
            pool.rendered(0, changed: changed, at: t)
        }
        for day in Int64(0) ... 10 {
            let midnight = day * bpDay
            pool.newBudgetDay(start: midnight, budgets: [100], first: day == 0)
            pool.forecast(day: day)
            guard day < 10 else { break }
            reload(midnight, charged: false, changed: false)
            reload(midnight + 3 * bpHour + 50 * bpMinute, charged: true, changed: false)
            var view = midnight + 7 * bpHour
            for hour in Int64(9) ... 17 {
                let t = midnight + hour * bpHour + (hour == 17 ? 30 : 10) * bpMinute
                while view < t {
                    pool.viewed(0, at: view)
                    view += 12 * bpMinute
                }
                _ = pool.decide(0, reason: .timeline, at: t)
                reload(t, charged: true, changed: true)
            }
            while view < midnight + 23 * bpHour {
                pool.viewed(0, at: view)
                view += 12 * bpMinute
            }
        }
        let day10 = 10 * bpDay
        #expect(pool.gain(0, at: day10 + 2 * bpHour) > 3 * pool.theta, "gain \(pool.gain(0, at: day10 + 2 * bpHour))")
        guard case .deferUntil(_, let why) = pool.decide(0, reason: .timeline, at: day10 + 2 * bpHour) else {
            Issue.record("granted at 2:00, five hours before anyone looks")
            return
        }
        #expect(why == .belowThreshold)
        pool.viewed(0, at: day10 + 7 * bpHour)
        #expect(pool.decide(0, reason: .timeline, at: day10 + 7 * bpHour + 5 * bpMinute) == .grant)
    }
}

@Suite struct PooledFirstDayTests {
    /// On the person's first day, with nothing learned yet, the pool grants a request only
    /// within an hour of a stack view: the shadow `ios_like` has credit from 1:00 on (its
    /// request an hour after the midnight reload), but a request at 1:00 or 4:00, before
    /// anyone has looked, waits as `below_threshold` (a push at 5:00 is granted: its
    /// content changed); one five minutes after a view at 7:00 is granted, and one at
    /// 9:00, two hours after it, waits again.
    @Test func theFirstDaySpendsOnlyWhileThePersonLooks() throws {
        let policy = try makePredictive(["spending": .text("pooled")])
        policy.begin(instances: 1)
        policy.didReload(instance: 0, charged: false, at: 0)
        policy.didRender(instance: 0, changed: false, at: 0)
        for t in [bpHour, 4 * bpHour] {
            guard case .deferUntil(_, let why) = policy.decide(instance: 0, reason: .timeline, at: t) else {
                Issue.record("granted at \(t / bpHour):00, before any view")
                continue
            }
            #expect(why == .belowThreshold)
        }
        #expect(policy.decide(instance: 0, reason: .background, at: 5 * bpHour) == .grant, "a push is granted")
        policy.didReload(instance: 0, charged: true, at: 5 * bpHour)
        policy.didRender(instance: 0, changed: true, at: 5 * bpHour)
        policy.didView(instance: 0, at: 7 * bpHour)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 7 * bpHour + 5 * bpMinute) == .grant)
        policy.didReload(instance: 0, charged: true, at: 7 * bpHour + 5 * bpMinute)
        policy.didRender(instance: 0, changed: false, at: 7 * bpHour + 5 * bpMinute)
        guard case .deferUntil = policy.decide(instance: 0, reason: .timeline, at: 9 * bpHour) else {
            Issue.record("granted at 9:00, two hours after the last view")
            return
        }
    }

    /// On the first day a request near a view is granted only an hour or more after the
    /// instance's last reload: an instance asking 15 minutes after each reload (10 after a
    /// refusal), as a stock does, from its free reload at midnight, with a stack view every
    /// 12 minutes from 7:00 to 12:00, gets one reload an hour from 7:00, not four (the
    /// shadow `ios_like` grants every one of its requests from its first-day budget, 40). What the first day does not spend is left for the days
    /// that have rates to spend it by.
    @Test func theFirstDayReloadsAnInstanceAtMostHourly() throws {
        let policy = try makePredictive(["spending": .text("pooled")])
        policy.begin(instances: 1)
        policy.didReload(instance: 0, charged: false, at: 0)
        policy.didRender(instance: 0, changed: false, at: 0)
        var view = 7 * bpHour, request = 15 * bpMinute
        var grants: [Int64] = []
        while request < 12 * bpHour {
            while view <= request {
                policy.didView(instance: 0, at: view)
                view += 12 * bpMinute
            }
            switch policy.decide(instance: 0, reason: .timeline, at: request) {
            case .grant:
                grants.append(request)
                policy.didReload(instance: 0, charged: true, at: request)
                policy.didRender(instance: 0, changed: true, at: request)
                request += 15 * bpMinute
            case .deferUntil(let until, _):
                request = until
            case .deny:
                Issue.record("predictive never drops")
                return
            }
        }
        #expect((4 ... 5).contains(grants.count), "grants at \(grants.map { Double($0) / Double(bpHour) })")
        #expect(grants.allSatisfy { $0 >= 7 * bpHour })
        for (a, b) in zip(grants, grants.dropFirst()) { #expect(b - a >= bpHour) }
    }
}

