import WidgetSimKernel

/// Everything observable about one person's stack that ranking policies may use
/// (MODEL §5): donations, feedback, views and each member's relevance, current and
/// past. The engine writes it (its writers are internal to this module); policies
/// only read it. Never holds ground truth.
///
/// Counts by hour are flat arrays indexed `member * 24 + hour`; by weekday and hour,
/// `member * 168 + weekday * 24 + hour`.
public final class StackHistory {
    /// The number of stack members, numbered `0 ..< members` in the person's order.
    @exclusivity(unchecked) public private(set) var members: Int = 0

    /// Time of each member's latest donation, or nil.
    public var lastDonation: [SimTime?] { lastDonationArray.array(of: lastDonationFlat, version: countsVersion) }
    /// Donations of each member's app so far.
    public var donations: [Int] { donationsArray.array(of: donationsFlat, version: countsVersion) }
    /// Donations by member and local hour (`member * 24 + hour`).
    public var donationsByHour: [Int] { donationsByHourArray.array(of: donationsByHourFlat, version: countsVersion) }
    /// Donations by member, weekday and hour (`member * 168 + weekday * 24 + hour`).
    public var donationsByWeekdayHour: [Int] {
        donationsByWeekdayHourArray.array(of: donationsByWeekdayHourFlat, version: countsVersion)
    }
    /// The donation counts and times above, where the engine writes them at each donation
    /// (one store each, where an array property would first check that its storage is
    /// not shared) and the built-in rankings read them; the arrays are copied out of
    /// them when read after a change of `countsVersion`, which every donation makes.
    let lastDonationFlat = FlatBuffer<SimTime?>(repeating: nil)
    let donationsFlat = FlatBuffer<Int>(repeating: 0)
    let donationsByHourFlat = FlatBuffer<Int>(repeating: 0)
    let donationsByWeekdayHourFlat = FlatBuffer<Int>(repeating: 0)
    @exclusivity(unchecked) private var lastDonationArray = FlatBufferArray<SimTime?>()
    @exclusivity(unchecked) private var donationsArray = FlatBufferArray<Int>()
    @exclusivity(unchecked) private var donationsByHourArray = FlatBufferArray<Int>()
    @exclusivity(unchecked) private var donationsByWeekdayHourArray = FlatBufferArray<Int>()

    /// Swipes that ended on each member (it was wanted, not on top).
    @exclusivity(unchecked) public private(set) var swipesToByHour: [Int] = []
    /// Swipes that ended on each member, by weekday and hour (`member * 168 + weekday * 24 + hour`).
    @exclusivity(unchecked) public private(set) var swipesToByWeekdayHour: [Int] = []
    /// Taps on each member.
    @exclusivity(unchecked) public private(set) var taps: [Int] = []
    /// Whether a swipe or tap was counted since the last `reset`, which then sets those
    /// counts back to 0 (a run without feedback leaves them 0: no pass over them).
    @exclusivity(unchecked) private var feedbackCounted = true
    /// Views at which each member was on top.
    public var timesOnTop: [Int] {
        addTopRun()
        return onTop
    }
    /// The counts of `timesOnTop` without the views of `topRun`: the views since the top
    /// last changed, at which `previousTop` was on top, are counted apart (one increment
    /// per view rather than a write to the array) and added in when the top changes or
    /// `timesOnTop` is read.
    @exclusivity(unchecked) private var onTop: [Int] = []
    @exclusivity(unchecked) private var topRun = 0
    /// The top of the previous view, or nil before the first.
    @exclusivity(unchecked) public private(set) var previousTop: Int?
    /// Changes whenever the donation or swipe counts change (and at `reset`): a policy
    /// that ranks by those counts alone may keep its last ranking while this, the hour
    /// and the weekday stay the same.
    @exclusivity(unchecked) public private(set) var countsVersion = 0
    /// For each local hour, the `countsVersion` at which that hour's donation or swipe
    /// counts last changed (or the history was reset): a ranking computed from one
    /// hour's counts alone stays right while the hour's entry stays the same.
    let hourVersions = FlatBuffer<Int>(count: 24, repeating: 0)
    /// The latest change of the counts: its hour (−1: none since the reset), the member
    /// whose donation or swipe count went up by one, whether it was a swipe, and the
    /// hour's `hourVersions` entry just before it. A ranking of that hour computed at
    /// that entry has seen every change but this one.
    @exclusivity(unchecked) private(set) var lastChangeHour = -1
    @exclusivity(unchecked) private(set) var lastChangeMember = 0
    @exclusivity(unchecked) private(set) var lastChangeIsSwipe = false
    @exclusivity(unchecked) private(set) var lastChangeSince = 0

    /// Each member's current relevance score, or nil when its current entry carries
    /// none. Set by the engine before each `rank`.
    @exclusivity(unchecked) public internal(set) var currentRelevance: [Double?] = []
    /// Each member's past relevance scores (every relevance entry of its timelines dated
    /// up to now, each once, `RelevanceTimelines`) as their distinct values in increasing order, with how
    /// many times each was recorded. Scores come from a scenario's finite lists
    /// (a constant, a baseline, levels), so a member has few distinct values however long
    /// its history: recording is O(distinct) and usually one increment.
    @exclusivity(unchecked) private var scoreValues: [[Double]] = []
    @exclusivity(unchecked) private var scoreCounts: [[Int]] = []
    /// The number of scores recorded for each member.
    @exclusivity(unchecked) private var scoreTotals: [Int] = []

    /// An empty history; the engine sizes it for each person.
    public init() {}

    /// Clears everything for a new person with `members` stack members, reusing the
    /// previous person's storage (it runs once per person and policy pair).
    func reset(members: Int) {
        self.members = members
        countsVersion += 1
        hourVersions.reset(count: 24, to: countsVersion)
        lastChangeHour = -1
        lastDonationFlat.reset(count: members, to: nil)
        Self.clear(donationsFlat, count: members)
        Self.clear(donationsByHourFlat, count: members * 24)
        Self.clear(donationsByWeekdayHourFlat, count: members * 168)
        if feedbackCounted || taps.count != members {
            swipesToByHour.resetFlat(count: members * 24, to: 0)
            swipesToByWeekdayHour.resetFlat(count: members * 168, to: 0)
            taps.resetFlat(count: members, to: 0)
            feedbackCounted = false
        }
        assert(taps.allSatisfy { $0 == 0 } && swipesToByHour.allSatisfy { $0 == 0 }
               && swipesToByWeekdayHour.allSatisfy { $0 == 0 }, "feedback counts left from the last run")
        onTop.resetFlat(count: members, to: 0)
        topRun = 0
        previousTop = nil
        currentRelevance.resetFlat(count: members, to: nil)
        if scoreValues.count != members {
            scoreValues = Array(repeating: [], count: members)
            scoreCounts = Array(repeating: [], count: members)
        }
        for m in 0 ..< members {
            scoreValues[m].removeAll(keepingCapacity: true)
            scoreCounts[m].removeAll(keepingCapacity: true)
        }
        scoreTotals.resetFlat(count: members, to: 0)
    }

    /// Makes `buffer` `count` zeros: in place, a piece at a time with vector stores
    /// (`zero(count:)`), when it holds that many already (every run but the first).
    private static func clear(_ buffer: FlatBuffer<Int>, count: Int) {
        if buffer.count == count {
            buffer.address.zero(count: count)
        } else {
            buffer.reset(count: count, to: 0)
        }
    }

    // MARK: - Written by the engine (internal: policies in other modules cannot)

    /// Records a donation of `member`'s app (the engine does, before telling the ranking).
    func recordDonation(member m: Int, at time: SimTime, hour: Int, weekday: Int) {
        // At most one change a donation or swipe: no overflow in any run.
        countsVersion &+= 1
        changed(hour: hour, member: m, swipe: false)
        lastDonationFlat[m] = time
        donationsFlat[m] &+= 1
        donationsByHourFlat[m &* 24 &+ hour] &+= 1
        donationsByWeekdayHourFlat[m &* 168 &+ weekday &* 24 &+ hour] &+= 1
    }

    /// Records a view's outcome (the engine does, before `observe`).
    func recordView(top: Int, swipedTo: Int?, tapped: Int?, hour: Int, weekday: Int) {
        if top != previousTop { addTopRun() }
        topRun &+= 1
        previousTop = top
        if let s = swipedTo {
            countsVersion += 1
            changed(hour: hour, member: s, swipe: true)
            swipesToByHour[s * 24 + hour] += 1
            swipesToByWeekdayHour[s * 168 + weekday * 24 + hour] += 1
            feedbackCounted = true
        }
        if let t = tapped {
            taps[t] += 1
            feedbackCounted = true
        }
    }

    /// Adds `topRun` to the count of `previousTop` (when the top changes: out of line).
    @inline(never)
    private func addTopRun() {
        if let top = previousTop, topRun > 0 { onTop[top] += topRun }
        topRun = 0
    }

    /// Records that `member`'s donation or swipe count at `hour` goes up by one, at the
    /// new `countsVersion`.
    @inline(__always)
    private func changed(hour: Int, member: Int, swipe: Bool) {
        lastChangeHour = hour
        lastChangeMember = member
        lastChangeIsSwipe = swipe
        lastChangeSince = hourVersions[hour]
        hourVersions[hour] = countsVersion
    }

    /// Adds one relevance score to `member`'s history. O(distinct scores).
    func recordRelevance(member m: Int, score: Double) {
        scoreTotals[m] += 1
        let i = scoreValues[m].withUnsafeBufferPointer { Self.lowerBound($0, score) }
        if i < scoreValues[m].count && scoreValues[m][i] == score {
            scoreCounts[m][i] += 1
        } else {
            scoreValues[m].insert(score, at: i)
            scoreCounts[m].insert(1, at: i)
        }
    }

    // MARK: - Read by policies

    /// How many relevance scores `member` has had.
    public func relevanceCount(member m: Int) -> Int { scoreTotals[m] }

    /// The percentile rank of `score` among `member`'s past scores: the share below it
    /// plus half the share equal to it (0 with no history) — except that a **peak**, a
    /// score at least the highest past score when lower past scores exist, is at 1
    /// (MODEL §5). A widget that always gives the same score sits at 0.5, not at the
    /// top; only scores high for that widget rank high. A widget alternating a peak and
    /// a baseline would otherwise hold its peak at about 0.75 for ever (ties counted
    /// half), below a ranking's threshold however often it peaks: how often a widget
    /// reaches its highest score does not make that score any less its highest.
    /// Invariant under multiplying all of a member's scores by a positive constant.
    public func percentile(member m: Int, score: Double) -> Double {
        let total = scoreTotals[m]
        guard total > 0 else { return 0 }
        let (below, equal) = counts(member: m, around: score)
        if below > 0 && below + equal == total { return 1 }
        return (Double(below) + 0.5 * Double(equal)) / Double(total)
    }

    /// The share of `member`'s past scores that are ≤ `score` (0 with no history): the
    /// score is in the top fraction f of its history when this is at least 1 − f.
    public func shareAtOrBelow(member m: Int, score: Double) -> Double {
        let total = scoreTotals[m]
        guard total > 0 else { return 0 }
        let (below, equal) = counts(member: m, around: score)
        return Double(below + equal) / Double(total)
    }

    /// The number of distinct values among `member`'s past scores. O(1).
    public func distinctScores(member m: Int) -> Int { scoreValues[m].count }

    /// The largest past score of `member`, or nil.
    public func maximumScore(member m: Int) -> Double? { scoreValues[m].last }

    /// How many of `member`'s past scores are below `score`, and how many equal it.
    private func counts(member m: Int, around score: Double) -> (below: Int, equal: Int) {
        scoreValues[m].withUnsafeBufferPointer { values in
            scoreCounts[m].withUnsafeBufferPointer { counts in
                var below = 0
                for k in values.indices {
                    if values[k] < score {
                        below += counts[k]
                    } else {
                        return (below, values[k] == score ? counts[k] : 0)
                    }
                }
                return (below, 0)
            }
        }
    }

    static func lowerBound(_ s: UnsafeBufferPointer<Double>, _ x: Double) -> Int {
        var lo = 0, hi = s.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if s[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
