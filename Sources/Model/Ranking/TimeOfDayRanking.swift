import WidgetSimSampling

/// `time_of_day`: members whose app was used (donations) and wanted (swipes to it) at
/// this local hour, and this weekday and hour, come first. Each member scores
///
///     smoothing + D[m, h] + feedback_weight · S[m, h]
///       + weekday_weight · (D[m, wd, h] + feedback_weight · S[m, wd, h])
///
/// with D the donations and S the swipes that ended on the member, counted by local hour
/// h (and by weekday wd and hour) over everything before the view; highest first, equal
/// scores in the person's order. With smoothing 1 and both weights 0 the score is
/// exactly 1 + the member's donations in the same local hour on earlier days and
/// earlier today.
///
/// Source: the Smart Stack puts the right widget on top at the right time of day with
/// on-device intelligence (Apple, WWDC20 "Meet WidgetKit"), learned from the intents
/// people donate (WWDC21 "Add intelligence to your widgets"); the formula is this
/// project's.
public final class TimeOfDayRanking: RankingPolicy {
    public static let smoothing = ParameterSpec(
        "smoothing", .number(0 ... 1000), default: .number(1),
        "pseudo-count added to every member's score")
    public static let weekdayWeight = ParameterSpec(
        "weekday_weight", .number(0 ... 1000), default: .number(0.5),
        "weight of the counts for the same weekday and hour")
    public static let feedbackWeight = ParameterSpec(
        "feedback_weight", .number(0 ... 1000), default: .number(1),
        "weight of a swipe to the member, relative to a donation")

    public static let descriptor = RankingPolicyDescriptor(
        name: "time_of_day",
        summary: "Donations and swipes to each member in this local hour (and weekday), smoothed; highest first.",
        source: "Smart Stack shows the right widget at the right time of day from donated intents (Apple, WWDC20 \"Meet WidgetKit\", WWDC21 \"Add intelligence to your widgets\")",
        parameters: [smoothing, weekdayWeight, feedbackWeight],
        make: { p in
            TimeOfDayRanking(
                smoothing: p.number(smoothing), weekdayWeight: p.number(weekdayWeight),
                feedbackWeight: p.number(feedbackWeight))
        })

    /// It reads the history alone (its counts of donations and swipes).
    public var observes: RankingObservations { [] }

    let smoothing: Double
    let weekdayWeight: Double
    let feedbackWeight: Double

    /// The person's latest rankings, kept from view to view while what they come from
    /// stays the same (`TimeOfDayRanking+Cache.swift`).
    @exclusivity(unchecked) var cache: Cache

    public init(smoothing: Double, weekdayWeight: Double, feedbackWeight: Double) {
        self.smoothing = smoothing
        self.weekdayWeight = weekdayWeight
        self.feedbackWeight = feedbackWeight
        cache = Cache(rows: weekdayWeight == 0 ? 24 : 1)
    }

    deinit { cache.deallocate() }

    public func begin(members: Int, stream: RandomStream) {
        cache.begin(members: members)
    }

    /// Member `m`'s score at local `hour` of `weekday`.
    func score(_ m: Int, hour: Int, weekday: Int, history: StackHistory) -> Double {
        // A term of weight 0 is left out: it would add exactly 0 (counts are finite and
        // never negative), and this runs for every member at every view.
        let h = m * 24 + hour
        var byHour = Double(history.donationsByHourFlat[h])
        if feedbackWeight != 0 { byHour += feedbackWeight * Double(history.swipesToByHour[h]) }
        var score = smoothing + byHour
        if weekdayWeight != 0 {
            let wh = m * 168 + weekday * 24 + hour
            var byWeekday = Double(history.donationsByWeekdayHourFlat[wh])
            if feedbackWeight != 0 { byWeekday += feedbackWeight * Double(history.swipesToByWeekdayHour[wh]) }
            score += weekdayWeight * byWeekday
        }
        return score
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let n = cache.members
        precondition(order.count == n, "rank called for a stack of another size than begin")
        let best = ranked(hour: view.hour, weekday: view.weekday, history: history)
        order.withUnsafeMutableBufferPointer { order in
            for k in 0 ..< n { order[k] = best[k] }
        }
    }

    /// The order of the scores at `hour` of `weekday`, sorted afresh (to check the kept
    /// rankings against).
    func sortedAfresh(hour: Int, weekday: Int, history: StackHistory) -> [Int] {
        let members = cache.members
        let scores = (0 ..< members).map { score($0, hour: hour, weekday: weekday, history: history) }
        return (0 ..< members).sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
    }
}
