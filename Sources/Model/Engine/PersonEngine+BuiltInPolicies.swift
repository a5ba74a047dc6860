import WidgetSimKernel

/// The engine's direct routes to two built-in policies, taken when the pair runs them:
/// `daily_quota`'s decision made in line at the request (the method the protocol call
/// reaches, without its dispatch), and `time_of_day`'s order read in place (the order
/// its `rank` copies out). The only place in the engine that names a built-in policy's
/// type.
struct BuiltInPolicies {
    /// The budget, when it is the built-in `daily_quota`: asked directly (`decide`), so
    /// its decision is made in line at the request rather than through the protocol.
    /// The engine's `budget` holds it, so it is kept unmanaged.
    let dailyQuota: Unmanaged<DailyQuotaBudget>?
    /// The ranking, when it is the built-in `time_of_day`: the engine reads its order
    /// in place (`ranked`) rather than through `rank`'s array. The engine's `ranking`
    /// holds it, so it is kept unmanaged: not retained again at each view.
    let timeOfDay: Unmanaged<TimeOfDayRanking>?
    /// `timeOfDay`'s latest order, and what it was asked for: its `generation`, the
    /// history's `countsVersion`, the hour and the weekday (in one number, the hour in
    /// its low byte: `PersonEngine.hourAndWeekday`). While they are the same, so
    /// is its answer, read here without calling it (`generation` −1: none yet, which no
    /// generation matches, so that the order, an aligned address never read until then,
    /// is not tested for being set at every view).
    var inPlaceOrder = UnsafePointer<Int>(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    var inPlaceGeneration = -1
    var inPlaceVersion = 0
    var inPlaceHourAndWeekday: UInt16 = 0

    init(budget: any BudgetPolicy, ranking: any RankingPolicy) {
        dailyQuota = (budget as? DailyQuotaBudget).map { Unmanaged.passUnretained($0) }
        timeOfDay = (ranking as? TimeOfDayRanking).map { Unmanaged.passUnretained($0) }
    }

    /// Whether the ranking's order can be read in place (`rankedInPlace`).
    var ranksInPlace: Bool { timeOfDay != nil }
}

extension PersonEngine {
    /// The budget's decision on a charged request of `w`.
    @inline(__always)
    func decide(_ w: Int, _ reason: ReloadReason, at t: SimTime) -> BudgetDecision {
        if let dailyQuota = builtIn.dailyQuota {
            return dailyQuota._withUnsafeGuaranteedRef { $0.decide(instance: w, reason: reason, at: t) }
        }
        return budget.decide(instance: w, reason: reason, at: t)
    }

    /// The ranking's order at local `hour` of `weekday`, when it is `time_of_day`
    /// (`BuiltInPolicies.ranksInPlace`): its `ranked`, asked only when something it
    /// depends on changed since the previous view.
    @inline(__always)
    func rankedInPlace(hourAndWeekday: UInt16) -> UnsafePointer<Int> {
        let tod = builtIn.timeOfDay.unsafelyUnwrapped
        let version = history.countsVersion
        let hour = Int(hourAndWeekday & 0xFF), weekday = Int(hourAndWeekday >> 8)
        if version == builtIn.inPlaceVersion, hourAndWeekday == builtIn.inPlaceHourAndWeekday,
           tod._withUnsafeGuaranteedRef({ $0.generation }) == builtIn.inPlaceGeneration {
            let order = builtIn.inPlaceOrder
            assert(builtIn.inPlaceGeneration >= 0, "an order read before any was kept")
            assert(Array(UnsafeBufferPointer(start: order, count: members.count))
                   == tod._withUnsafeGuaranteedRef { $0.sortedAfresh(hour: hour, weekday: weekday, history: history) })
            return order
        }
        let order = tod._withUnsafeGuaranteedRef { $0.ranked(hour: hour, weekday: weekday, history: history) }
        assert(Array(UnsafeBufferPointer(start: order, count: members.count))
               == tod._withUnsafeGuaranteedRef { $0.sortedAfresh(hour: hour, weekday: weekday, history: history) })
        builtIn.inPlaceOrder = order
        builtIn.inPlaceGeneration = tod._withUnsafeGuaranteedRef { $0.generation }
        builtIn.inPlaceVersion = version
        builtIn.inPlaceHourAndWeekday = hourAndWeekday
        return order
    }
}
