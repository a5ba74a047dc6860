import WidgetSimKernel

/// `predictive`: with `spending: pooled` (the default), one pool for the person's
/// instances, at most `share` of what `ios_like` would have charged, spent where a reload
/// is expected to keep the stack's members fresh for the most views (`PooledSpending`,
/// MODEL §4). With `spending: views`, the rule below: `ios_like`'s daily budget, spent
/// when the instance is about to be seen. A charged timeline request is granted while the instance is on show (viewed
/// within `recent`) or a view of it is forecast within `lookahead`; otherwise it waits,
/// asked again every `poll`, so one reload covers every content change since the last
/// and lands before the views that show it. A reserve is kept for pushes (background
/// requests: the content has just changed), which are granted whenever the budget
/// allows.
///
/// Rule:
/// - budget days and the daily budget B of each instance are `ios_like`'s with
///   `budget_day: paced` and the same parameters and defaults (`PersonDay`: days start
///   at the person's usual first view; B from the instance's average daily views over
///   the previous min(7, k) days, 1:1 up to `linear_up_to`, a square root above, in
///   [1, `per_instance_max`], `initial_per_day` before any history, scaled down when the
///   person's budgets sum to more than `total_per_day`). A grant spends 1; at most B are
///   granted in a budget day, and by τ after the day's start at most ⌊B · F(τ)⌋ + 1
///   (F: the person's views expected so far, as `ios_like` releases its budget with
///   `budget_day: paced`) plus the reserve for a push.
/// - the reserve R = min(round(`push_reserve` · B), ⌈n⌉), with n the instance's
///   background requests (granted or not) per day over its past days (round(
///   `push_reserve` · B) on its first day). Timeline requests may spend up to B − R of
///   the day, background requests all of B.
/// - the view forecast: the instance's views (`didView`) counted by hour of the day and
///   by weekday and hour, shrunk toward the person's views of all instances by hour,
///   and that toward a flat day:
///
///       Q(h)    = (P(h) + person_prior / 24) / (P + person_prior)
///       q(h)    = (V(h) + instance_prior · Q(h)) / (V + instance_prior)
///       q(d, h) = (V(d, h) + weekday_prior · q(h)) / (V(d) + weekday_prior)
///
///   with P, V counts of the person's and the instance's views before today (P(h) in
///   hour h, V(d) on weekday d, ...), d today's weekday; fixed when the simulation day
///   starts. The views expected in (t, t + `lookahead`] are v̄ · ∫ q(d, h) over that
///   window (each hour's share spread evenly over it), v̄ the instance's average daily
///   views over the previous min(7, k) simulation days.
/// - a timeline request at `now` is granted when the budget allows it (above) and the
///   instance is about to be seen: it is the instance's first day (no past day to
///   forecast from: every request counts as near a view, as in `ios_like`), it was
///   viewed in the last `recent`, or at least one half view of it is expected within
///   `lookahead`. Else it is deferred `poll` (reason `no_view_expected`). A background
///   request is granted when the budget allows it, whether a view is near or not.
///   Refused by the budget, a request is deferred to the next budget day's start when
///   all of B is spent (at least `poll` on: a later usual first view may
///   push that start back; `total_cap` when B was scaled down to the person's total
///   cap, else `quota_exhausted`), else `poll` (`not_yet_released`); never dropped.
///
/// Source: ours (spending at the views, from the instance's own view history; the
/// budget itself is the unofficial `ios_like` calibration, so its size is comparable).
public final class PredictiveBudget: BudgetPolicy {
    public static let initialPerDay = ParameterSpec(
        "initial_per_day", .count(1 ... 10_000), default: .number(40),
        "budget of every instance on day 0, before any view history (as ios_like)")
    public static let linearUpTo = ParameterSpec(
        "linear_up_to", .count(0 ... 10_000), default: .number(30),
        "average daily views up to which the budget equals the views; above, it grows as a square root (as ios_like)")
    public static let perInstanceMax = ParameterSpec(
        "per_instance_max", .count(1 ... 10_000), default: .number(50),
        "largest daily budget of one instance (as ios_like)")
    public static let totalPerDay = ParameterSpec(
        "total_per_day", .count(1 ... 1_000_000), default: .number(750),
        "largest sum of the daily budgets of one person's instances (as ios_like)")
    public static let pushReserve = ParameterSpec(
        "push_reserve", .number(0 ... 1), default: .number(0.2),
        "largest share of the daily budget kept for background requests (pushes)")
    public static let recent = ParameterSpec(
        "recent", .duration(minimumMs: 0), default: .duration(30 * Milliseconds.minute),
        "an instance viewed this recently is on show: its timeline requests are granted")
    public static let lookahead = ParameterSpec(
        "lookahead", .duration(minimumMs: 0), default: .duration(2 * Milliseconds.hour),
        "a timeline request is granted when half a view of the instance is forecast this far ahead")
    public static let poll = ParameterSpec(
        "poll", .duration(minimumMs: Milliseconds.minute), default: .duration(10 * Milliseconds.minute),
        "how long a request waits for a view, or for the release of more budget, before it is asked again")
    public static let personPrior = ParameterSpec(
        "person_prior", .number(0 ... 1_000_000), default: .number(24),
        "pseudo-views of a flat day behind the person's hourly view profile")
    public static let instancePrior = ParameterSpec(
        "instance_prior", .number(0 ... 1_000_000), default: .number(50),
        "pseudo-views of the person's profile behind the instance's hourly profile")
    public static let weekdayPrior = ParameterSpec(
        "weekday_prior", .number(0 ... 1_000_000), default: .number(100),
        "pseudo-views of the instance's hourly profile behind its profile for one weekday")

    public static let spending = ParameterSpec(
        "spending", .choice(["pooled", "views"]), default: .text("pooled"),
        "`views`: each instance's own budget, spent near its views; `pooled`: one pool for the person, no larger "
            + "than ios_like's charged reloads, spent where a reload keeps a member fresh for the most stack views")
    public static let share = ParameterSpec(
        "share", .number(0 ... 1), default: .number(0.98),
        "pooled: the share of ios_like's charged reloads (played in a shadow account) the pool may spend")
    public static let threshold = ParameterSpec(
        "threshold", .number(0 ... 1_000_000), default: .number(10),
        "pooled: the price of a reload in stale stack views, against which each day's plan weighs it, on the first days (then learned)")
    public static let changePrior = ParameterSpec(
        "change_prior", .number(0 ... 1_000_000), default: .number(0.1),
        "pooled: pseudo-changes at the instance's mean rate of change behind its rate in each hour")

    public static let ownWeight = ParameterSpec(
        "own_weight", .number(0 ... 1_000), default: .number(40),
        "pooled: weight of the instance's own views (where it is shown) beside the stack's views it keeps fresh")

    public static let unspent = ParameterSpec(
        "unspent", .number(0 ... 1), default: .number(0.2),
        "pooled: θ is lowered (× 0.75) after a budget day whose grants left more than this share of its credit unspent")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "predictive",
        summary: "One pool for the person, at most `share` of what ios_like would have charged, spent where a reload "
            + "is expected to keep the stack's members (and, weighted, the instance's own views) fresh the longest; "
            + "`spending: views`: ios_like's daily budget per instance, spent when the instance is about to be seen.",
        source: "ours (pooled spending of at most the ios_like budget; rates of change learned from renders)",
        refusals: [.belowThreshold, .noViewExpected, .notYetReleased, .quotaExhausted, .totalCap],
        parameters: [
            initialPerDay, linearUpTo, perInstanceMax, totalPerDay, pushReserve, recent, lookahead, poll,
            personPrior, instancePrior, weekdayPrior, spending, share, threshold, changePrior, ownWeight, unspent,
        ],
        make: { p in
            PredictiveBudget(
                initialPerDay: p.count(initialPerDay), linearUpTo: p.count(linearUpTo),
                perInstanceMax: p.count(perInstanceMax), totalPerDay: p.count(totalPerDay),
                pushReserve: p.number(pushReserve), recentMs: p.duration(recent), lookaheadMs: p.duration(lookahead),
                pollMs: p.duration(poll), personPrior: p.number(personPrior), instancePrior: p.number(instancePrior),
                weekdayPrior: p.number(weekdayPrior), pooled: p.text(spending) == "pooled",
                share: p.number(share), threshold: p.number(threshold), changePrior: p.number(changePrior),
                ownWeight: p.number(ownWeight), unspent: p.number(unspent))
        })

    public let initialPerDay: Int
    public let linearUpTo: Int
    public let perInstanceMax: Int
    public let totalPerDay: Int
    public let pushReserve: Double
    public let recentMs: Int64
    public let lookaheadMs: Int64
    public let pollMs: Int64
    public let personPrior: Double
    public let instancePrior: Double
    public let weekdayPrior: Double
    /// Whether the person's budget is pooled (`spending: pooled`, `PooledSpending`).
    public let pooled: Bool
    @exclusivity(unchecked) private var pool = PooledSpending()

    @exclusivity(unchecked) private var instances = 0
    @exclusivity(unchecked) private var views = DailyViewCounts()
    @exclusivity(unchecked) private var personDay = PersonDay()
    /// Each instance's budget and grants for the current budget day.
    @exclusivity(unchecked) private var budgets: [Int] = []
    @exclusivity(unchecked) private var spent: [Int] = []
    /// Whether each instance's budget today was scaled down to the person's total cap.
    @exclusivity(unchecked) private var capped: [Bool] = []
    /// The simulation day each instance was added (0: there from the start).
    @exclusivity(unchecked) private var addedDay: [Int64] = []
    /// Each instance's background requests since it was added, and its reserve today.
    @exclusivity(unchecked) private var backgroundRequests: [Int] = []
    @exclusivity(unchecked) private var reserves: [Int] = []
    /// Each instance's last view (`.min`: none yet).
    @exclusivity(unchecked) private var lastView: [SimTime] = []
    /// Each instance's average daily views over its past days, for the forecast day
    /// (−1: no past day yet).
    @exclusivity(unchecked) private var dailyViews: [Double] = []
    /// Views by hour of the person (24), of each instance by hour (`i * 24 + h`) and by
    /// weekday and hour (`i * 168 + d * 24 + h`), and each instance's total and per weekday.
    @exclusivity(unchecked) private var personByHour: [Double] = []
    @exclusivity(unchecked) private var personTotal = 0.0
    @exclusivity(unchecked) private var byHour: [Double] = []
    @exclusivity(unchecked) private var byWeekdayHour: [Double] = []
    @exclusivity(unchecked) private var total: [Double] = []
    @exclusivity(unchecked) private var byWeekday: [Double] = []
    /// Each instance's forecast share of each hour of the simulation day `forecastDay`
    /// (`i * 24 + h`).
    @exclusivity(unchecked) private var shares: [Double] = []
    @exclusivity(unchecked) private var forecastDay: Int64 = -1

    public init(
        initialPerDay: Int, linearUpTo: Int, perInstanceMax: Int, totalPerDay: Int, pushReserve: Double,
        recentMs: Int64, lookaheadMs: Int64, pollMs: Int64, personPrior: Double, instancePrior: Double,
        weekdayPrior: Double, pooled: Bool = false, share: Double = 0.98, threshold: Double = 10,
        changePrior: Double = 0.1, ownWeight: Double = 40, unspent: Double = 0.2
    ) {
        precondition(initialPerDay >= 1 && linearUpTo >= 0 && perInstanceMax >= 1 && totalPerDay >= 1)
        precondition(pushReserve >= 0 && pushReserve <= 1 && recentMs >= 0 && lookaheadMs >= 0 && pollMs >= 1)
        precondition(personPrior >= 0 && instancePrior >= 0 && weekdayPrior >= 0)
        self.initialPerDay = initialPerDay
        self.linearUpTo = linearUpTo
        self.perInstanceMax = perInstanceMax
        self.totalPerDay = totalPerDay
        self.pushReserve = pushReserve
        self.recentMs = recentMs
        self.lookaheadMs = lookaheadMs
        self.pollMs = pollMs
        self.personPrior = personPrior
        self.instancePrior = instancePrior
        self.weekdayPrior = weekdayPrior
        self.pooled = pooled
        precondition(share >= 0 && share <= 1 && threshold >= 0 && changePrior >= 0 && unspent >= 0 && unspent <= 1)
        pool = PooledSpending(share: share, threshold: threshold, changePrior: changePrior, pollMs: pollMs,
                              ownWeight: ownWeight, unspent: unspent)
    }

    public func begin(instances: Int) {
        self.instances = instances
        views.reset(instances: instances)
        personDay.reset()
        budgets.resetFlat(count: instances, to: 0)
        spent.resetFlat(count: instances, to: 0)
        capped.resetFlat(count: instances, to: false)
        addedDay.resetFlat(count: instances, to: 0)
        backgroundRequests.resetFlat(count: instances, to: 0)
        reserves.resetFlat(count: instances, to: 0)
        lastView.resetFlat(count: instances, to: .min)
        dailyViews.resetFlat(count: instances, to: 0)
        personByHour.resetFlat(count: 24, to: 0)
        personTotal = 0
        byHour.resetFlat(count: instances * 24, to: 0)
        byWeekdayHour.resetFlat(count: instances * 168, to: 0)
        total.resetFlat(count: instances, to: 0)
        byWeekday.resetFlat(count: instances * 7, to: 0)
        shares.resetFlat(count: instances * 24, to: 0)
        forecastDay = -1
        if pooled { pool.reset(instances: instances) }
        refill(day: 0)
        if pooled { pool.newBudgetDay(start: 0, budgets: budgets, first: true) }
    }

    // MARK: - The daily budget (as ios_like)

    /// The budget of one instance with `views` views over `days` past days, before the
    /// total cap.
    public func dailyBudget(views: Int, days: Int) -> Int {
        IOSLikeBudget.dailyBudget(views: views, days: days, initialPerDay: initialPerDay,
                                  linearUpTo: linearUpTo, perInstanceMax: perInstanceMax)
    }

    /// `instance`'s budget for the current budget day (after the last request or view).
    public func budget(of instance: Int) -> Int { budgets[instance] }

    /// `instance`'s reserve for pushes today.
    public func reserve(of instance: Int) -> Int { reserves[instance] }

    /// The number of the current budget day (after the last request or view; −1 before
    /// any).
    public var budgetDay: Int64 { personDay.day }

    /// Sets every budget for the budget day starting in simulation day `day`.
    private func refill(day: Int64) {
        var sum = 0
        for i in 0 ..< instances {
            let past = views.past(i, before: day, since: addedDay[i])
            budgets[i] = dailyBudget(views: past.views, days: past.days)
            spent[i] = 0
            sum += budgets[i]
        }
        for i in 0 ..< instances {
            let before = budgets[i]
            if sum > totalPerDay { budgets[i] = max(1, before * totalPerDay / sum) }
            capped[i] = budgets[i] < before
            setReserve(i, day: day)
        }
    }

    /// `instance`'s reserve for pushes in the budget day starting in simulation day `day`.
    private func setReserve(_ instance: Int, day: Int64) {
        let most = Int((pushReserve * Double(budgets[instance])).rounded())
        let days = day - addedDay[instance]
        guard days > 0 else {
            reserves[instance] = most
            return
        }
        let perDay = (Int64(backgroundRequests[instance]) + days - 1) / days
        reserves[instance] = min(most, Int(perDay))
    }

    /// Moves to the budget day and forecast day of `now`.
    @inline(__always) private func catchUp(_ now: SimTime) {
        if personDay.advance(to: now) {
            refill(day: DailyViewCounts.day(of: now))
            if pooled { pool.newBudgetDay(start: personDay.dayStart, budgets: budgets, first: false) }
        }
        let day = DailyViewCounts.day(of: now)
        if day != forecastDay {
            forecastDay = day
            for i in 0 ..< instances { forecast(i, day: day) }
            if pooled { pool.forecast(day: day) }
        }
    }

    // MARK: - The forecast

    /// Sets `instance`'s forecast share of each hour of day `day` (they sum to 1) and its
    /// average daily views.
    private func forecast(_ instance: Int, day: Int64) {
        let past = views.past(instance, before: day, since: addedDay[instance])
        dailyViews[instance] = past.days > 0 ? Double(past.views) / Double(past.days) : -1
        let d = Int(day % 7)
        let personDenominator = personTotal + personPrior
        let instanceDenominator = total[instance] + instancePrior
        let weekdayDenominator = byWeekday[instance * 7 + d] + weekdayPrior
        for h in 0 ..< 24 {
            let person = personDenominator > 0 ? (personByHour[h] + personPrior / 24) / personDenominator : 1.0 / 24
            let hour = instanceDenominator > 0
                ? (byHour[instance * 24 + h] + instancePrior * person) / instanceDenominator : person
            shares[instance * 24 + h] = weekdayDenominator > 0
                ? (byWeekdayHour[instance * 168 + d * 24 + h] + weekdayPrior * hour) / weekdayDenominator : hour
        }
    }

    /// The views of `instance` expected in (`now`, `now` + `lookahead`] (after
    /// `catchUp(now)`): v̄ times the forecast share of that window, the hours of the
    /// current simulation day's profile taken round the clock; 0 for an empty window
    /// (`lookahead` 0) or without past views.
    public func expectedViews(_ instance: Int, at now: SimTime) -> Double {
        let v = dailyViews[instance]
        guard v > 0, lookaheadMs > 0 else { return 0 }
        var t = now - DailyViewCounts.day(of: now) * Milliseconds.day
        var left = lookaheadMs
        var share = 0.0
        while left > 0 {
            let h = Int(t / Milliseconds.hour) % 24
            let step = min(left, (Int64(h) + 1) * Milliseconds.hour - t % Milliseconds.day)
            share += shares[instance * 24 + h] * Double(step) / Double(Milliseconds.hour)
            left -= step
            t = (t + step) % Milliseconds.day
        }
        return v * share
    }

    /// Whether `instance` is about to be seen at `now`: on its first day (nothing to
    /// forecast from), viewed in the last `recent`, or half a view of it expected within
    /// `lookahead`.
    public func aboutToBeSeen(_ instance: Int, at now: SimTime) -> Bool {
        catchUp(now)
        if dailyViews[instance] < 0 { return true }
        let last = lastView[instance]
        if last != .min && now - last <= recentMs { return true }
        return expectedViews(instance, at: now) >= 0.5
    }

    // MARK: - Requests

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        catchUp(now)
        if pooled { return pool.decide(instance, reason: reason, at: now) }
        if reason == .background { backgroundRequests[instance] += 1 }
        let b = budgets[instance]
        let done = spent[instance]
        guard done < b else {
            let why: RefusalReason = capped[instance] ? .totalCap : .quotaExhausted
            return .deferUntil(max(now + pollMs, personDay.dayStart + Milliseconds.day), because: why)
        }
        let released = personDay.released(b, at: now)
        let r = reserves[instance]
        let allowed = reason == .background ? min(b, released + r) : min(b - r, released)
        guard done < allowed else { return .deferUntil(now + pollMs, because: .notYetReleased) }
        if reason != .background && !aboutToBeSeen(instance, at: now) {
            return .deferUntil(now + pollMs, because: .noViewExpected)
        }
        spent[instance] = done + 1
        return .grant
    }

    /// Grants are counted by `decide`; pooled, reloads are what the pool learns from.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {
        guard pooled else { return }
        catchUp(now)
        pool.reloaded(instance, charged: charged, at: now)
    }

    public func didRender(instance: Int, changed: Bool, at now: SimTime) {
        guard pooled else { return }
        pool.rendered(instance, changed: changed, at: now)
    }

    public var observes: BudgetObservations { pooled ? [.views, .additions, .reloads, .renders] : [.views, .additions] }

    public func didAdd(instance: Int, at now: SimTime) {
        catchUp(now)
        let day = DailyViewCounts.day(of: now)
        addedDay[instance] = day
        budgets[instance] = dailyBudget(views: 0, days: 0)
        spent[instance] = 0
        capped[instance] = false
        backgroundRequests[instance] = 0
        setReserve(instance, day: day)
        forecast(instance, day: day)
        if pooled { pool.added(instance, budget: budgets[instance]) }
    }

    public func didView(instance: Int, at now: SimTime) {
        catchUp(now)
        personDay.recordView(at: now)
        if pooled { pool.viewed(instance, at: now) }
        let day = DailyViewCounts.day(of: now)
        views.record(instance, day: day)
        lastView[instance] = now
        let h = Int((now - day * Milliseconds.day) / Milliseconds.hour)
        let d = Int(day % 7)
        personByHour[h] += 1
        personTotal += 1
        byHour[instance * 24 + h] += 1
        byWeekdayHour[instance * 168 + d * 24 + h] += 1
        total[instance] += 1
        byWeekday[instance * 7 + d] += 1
    }
}
