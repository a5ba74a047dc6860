import Foundation
import WidgetSimKernel
import WidgetSimSampling

extension WorldBuilder {
    /// λ of every widget at `t` (hour and weekday given), into `lambda`; returns Σ.
    func interest(_ w: PersonWorld, at t: SimTime, hour: Int, weekday: Int, into lambda: inout [Double]) -> Double {
        var total = 0.0
        let row = (weekday * 24 + hour) * widgetCount
        for i in 0 ..< widgetCount {
            var l = hourWeekdayInterest[row + i]
            // Without bursts the factor would be 1, and l × 1 is l.
            if bursts[i] { l *= burst(i, w, at: t) }
            lambda[i] = l
            total += l
        }
        return total
    }

    /// Widget `i`'s burst factor at `t` (1 outside every burst; 0 before the widget
    /// is added).
    func burst(_ i: Int, _ w: PersonWorld, at t: SimTime) -> Double {
        if t < addedAt[i] { return 0 }
        let interest = scenario.widgets[i].interest
        var burst = 1.0
        if let b = interest.afterPush, Self.any(w.pushTimes[i], in: (t - b.afterMs) ... t) {
            burst = max(burst, b.factor)
        }
        if let b = interest.aroundScheduled, Self.any(w.scheduled[i], in: (t - b.afterMs) ... (t + b.beforeMs)) {
            burst = max(burst, b.factor)
        }
        return burst
    }

    /// Whether sorted `times` has an element in `range`.
    static func any(_ times: [SimTime], in range: ClosedRange<SimTime>) -> Bool {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < range.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        return lo < times.count && times[lo] <= range.upperBound
    }
}

/// What a view records of its stack members' λ: their sum and maximum, and as whole
/// numbers (units of 1e-9) the chances that the likeliest member, and that any member,
/// is wanted.
struct StackSums {
    var total = 0.0
    var best = 0.0
    var bestChanceNano: Int64 = 0
    var wantedChanceNano: Int64 = 0

    /// Nothing wanted: every sum 0.
    init() {}

    /// From the members' λ in member order; `noInterest` is λ of wanting none.
    init(_ lambda: ArraySlice<Double>, noInterest: Double) {
        for l in lambda {
            total += l
            best = max(best, l)
        }
        let all = noInterest + total
        if all > 0, all.isFinite {
            bestChanceNano = Int64((best / all * 1e9).rounded())
            wantedChanceNano = Int64((total / all * 1e9).rounded())
        }
    }
}
