import WidgetSimKernel

/// `predictive`: `ios_like`'s daily budget, spent where the instance's own views are
/// forecast instead of first come, first served. Each day's charged reloads follow the
/// predicted cumulative share of that day's views, a little ahead of them, and a reserve
/// is kept for pushes (background requests: the content has just changed).
///
/// Rule:
/// - the daily budget B of each instance is `ios_like`'s, with the same parameters and
///   defaults: `initial_per_day` on day 0, then from the instance's average daily views
///   over the previous min(7, k) days (1:1 up to `linear_up_to`, a square root above),
///   clamped to [1, `per_instance_max`], scaled down when the person's budgets sum to
///   more than `total_per_day`; set at every 24 h boundary from the scenario's start
///   (day k). A grant spends 1; at most B are granted in a day.
/// - the view forecast: the instance's views (`didView`) counted by hour of the day and
///   by weekday and hour (in the scenario's 24 h days, updated at every view), shrunk
///   toward the person's views of all instances by hour, and that toward a flat day:
///
///       Q(h)    = (P(h) + person_prior / 24) / (P + person_prior)
///       q(h)    = (V(h) + instance_prior · Q(h)) / (V + instance_prior)
///       q(d, h) = (V(d, h) + weekday_prior · q(h)) / (V(d) + weekday_prior)
///
///   with P, V counts of the person's and the instance's views before today (P(h) in
///   hour h, V(d) on weekday d, ...), d today's weekday (in days since the start). The
///   day's plan is fixed when the day starts: today's views shape tomorrow's. F(t) is
///   the share of today's forecast views before t (linear within an hour; 1 from the
///   end of the day on).
/// - the day's reserve for pushes R = min(round(`push_reserve` · B), ⌈n⌉), with n the
///   instance's background requests (granted or not) per day over its past days; on
///   its first day n is unknown and R = round(`push_reserve` · B). A timeline request at
///   `now` is granted iff the grants so far today are fewer than
///   ⌈(B − R) · F + R · F²⌉ with F = F(now + `lookahead`) (and than B); a background
///   request iff they are fewer than that plus R (and than B). So the day's reloads
///   come just before the forecast views, a push may run up to R reloads ahead of the
///   plan, the part of the reserve no push took is released as the day's views pass
///   (all of B by the day's end), and an instance whose app sends no pushes keeps no
///   reserve: its plan is ⌈B · F⌉, even where the views are.
/// - a refused request is deferred to the first time the same test would pass (found
///   from F, at the latest the next day's start; a minute on where rounding puts that
///   time at or before now); never dropped. Reason: `not_yet_released` while the day's
///   budget is not all spent, else `total_cap` when the budget was scaled down to the
///   person's total cap, else `quota_exhausted`.
///
/// Source: ours (forecast-driven pacing of a fixed daily budget; the budget itself is
/// the unofficial `ios_like` calibration, so its size is comparable).
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
        "largest share of the daily budget kept for background requests (pushes), which may spend it ahead of the plan")
    public static let lookahead = ParameterSpec(
        "lookahead", .duration(minimumMs: 0), default: .duration(20 * Milliseconds.minute),
        "how far ahead of the forecast views the reloads are spent")
    public static let personPrior = ParameterSpec(
        "person_prior", .number(0 ... 1_000_000), default: .number(24),
        "pseudo-views of a flat day behind the person's hourly view profile")
    public static let instancePrior = ParameterSpec(
        "instance_prior", .number(0 ... 1_000_000), default: .number(50),
        "pseudo-views of the person's profile behind the instance's hourly profile")
    public static let weekdayPrior = ParameterSpec(
        "weekday_prior", .number(0 ... 1_000_000), default: .number(100),
        "pseudo-views of the instance's hourly profile behind its profile for one weekday")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "predictive",
        summary: "ios_like's daily budget, spent just ahead of the instance's forecast views (hour and weekday "
            + "profile, learned online), with a reserve for pushes; refusals wait for the plan.",
        source: "ours (forecast-paced spending of the ios_like budget size)",
        refusals: [.notYetReleased, .quotaExhausted, .totalCap],
        parameters: [
            initialPerDay, linearUpTo, perInstanceMax, totalPerDay, pushReserve, lookahead, personPrior,
            instancePrior, weekdayPrior,
        ],
        make: { p in
            PredictiveBudget(
                initialPerDay: p.count(initialPerDay), linearUpTo: p.count(linearUpTo),
                perInstanceMax: p.count(perInstanceMax), totalPerDay: p.count(totalPerDay),
                pushReserve: p.number(pushReserve), lookaheadMs: p.duration(lookahead),
                personPrior: p.number(personPrior), instancePrior: p.number(instancePrior),
                weekdayPrior: p.number(weekdayPrior))
        })

    public let initialPerDay: Int
    public let linearUpTo: Int
    public let perInstanceMax: Int
    public let totalPerDay: Int
    public let pushReserve: Double
    public let lookaheadMs: Int64
    public let personPrior: Double
    public let instancePrior: Double
    public let weekdayPrior: Double

    private var instances = 0
    private var views = DailyViewCounts()
    /// Each instance's budget and grants for the current day.
    private var budgets: [Int] = []
    private var spent: [Int] = []
    /// Whether each instance's budget today was scaled down to the person's total cap.
    private var capped: [Bool] = []
    /// The day each instance was added (0: there from the start).
    private var addedDay: [Int64] = []
    /// Each instance's background requests since it was added, and its reserve today.
    private var backgroundRequests: [Int] = []
    private var reserves: [Int] = []
    /// The day `budgets` and `spent` are for.
    private var period: Int64 = 0
    /// Views by hour of the person (24), of each instance by hour (`i * 24 + h`) and by
    /// weekday and hour (`i * 168 + d * 24 + h`), and each instance's total and per weekday.
    private var personByHour: [Double] = []
    private var personTotal = 0.0
    private var byHour: [Double] = []
    private var byWeekdayHour: [Double] = []
    private var total: [Double] = []
    private var byWeekday: [Double] = []
    /// Each instance's forecast share of each hour of the current day (`i * 24 + h`),
    /// fixed when the day starts.
    private var shares: [Double] = []

    public init(
        initialPerDay: Int, linearUpTo: Int, perInstanceMax: Int, totalPerDay: Int, pushReserve: Double,
        lookaheadMs: Int64, personPrior: Double, instancePrior: Double, weekdayPrior: Double
    ) {
        precondition(initialPerDay >= 1 && linearUpTo >= 0 && perInstanceMax >= 1 && totalPerDay >= 1)
        precondition(pushReserve >= 0 && pushReserve <= 1 && lookaheadMs >= 0)
        precondition(personPrior >= 0 && instancePrior >= 0 && weekdayPrior >= 0)
        self.initialPerDay = initialPerDay
        self.linearUpTo = linearUpTo
        self.perInstanceMax = perInstanceMax
        self.totalPerDay = totalPerDay
        self.pushReserve = pushReserve
        self.lookaheadMs = lookaheadMs
        self.personPrior = personPrior
        self.instancePrior = instancePrior
        self.weekdayPrior = weekdayPrior
    }

    public func begin(instances: Int) {
        self.instances = instances
        views.reset(instances: instances)
        budgets.resetFlat(count: instances, to: 0)
        spent.resetFlat(count: instances, to: 0)
        capped.resetFlat(count: instances, to: false)
        addedDay.resetFlat(count: instances, to: 0)
        backgroundRequests.resetFlat(count: instances, to: 0)
        reserves.resetFlat(count: instances, to: 0)
        personByHour.resetFlat(count: 24, to: 0)
        personTotal = 0
        byHour.resetFlat(count: instances * 24, to: 0)
        byWeekdayHour.resetFlat(count: instances * 168, to: 0)
        total.resetFlat(count: instances, to: 0)
        byWeekday.resetFlat(count: instances * 7, to: 0)
        shares.resetFlat(count: instances * 24, to: 0)
        refill(day: 0)
    }

    // MARK: - The daily budget (as ios_like)

    /// The budget of one instance with `views` views over `days` past days, before the
    /// total cap.
    public func dailyBudget(views: Int, days: Int) -> Int {
        IOSLikeBudget.dailyBudget(views: views, days: days, initialPerDay: initialPerDay,
                                  linearUpTo: linearUpTo, perInstanceMax: perInstanceMax)
    }

    /// `instance`'s budget for the current day (after the last request or view).
    public func budget(of instance: Int) -> Int { budgets[instance] }

    private func refill(day: Int64) {
        period = day
        var sum = 0
        for i in 0 ..< instances {
            let past = views.past(i, before: day, since: addedDay[i])
            budgets[i] = dailyBudget(views: past.views, days: past.days)
            spent[i] = 0
            sum += budgets[i]
            forecast(i, day: day)
        }
        for i in 0 ..< instances {
            let before = budgets[i]
            if sum > totalPerDay { budgets[i] = max(1, before * totalPerDay / sum) }
            capped[i] = budgets[i] < before
        }
        for i in 0 ..< instances { setReserve(i) }
    }

    /// `instance`'s reserve for pushes today (see the rule).
    private func setReserve(_ instance: Int) {
        let most = Int((pushReserve * Double(budgets[instance])).rounded())
        let days = period - addedDay[instance]
        guard days > 0 else {
            reserves[instance] = most
            return
        }
        let perDay = (Int64(backgroundRequests[instance]) + days - 1) / days
        reserves[instance] = min(most, Int(perDay))
    }

    /// `instance`'s reserve for pushes today.
    public func reserve(of instance: Int) -> Int { reserves[instance] }

    @inline(__always) private func catchUp(_ now: SimTime) {
        let day = DailyViewCounts.day(of: now)
        if day > period { refill(day: day) }
    }

    // MARK: - The forecast

    /// Sets `instance`'s forecast share of each hour of day `day` (they sum to 1).
    private func forecast(_ instance: Int, day: Int64) {
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

    /// F(t): the share of `instance`'s forecast before `t` in the day starting at
    /// `dayStart`; 1 from the day's end on.
    public func cumulative(_ instance: Int, at t: SimTime, dayStart: SimTime) -> Double {
        let into = t - dayStart
        if into >= Milliseconds.day { return 1 }
        if into <= 0 { return 0 }
        let h = Int(into / Milliseconds.hour)
        var f = 0.0
        let s = instance * 24
        for k in 0 ..< h { f += shares[s + k] }
        return f + shares[s + h] * Double(into - Int64(h) * Milliseconds.hour) / Double(Milliseconds.hour)
    }

    /// The first time τ ≥ `dayStart` with F(τ) > `target`, or nil when F never exceeds
    /// it (F reaches 1 only at the day's end, whatever the rounding of the shares' sum).
    func firstTime(_ instance: Int, above target: Double, dayStart: SimTime) -> SimTime? {
        if target < 0 { return dayStart }
        if target >= 1 { return nil }
        var f = 0.0
        for h in 0 ..< 24 {
            let share = shares[instance * 24 + h]
            let next = f + share
            if next > target && share > 0 {
                let into = Double(Milliseconds.hour) * (target - f) / share
                // The first whole millisecond strictly past the crossing.
                return dayStart + Int64(h) * Milliseconds.hour + Int64(into.rounded(.down)) + 1
            }
            f = next
        }
        return nil
    }

    // MARK: - Requests

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        catchUp(now)
        let dayStart = period * Milliseconds.day
        if reason == .background { backgroundRequests[instance] += 1 }
        let b = budgets[instance]
        let reserve = reserves[instance]
        let planned = Double(b - reserve), held = Double(reserve)
        let ahead = reason == .background ? reserve : 0
        let done = spent[instance]
        if done < b {
            let f = cumulative(instance, at: now + lookaheadMs, dayStart: dayStart)
            let allowed = Int((planned * f + held * f * f).rounded(.up)) + ahead
            if done < allowed {
                spent[instance] = done + 1
                return .grant
            }
            // Allowed once planned · F + held · F² > done − ahead (F = F(τ + lookahead)):
            // F above the positive root of that quadratic.
            let target = Double(done - ahead)
            let root = held > 0
                ? (-planned + (planned * planned + 4 * held * target).squareRoot()) / (2 * held)
                : target / planned
            if let tau = firstTime(instance, above: root, dayStart: dayStart) {
                // Rounding may put the crossing at or before now: then ask again a minute on.
                let at = tau - lookaheadMs
                if at < dayStart + Milliseconds.day {
                    return .deferUntil(at > now ? at : now + Milliseconds.minute, because: .notYetReleased)
                }
            }
        }
        // The day's plan is spent, or all of the day's budget.
        let why: RefusalReason = done < b ? .notYetReleased : capped[instance] ? .totalCap : .quotaExhausted
        return .deferUntil(max(now + 1, dayStart + Milliseconds.day), because: why)
    }

    /// Grants are counted by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public func didAdd(instance: Int, at now: SimTime) {
        catchUp(now)
        addedDay[instance] = DailyViewCounts.day(of: now)
        budgets[instance] = dailyBudget(views: 0, days: 0)
        spent[instance] = 0
        capped[instance] = false
        backgroundRequests[instance] = 0
        setReserve(instance)
        forecast(instance, day: period)
    }

    public func didView(instance: Int, at now: SimTime) {
        catchUp(now)
        let day = DailyViewCounts.day(of: now)
        views.record(instance, day: day)
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
