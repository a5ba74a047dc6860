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

    let smoothing: Double
    let weekdayWeight: Double
    let feedbackWeight: Double
    private var scratch: [Double] = []
    /// The person's previous ranking (the person's order before their first view), and
    /// what it was computed from (the history is held, so no other can take its place).
    private var previous: [Int] = []
    private var previousHistory: StackHistory?
    private var previousInputs: (countsVersion: Int, hour: Int, weekday: Int)?

    public init(smoothing: Double, weekdayWeight: Double, feedbackWeight: Double) {
        self.smoothing = smoothing
        self.weekdayWeight = weekdayWeight
        self.feedbackWeight = feedbackWeight
    }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: 0 ..< members)
        previousHistory = nil
        previousInputs = nil
    }

    /// Member `m`'s score at local `hour` of `weekday`.
    func score(_ m: Int, hour: Int, weekday: Int, history: StackHistory) -> Double {
        // A term of weight 0 is left out: it would add exactly 0 (counts are finite and
        // never negative), and this runs for every member at every view.
        let h = m * 24 + hour
        var byHour = Double(history.donationsByHour[h])
        if feedbackWeight != 0 { byHour += feedbackWeight * Double(history.swipesToByHour[h]) }
        var score = smoothing + byHour
        if weekdayWeight != 0 {
            let wh = m * 168 + weekday * 24 + hour
            var byWeekday = Double(history.donationsByWeekdayHour[wh])
            if feedbackWeight != 0 { byWeekday += feedbackWeight * Double(history.swipesToByWeekdayHour[wh]) }
            score += weekdayWeight * byWeekday
        }
        return score
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let hour = view.hour, weekday = view.weekday
        // Scores change little from one view to the next, so the sort starts from the
        // previous ranking and usually has nothing to move. The start cannot change the
        // result: scores are never NaN and ties go to the lower index, a total order.
        let n = order.count
        precondition(previous.count == n, "rank called for a stack of another size than begin")
        for k in 0 ..< n { order[k] = previous[k] }
        // The scores depend on the counts, the hour and the weekday only: unchanged since
        // the previous view (often: donations are rarer than views), so is the ranking.
        let inputs = (history.countsVersion, hour, weekday)
        if previousHistory === history, let p = previousInputs, p == inputs { return }
        order.rankDescending(by: { m in
            score(m, hour: hour, weekday: weekday, history: history)
        }, scratch: &scratch)
        for k in 0 ..< n { previous[k] = order[k] }
        if previousHistory !== history { previousHistory = history }
        previousInputs = inputs
    }
}
