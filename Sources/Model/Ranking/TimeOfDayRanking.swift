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
    /// The stack's size, from `begin`.
    @exclusivity(unchecked) private var members = 0
    /// The person's latest rankings, best first, each `members` values in memory the
    /// policy owns and reuses from person to person (the person's order before they
    /// are first computed). With weekday weight 0 there is one per local hour: row
    /// `hour` at `best + hour * members`; otherwise one, row 0. `scores` holds the
    /// scores the latest was sorted by.
    @exclusivity(unchecked) private var best: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var scores: UnsafeMutablePointer<Double>
    @exclusivity(unchecked) private var capacity = 0
    /// What the rankings were computed from: the history (held, so no other can take its
    /// place); with weekday weight 0, its `hourVersions` entry for each row; otherwise
    /// its `countsVersion`, the hour and the weekday of row 0. `Int.min`: nothing yet.
    @exclusivity(unchecked) private var rankedHistory: StackHistory?
    @exclusivity(unchecked) private var rankedVersions: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var rankedHour = 0
    @exclusivity(unchecked) private var rankedWeekday = 0
    /// Changes whenever a ranking may change (its memory or its order): a caller that
    /// keeps the pointer `ranked` gave and what it asked may reuse them while this, the
    /// history, its `countsVersion`, the hour and the weekday stay the same.
    @exclusivity(unchecked) private(set) var generation = 0
    /// Rows kept: 24 with weekday weight 0, else 1.
    private var rows: Int { weekdayWeight == 0 ? 24 : 1 }

    public init(smoothing: Double, weekdayWeight: Double, feedbackWeight: Double) {
        self.smoothing = smoothing
        self.weekdayWeight = weekdayWeight
        self.feedbackWeight = feedbackWeight
        best = .allocate(capacity: 1)
        scores = .allocate(capacity: 1)
        rankedVersions = .allocate(capacity: 24)
    }

    deinit {
        best.deallocate()
        scores.deallocate()
        rankedVersions.deallocate()
    }

    public func begin(members: Int, stream: RandomStream) {
        if members > capacity {
            best.deallocate()
            scores.deallocate()
            capacity = members
            best = .allocate(capacity: rows * members)
            scores = .allocate(capacity: members)
        }
        self.members = members
        generation += 1
        for row in 0 ..< rows {
            for k in 0 ..< members { best[row * members + k] = k }
            rankedVersions[row] = .min
        }
        rankedHistory = nil
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
        let n = members
        precondition(order.count == n, "rank called for a stack of another size than begin")
        let best = ranked(hour: view.hour, weekday: view.weekday, history: history)
        order.withUnsafeMutableBufferPointer { order in
            for k in 0 ..< n { order[k] = best[k] }
        }
    }

    /// The order `rank` gives at local `hour` of `weekday`, in memory the policy owns:
    /// the `members` of `begin`, valid until the next call. The engine reads it there
    /// rather than through `rank`'s array.
    @inline(__always)
    func ranked(hour: Int, weekday: Int, history: StackHistory) -> UnsafePointer<Int> {
        if history !== rankedHistory {
            for row in 0 ..< rows { rankedVersions[row] = .min }
            rankedHistory = history
        }
        if weekdayWeight == 0 {
            // The scores at an hour depend on that hour's counts only: its ranking is
            // kept while they do not change (often: donations are rarer than views, and
            // the hour's ranking of the day before still holds when the hour comes back).
            let version = history.hourVersions[hour]
            let order = best + hour * members
            if version != rankedVersions[hour] {
                if history.lastChangeHour == hour && history.lastChangeSince == rankedVersions[hour] {
                    // One count of one member went up since: only that member's score
                    // changed, and it did not go down (a swipe weighs feedback_weight).
                    // A swipe with feedback weight 0 changes no score; a negative weight
                    // (only for a policy made in code: the parameter is 0 … 1000) lowers
                    // it, and the hour is sorted again.
                    if !history.lastChangeIsSwipe || feedbackWeight > 0 {
                        promote(history.lastChangeMember, in: order, hour: hour, weekday: weekday, history: history)
                    } else if feedbackWeight != 0 {
                        rerank(order, hour: hour, weekday: weekday, history: history)
                    }
                } else {
                    rerank(order, hour: hour, weekday: weekday, history: history)
                }
                rankedVersions[hour] = version
            }
            return UnsafePointer(order)
        }
        // The scores depend on the counts, the hour and the weekday only: unchanged since
        // the previous view, so is the ranking.
        let version = history.countsVersion
        if version != rankedVersions[0] || hour != rankedHour || weekday != rankedWeekday {
            rerank(best, hour: hour, weekday: weekday, history: history)
            rankedVersions[0] = version
            rankedHour = hour
            rankedWeekday = weekday
        }
        return UnsafePointer(best)
    }

    /// The order of the scores at `hour` of `weekday`, sorted afresh (to check the kept
    /// rankings against).
    func sortedAfresh(hour: Int, weekday: Int, history: StackHistory) -> [Int] {
        let scores = (0 ..< members).map { score($0, hour: hour, weekday: weekday, history: history) }
        return (0 ..< members).sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
    }

    /// Moves member `m` ahead in `order`, sorted by the scores at `hour` of `weekday` as
    /// they were before `m`'s score alone went up, past every member it now goes before:
    /// the order `rerank` gives for the scores now (the others keep their order).
    private func promote(
        _ m: Int, in order: UnsafeMutablePointer<Int>, hour: Int, weekday: Int, history: StackHistory
    ) {
        generation += 1
        var i = 0
        while order[i] != m { i += 1 }
        let sm = score(m, hour: hour, weekday: weekday, history: history)
        while i > 0 {
            let b = order[i - 1]
            let sb = score(b, hour: hour, weekday: weekday, history: history)
            if !(sm != sb ? sm > sb : m < b) { break }
            order[i] = b
            order[i - 1] = m
            i -= 1
        }
    }

    /// Sorts `order` by the scores at `hour` of `weekday`, highest first, equal scores to
    /// the lower member index: the order of `Array.rankDescending(by:scratch:)`.
    /// Scores change little from one ranking of an hour to the next, so the insertion
    /// sort starts from the previous ranking and usually has nothing to move. The start
    /// cannot change the result: scores are never NaN and ties go to the lower index, a
    /// total order.
    private func rerank(_ order: UnsafeMutablePointer<Int>, hour: Int, weekday: Int, history: StackHistory) {
        let n = members
        generation += 1
        let s = scores
        if weekdayWeight == 0 && feedbackWeight == 0 {
            history.donationsByHour.withUnsafeBufferPointer { d in
                for m in 0 ..< n { s[m] = smoothing + Double(d[m * 24 + hour]) }
            }
        } else {
            for m in 0 ..< n { s[m] = score(m, hour: hour, weekday: weekday, history: history) }
        }
        insertionRankDescending(order, count: n, scores: s)
    }
}
