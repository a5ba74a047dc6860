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

    public init(smoothing: Double, weekdayWeight: Double, feedbackWeight: Double) {
        self.smoothing = smoothing
        self.weekdayWeight = weekdayWeight
        self.feedbackWeight = feedbackWeight
    }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
    }

    /// Member `m`'s score at local `hour` of `weekday`.
    func score(_ m: Int, hour: Int, weekday: Int, history: StackHistory) -> Double {
        let h = m * 24 + hour
        let wh = m * 168 + weekday * 24 + hour
        let byHour = Double(history.donationsByHour[h]) + feedbackWeight * Double(history.swipesToByHour[h])
        let byWeekday = Double(history.donationsByWeekdayHour[wh])
            + feedbackWeight * Double(history.swipesToByWeekdayHour[wh])
        return smoothing + byHour + weekdayWeight * byWeekday
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let hour = view.hour, weekday = view.weekday
        order.rankDescending(by: { m in
            score(m, hour: hour, weekday: weekday, history: history)
        }, scratch: &scratch)
    }
}
