import WidgetSimKernel

/// `view_weighted`: a daily budget between `min_per_day` and `max_per_day` that grows
/// with how often the instance is viewed, the maximum during a learning period, and a
/// minimum spacing between charged reloads.
///
/// Rule, for a charged request of instance `w` at `now` (day = ⌊now / 24 h⌋ from the
/// scenario's start):
/// - budget B = `max_per_day` while now < `learning_period` (for an instance added
///   during the run, `learning_period` after its addition, `didAdd`); otherwise, on day 0,
///   B = `min_per_day`; otherwise B = min + ⌊(max − min) × min(1, avg / `views_for_max`)⌋,
///   where avg is `w`'s views (reported by `didView`) over the previous min(7, day)
///   whole days (for an added instance, only days since its addition) divided by that
///   number of days. Computed in integers, so exact.
/// - with `budget_day: person` (the default): granted iff `w` has had fewer than B
///   granted charged reloads in the current budget day — budget days start at the
///   person's usual first view (`PersonDay`), and the whole of B is available at once,
///   spent greedily (MODEL §4 "Budget days") — and `w` has had no granted charged
///   reload yet or the latest was at least `min_spacing` ago. With `budget_day: paced`
///   (a design of our own, for comparison) the same days release B through the day in
///   proportion to the views expected so far: fewer than the part of B released so far.
///   With `budget_day: rolling`: fewer than B granted charged reloads of `w` in
///   (now − 24 h, now].
/// - a refusal is handled by `RefusalRule` (retried or dropped, as it says for the
///   request's reason). A refusal for spacing alone is retried when the spacing ends,
///   at last + `min_spacing`, not after the rule's delay; one for budget not yet
///   released (paced) when the next grant is released (`PersonDay.nextRelease`), and
///   no earlier than the spacing's end; when the daily budget is spent it is retried
///   after the rule's delay, and no earlier than the spacing's end.
/// - its reason code: `min_spacing` for spacing alone; otherwise `not_yet_released` when
///   only the part of B released so far is spent, else `learning_period` during the
///   learning period and `quota_exhausted` after it.
///
/// `max_per_day` below `min_per_day` is raised to it when the policy is made (parameter
/// specs validate each value alone, so the pair is reconciled here).
///
/// Source: Apple, "Keeping a widget up to date": the budget depends on how often and
/// when the widget is visible; a frequently viewed widget gets 40 to 70 refreshes a
/// day, every 15 to 60 minutes at most, and "widgets viewed infrequently receive
/// fewer". The defaults put that band where the views are: `views_for_max` 130 is the
/// most home-screen views a person makes in a day (Apple: 80 unlocks a day, up to 130;
/// MODEL §2), so an instance seen at every view of a typical day (80–90) gets 45–50 and
/// only one seen at every view of the heaviest users 70. Apple gives no figure for
/// infrequently viewed widgets: `min_per_day` 5 (an instance nobody views reloads about
/// every five hours) is our calibration, near the unofficial `dasd` rule of `ios_like`
/// (a budget of about the instance's daily views: 1 for none, 10 for 10), whereas an
/// instance seen 10 times a day gets 10 here. The learning period and 5 minute spacing
/// are our calibration too.
public final class ViewWeightedBudget: BudgetPolicy {
    public static let minPerDay = ParameterSpec(
        "min_per_day", .count(1 ... 1000), default: .number(5),
        "daily budget of an instance nobody views (ours: Apple says only that infrequently viewed widgets get fewer than 40–70)")
    public static let maxPerDay = ParameterSpec(
        "max_per_day", .count(1 ... 1000), default: .number(70),
        "daily budget of a much viewed instance and during the learning period (raised to min_per_day if below)")
    public static let viewsForMax = ParameterSpec(
        "views_for_max", .count(1 ... 100_000), default: .number(130),
        "average daily views of an instance at which its budget reaches max_per_day (130: Apple's most unlocks a day)")
    public static let learningPeriod = ParameterSpec(
        "learning_period", .duration(minimumMs: 0), default: .duration(3 * Milliseconds.day),
        "time from the start during which every instance gets max_per_day")
    public static let minSpacing = ParameterSpec(
        "min_spacing", .duration(minimumMs: 0), default: .duration(5 * Milliseconds.minute),
        "least time between two charged reloads of one instance")

    public static let budgetDay = ParameterSpec(
        "budget_day", .choice(["person", "paced", "rolling"]), default: .text("person"),
        "`person`: days from the person's usual first view, whole budget at once (spent greedily, as phones do); "
            + "`paced`: the same days, budget released with the views expected so far (ours); "
            + "`rolling`: any 24 h, whole budget at once")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "view_weighted",
        summary: "A daily budget between min and max (5–70) by the instance's average daily views over "
            + "the past week (45–50 for one seen at every view of a typical day), max during a learning period, "
            + "charged reloads at least 5 min apart; each day starts at the person's usual first view and its budget "
            + "is spent greedily.",
        source: "Apple, \"Keeping a widget up to date\" (40 to 70 refreshes a day for a frequently viewed widget, "
            + "fewer for one viewed infrequently; the 24-hour window tuned to the user's daily usage pattern); "
            + "the minimum of 5 is ours",
        refusals: [.minSpacing, .quotaExhausted, .learningPeriod, .notYetReleased],
        parameters: [minPerDay, maxPerDay, viewsForMax, learningPeriod, minSpacing] + RefusalRule.parameters
            + [budgetDay],
        make: { p in
            let low = p.count(ViewWeightedBudget.minPerDay)
            return ViewWeightedBudget(
                minPerDay: low, maxPerDay: max(low, p.count(ViewWeightedBudget.maxPerDay)),
                viewsForMax: p.count(ViewWeightedBudget.viewsForMax),
                learningPeriodMs: p.duration(ViewWeightedBudget.learningPeriod),
                minSpacingMs: p.duration(ViewWeightedBudget.minSpacing), refusal: RefusalRule(p),
                budgetDay: BudgetDayRule(rawValue: p.text(ViewWeightedBudget.budgetDay)) ?? .person)
        })

    public let minPerDay: Int
    public let maxPerDay: Int
    public let viewsForMax: Int
    public let learningPeriodMs: Int64
    public let minSpacingMs: Int64
    public let refusal: RefusalRule
    public let budgetDay: BudgetDayRule
    private let grants = GrantTimes()
    @exclusivity(unchecked) private var views = DailyViewCounts()
    @exclusivity(unchecked) private var personDay = PersonDay()
    /// Per instance: grants in the budget day `spentDay` (person days).
    @exclusivity(unchecked) private var spent: [Int] = []
    @exclusivity(unchecked) private var spentDay: [Int64] = []
    /// Each instance's end of learning: `learningPeriodMs`, or later when added later;
    /// and the day it was added (0: there from the start).
    @exclusivity(unchecked) private var learningEnd: [SimTime] = []
    @exclusivity(unchecked) private var addedDay: [Int64] = []

    public init(
        minPerDay: Int, maxPerDay: Int, viewsForMax: Int, learningPeriodMs: Int64, minSpacingMs: Int64,
        refusal: RefusalRule, budgetDay: BudgetDayRule = .person
    ) {
        precondition(minPerDay >= 1 && maxPerDay >= minPerDay, "need 1 ≤ min_per_day ≤ max_per_day")
        precondition(budgetDay != .midnight, "view_weighted days are rolling or start at the person's first view")
        self.budgetDay = budgetDay
        precondition(viewsForMax >= 1 && learningPeriodMs >= 0 && minSpacingMs >= 0)
        self.minPerDay = minPerDay
        self.maxPerDay = maxPerDay
        self.viewsForMax = viewsForMax
        self.learningPeriodMs = learningPeriodMs
        self.minSpacingMs = minSpacingMs
        self.refusal = refusal
    }

    public func begin(instances: Int) {
        grants.reset(instances: instances, depth: maxPerDay)
        views.reset(instances: instances)
        personDay.reset()
        spent.resetFlat(count: instances, to: 0)
        spentDay.resetFlat(count: instances, to: -1)
        learningEnd.resetFlat(count: instances, to: learningPeriodMs)
        addedDay.resetFlat(count: instances, to: 0)
    }

    public func didAdd(instance: Int, at now: SimTime) {
        learningEnd[instance] = now + learningPeriodMs
        addedDay[instance] = DailyViewCounts.day(of: now)
    }

    /// The budget B of `instance` at `now` (see the type's rule).
    public func budget(of instance: Int, at now: SimTime) -> Int {
        if now < learningEnd[instance] { return maxPerDay }
        let past = views.past(instance, before: DailyViewCounts.day(of: now), since: addedDay[instance])
        if past.days == 0 { return minPerDay }
        let full = viewsForMax * past.days
        return minPerDay + (maxPerDay - minPerDay) * min(past.views, full) / full
    }

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        var spacingEnd: SimTime? = nil
        if let last = grants.latest(instance, 1), now - last < minSpacingMs { spacingEnd = last + minSpacingMs }
        let b = budget(of: instance, at: now)
        let full: Bool
        if budgetDay != .rolling {
            _ = personDay.advance(to: now)
            if spentDay[instance] != personDay.day {
                spentDay[instance] = personDay.day
                spent[instance] = 0
            }
            full = spent[instance] >= (budgetDay == .paced ? personDay.released(b, at: now) : b)
        } else {
            full = grants.fullUntil(instance, count: b, window: Milliseconds.day, at: now) != nil
        }
        if spacingEnd == nil && !full {
            grants.record(instance, at: now)
            spent[instance] += 1
            return .grant
        }
        // The constraint that refused: the day's budget spent (in the learning period, its
        // larger budget), only the part released so far spent, or the spacing alone.
        let spentAll = budgetDay != .rolling ? spent[instance] >= b : full
        let why: RefusalReason = !full ? .minSpacing
            : !spentAll ? .notYetReleased : now < learningEnd[instance] ? .learningPeriod : .quotaExhausted
        if let spacingEnd, !full {
            return refusal.refuse(reason, at: now, because: why).retried(at: spacingEnd)
        }
        if !spentAll {
            let release = personDay.nextRelease(of: b, spent: spent[instance], after: now)
            return refusal.refuse(reason, at: now, because: why).retried(at: max(release, spacingEnd ?? release))
        }
        return refusal.refuse(reason, at: now, earliest: spacingEnd, because: why)
    }

    /// Grants are recorded by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [.views, .additions] }

    public func didView(instance: Int, at now: SimTime) {
        if budgetDay != .rolling { personDay.recordView(at: now) }
        views.record(instance, day: DailyViewCounts.day(of: now))
    }
}
