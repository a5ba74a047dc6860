import WidgetSimKernel

/// Each instance's home-screen views per simulation day (day `d` is
/// [`d` · 24 h, (`d` + 1) · 24 h) from the scenario's start), for the current day and
/// the `history` days before it: what `view_weighted` and `ios_like` average.
///
/// A flat ring `instance * 8 + day % 8`, each slot stamped with the day it counts, so
/// a day nobody viewed reads as zero without any sweep. Nothing is allocated after
/// `reset`.
struct DailyViewCounts {
    /// Whole past days an average may reach back.
    static let history = 7
    private static let slots = 8
    private var counts: [Int] = []
    private var days: [Int64] = []
    /// Each instance's last `past` answer, for the day and `since` it was asked with:
    /// whole past days no longer change, so it holds for the rest of that day.
    private var pastDay: [Int64] = []
    private var pastSince: [Int64] = []
    private var pastViews: [Int] = []

    mutating func reset(instances: Int) {
        counts.resetFlat(count: instances * Self.slots, to: 0)
        days.resetFlat(count: instances * Self.slots, to: -1)
        pastDay.resetFlat(count: instances, to: -1)
        pastSince.resetFlat(count: instances, to: -1)
        pastViews.resetFlat(count: instances, to: 0)
    }

    /// The simulation day of `time`.
    static func day(of time: SimTime) -> Int64 { time / Milliseconds.day }

    /// One view of `instance` on `day` (days must not go backwards).
    mutating func record(_ instance: Int, day: Int64) {
        let s = instance * Self.slots + Int(day % Int64(Self.slots))
        if days[s] != day {
            days[s] = day
            counts[s] = 0
        }
        counts[s] += 1
    }

    /// Views of `instance` on `day`, one of the current day and the 7 before it.
    func views(_ instance: Int, day: Int64) -> Int {
        let s = instance * Self.slots + Int(day % Int64(Self.slots))
        return days[s] == day ? counts[s] : 0
    }

    /// Views of `instance` over the min(7, `day` − `since`) whole days before `day`
    /// (none before day `since`), and that number of days (0 on day `since`). `day` is
    /// at most the current day, so the days summed are over and the sum can be kept.
    mutating func past(_ instance: Int, before day: Int64, since: Int64 = 0) -> (views: Int, days: Int) {
        let n = Int(min(Int64(Self.history), max(0, day - since)))
        if pastDay[instance] == day && pastSince[instance] == since { return (pastViews[instance], n) }
        var total = 0
        for back in stride(from: 1, through: n, by: 1) { total += views(instance, day: day - Int64(back)) }
        pastDay[instance] = day
        pastSince[instance] = since
        pastViews[instance] = total
        return (total, n)
    }
}
