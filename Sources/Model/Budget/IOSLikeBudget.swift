import WidgetSimKernel

/// `ios_like` *(unofficial)*: a per-instance daily balance set from the instance's
/// recent views, capped per instance and in total, refilled every 24 h; a request at
/// zero balance is refused and retried after 900 s.
///
/// Rule:
/// - with `budget_day: person` (the default), budget days start at the person's usual
///   first view of the day (`PersonDay`) and the whole balance is available at once,
///   spent greedily (MODEL §4 "Budget days"): an instance asking more often than its
///   budget allows runs dry before the day ends, in the evening for one viewed all day
///   and asking every 15 minutes, and stays stale until the next day's start or a free
///   reload. With `budget_day: paced` (a design of our own, for comparison) the same
///   days release each instance's budget through the day in proportion to the views
///   expected so far: a charged request is granted only while the instance has spent
///   fewer than the released part. With `budget_day: midnight`, days start at every
///   24 h boundary t = k · 24 h from the scenario's start, the whole balance at once.
/// - at the start and at the start of every budget day, each instance's balance is set
///   (not added) to its budget b. On day 0 there is no
///   history and b = `initial_per_day`. Later, with v the instance's average daily
///   views (from `didView`) over the previous min(7, k) whole days,
///   b = v if v ≤ `linear_up_to`, else `linear_up_to` + 2 · √(v − `linear_up_to`)
///   (our sub-linear choice), rounded down. b is clamped to [1, `per_instance_max`]
///   (on day 0 too). If the budgets of the person's instances sum to S >
///   `total_per_day`, each becomes max(1, ⌊b · `total_per_day` / S⌋).
///   An instance added during the run (`didAdd`) has no history before: its balance
///   is set to the day-0 budget at its addition, and its averages count only whole
///   days since then.
///   The refill happens lazily, for all instances at once, on the first `decide` (or,
///   for midnight days, `didView`) at or after a boundary (views at the boundary
///   instant count in the new day, after the refill). The views averaged are always
///   counted by simulation day.
/// - a charged request is granted iff the instance's balance is ≥ 1, which spends 1.
/// - at zero it is refused through `RefusalRule` with no earliest time; both retries
///   default to 900 s (15 min), as `dasd` reschedules a refused refresh. The reason
///   code is `total_cap` when the total cap scaled the instance's budget of the day
///   down, else `quota_exhausted`.
/// - paced, a request refused while the balance is not spent but its part released so
///   far is (`not_yet_released`) is retried when the next grant is released
///   (`PersonDay.nextRelease`), not after the retry delay; dropped when the rule drops.
///
/// Source: calibration from a decompiled iOS 26.1 `dasd` (unofficial, reverse-engineered):
/// budget ≈ 7-day average daily views, 1:1 up to 30, sub-linear above, per widget in
/// [1, 50], 750 a day in total, refilled every 24 h, retry in 900 s.
public final class IOSLikeBudget: BudgetPolicy {
    public static let initialPerDay = ParameterSpec(
        "initial_per_day", .count(1 ... 10_000), default: .number(40),
        "budget of every instance on day 0, before any view history (clamped to per_instance_max)")
    public static let linearUpTo = ParameterSpec(
        "linear_up_to", .count(0 ... 10_000), default: .number(30),
        "average daily views up to which the budget equals the views; above, it grows as a square root")
    public static let perInstanceMax = ParameterSpec(
        "per_instance_max", .count(1 ... 10_000), default: .number(50),
        "largest daily budget of one instance")
    public static let totalPerDay = ParameterSpec(
        "total_per_day", .count(1 ... 1_000_000), default: .number(750),
        "largest sum of the daily budgets of one person's instances; larger sums are scaled down")
    public static let timelineRetry = ParameterSpec(
        RefusalRule.timelineRetry.name, .durationOrDrop, default: .duration(15 * Milliseconds.minute),
        "delay before a refused timeline request is asked again, or `drop`")
    public static let backgroundRetry = ParameterSpec(
        RefusalRule.backgroundRetry.name, .durationOrDrop, default: .duration(15 * Milliseconds.minute),
        "delay before a refused background request is asked again, or `drop`")

    public static let budgetDay = ParameterSpec(
        "budget_day", .choice(["person", "paced", "midnight"]), default: .text("person"),
        "`person`: days from the person's usual first view, whole budget at once (spent greedily, as phones do); "
            + "`paced`: the same days, budget released with the views expected so far (ours); "
            + "`midnight`: days from midnight, whole budget at once")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "ios_like",
        summary: "(unofficial) Daily budget ≈ 7-day average daily views (1:1 up to 30, square root above), "
            + "in [1, 50] per instance and 750 a day in total, refilled every 24 h from the person's usual first view and "
            + "spent greedily; at zero, retried in 900 s.",
        source: "calibration from a decompiled iOS 26.1 `dasd` (reverse-engineered, unofficial); days that follow "
            + "the person's: Apple, WidgetKit \"tunes the 24-hour window to the user's daily usage pattern\"",
        unofficial: true,
        refusals: [.quotaExhausted, .totalCap, .notYetReleased],
        parameters: [initialPerDay, linearUpTo, perInstanceMax, totalPerDay, timelineRetry, backgroundRetry, budgetDay],
        make: { p in
            IOSLikeBudget(
                initialPerDay: p.count(IOSLikeBudget.initialPerDay), linearUpTo: p.count(IOSLikeBudget.linearUpTo),
                perInstanceMax: p.count(IOSLikeBudget.perInstanceMax),
                totalPerDay: p.count(IOSLikeBudget.totalPerDay),
                refusal: RefusalRule(
                    timelineRetryMs: p.retry(IOSLikeBudget.timelineRetry),
                    backgroundRetryMs: p.retry(IOSLikeBudget.backgroundRetry)),
                budgetDay: BudgetDayRule(rawValue: p.text(IOSLikeBudget.budgetDay)) ?? .person)
        })

    public let initialPerDay: Int
    public let linearUpTo: Int
    public let perInstanceMax: Int
    public let totalPerDay: Int
    public let refusal: RefusalRule
    public let budgetDay: BudgetDayRule
    @exclusivity(unchecked) private var views = DailyViewCounts()
    @exclusivity(unchecked) private var personDay = PersonDay()
    /// Each instance's budget and balance for the current period.
    @exclusivity(unchecked) private var budgets: [Int] = []
    @exclusivity(unchecked) private var balances: [Int] = []
    /// Whether the total cap scaled each instance's budget of the current period down.
    @exclusivity(unchecked) private var capped: [Bool] = []
    /// The day each instance was added (0: there from the start).
    @exclusivity(unchecked) private var addedDay: [Int64] = []
    /// The day whose balances `balances` holds.
    @exclusivity(unchecked) private var period: Int64 = 0

    public init(
        initialPerDay: Int, linearUpTo: Int, perInstanceMax: Int, totalPerDay: Int, refusal: RefusalRule,
        budgetDay: BudgetDayRule = .person
    ) {
        precondition(initialPerDay >= 1 && linearUpTo >= 0 && perInstanceMax >= 1 && totalPerDay >= 1)
        precondition(budgetDay != .rolling, "ios_like days start at midnight or at the person's first view")
        self.budgetDay = budgetDay
        self.initialPerDay = initialPerDay
        self.linearUpTo = linearUpTo
        self.perInstanceMax = perInstanceMax
        self.totalPerDay = totalPerDay
        self.refusal = refusal
    }

    public func begin(instances: Int) {
        views.reset(instances: instances)
        personDay.reset()
        budgets.resetFlat(count: instances, to: 0)
        balances.resetFlat(count: instances, to: 0)
        capped.resetFlat(count: instances, to: false)
        addedDay.resetFlat(count: instances, to: 0)
        refill(day: 0)
    }

    /// The budget of one instance with `views` views over `days` past days, before
    /// the total cap.
    public func dailyBudget(views: Int, days: Int) -> Int {
        Self.dailyBudget(views: views, days: days, initialPerDay: initialPerDay,
                         linearUpTo: linearUpTo, perInstanceMax: perInstanceMax)
    }

    /// The daily budget rule with its parameters: `initialPerDay` without history, else
    /// the average daily views up to `linearUpTo` and a square root above, between 1 and
    /// `perInstanceMax`. `predictive` spends a budget of the same size.
    public static func dailyBudget(views: Int, days: Int, initialPerDay: Int,
                                   linearUpTo: Int, perInstanceMax: Int) -> Int {
        var b = initialPerDay
        if days > 0 {
            let v = Double(views) / Double(days)
            let l = Double(linearUpTo)
            b = Int((v <= l ? v : l + 2 * (v - l).squareRoot()).rounded(.down))
        }
        return min(perInstanceMax, max(1, b))
    }

    /// Sets every balance to its budget for `day`, scaled down to the total cap.
    private func refill(day: Int64) {
        period = day
        var sum = 0
        for i in balances.indices {
            let past = views.past(i, before: day, since: addedDay[i])
            balances[i] = dailyBudget(views: past.views, days: past.days)
            capped[i] = false
            sum += balances[i]
        }
        if sum > totalPerDay {
            for i in balances.indices {
                let scaled = max(1, balances[i] * totalPerDay / sum)
                capped[i] = scaled < balances[i]
                balances[i] = scaled
            }
        }
        for i in balances.indices { budgets[i] = balances[i] }
    }

    @inline(__always) private func catchUp(_ now: SimTime) {
        let day = DailyViewCounts.day(of: now)
        if day > period { refill(day: day) }
    }

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        if budgetDay != .midnight {
            if personDay.advance(to: now) { refill(day: DailyViewCounts.day(of: now)) }
            if budgetDay == .paced && balances[instance] >= 1 {
                let b = budgets[instance], spent = b - balances[instance]
                if spent >= personDay.released(b, at: now) {
                    return refusal.refuse(reason, at: now, because: .notYetReleased)
                        .retried(at: personDay.nextRelease(of: b, spent: spent, after: now))
                }
            }
        } else {
            catchUp(now)
        }
        guard balances[instance] >= 1 else {
            return refusal.refuse(reason, at: now, because: capped[instance] ? .totalCap : .quotaExhausted)
        }
        balances[instance] -= 1
        return .grant
    }

    /// Grants are spent by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [.views, .additions] }

    public func didAdd(instance: Int, at now: SimTime) {
        if budgetDay != .midnight {
            if personDay.advance(to: now) { refill(day: DailyViewCounts.day(of: now)) }
        } else {
            catchUp(now)
        }
        addedDay[instance] = DailyViewCounts.day(of: now)
        balances[instance] = dailyBudget(views: 0, days: 0)
        budgets[instance] = balances[instance]
    }

    public func didView(instance: Int, at now: SimTime) {
        if budgetDay != .midnight { personDay.recordView(at: now) } else { catchUp(now) }
        views.record(instance, day: DailyViewCounts.day(of: now))
    }
}
