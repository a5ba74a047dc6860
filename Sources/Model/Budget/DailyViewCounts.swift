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

    mutating func reset(instances: Int) {
        counts.resetFlat(count: instances * Self.slots, to: 0)
        days.resetFlat(count: instances * Self.slots, to: -1)
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
    /// (none before day `since`), and that number of days (0 on day `since`).
    func past(_ instance: Int, before day: Int64, since: Int64 = 0) -> (views: Int, days: Int) {
        let n = Int(min(Int64(Self.history), max(0, day - since)))
        var total = 0
        for back in stride(from: 1, through: n, by: 1) { total += views(instance, day: day - Int64(back)) }
        return (total, n)
    }
}
