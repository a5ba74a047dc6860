import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// What a budget that cannot read the future can reach at best (MODEL §4, "What a phone
/// can reach"): a lower bound on the expected stale member views of every such budget
/// that charges a person at most K reloads, and a plan that comes within a hair of it.
///
/// A member's random changes that no push announces are a Poisson process of rate
/// (1 − `push_fraction`) × λ(t), independent of everything a phone sees, so at a view at
/// v whose member last reloaded at r, P(stale) ≥ 1 − exp(−Λ(r + 1 ms, v)), Λ the
/// integral of that rate (the millisecond after r: a change in r's own millisecond may
/// be shown; one in v's may not, and is left out too); an announced change in (r, v),
/// given in advance, makes it stale for certain. Given every view, free reload, first
/// request and announced change in advance, a charged reload is counted at a view at or
/// after the first request since the member's last free reload, and the next no sooner
/// than the member asks again (`NextAsk`); the views between two reloads of one member
/// cost Σ (1 or 1 − exp(−Λ)), so each member's time between free reloads (a
/// *segment*) is a shortest path over its views, and the person's K reloads are shared
/// out over the segments with a price per reload (`lagrangian`), whose value is at most
/// the least expected count with K reloads, `exact`'s.
public struct PhoneBound: Sendable {
    /// One member's time between free reloads, cut into *points*, and the first of them
    /// a charged reload may reach. A point is a view (when the views are known) or a
    /// stretch of time (when only their rate is: `cellSegments`); a reload at a point
    /// leaves it fresh and the later points stale from the level at its end.
    public struct Segment: Sendable {
        public var member: Int
        /// The person's index of the segment's first view (views), or 0 (stretches).
        public var firstView: Int
        /// Λ of the member from the run's start to 1 ms after the reload that opens the segment.
        public var start: Double
        /// Per point: Λ to its start, and to its end (a view's end is 1 ms after it).
        public var at: [Double]
        public var after: [Double]
        /// Per point, its expected stale views, stale from level L ≤ `at`, are
        /// `weight` − `scale` · exp(−(at − L)): for a view both are 1; for a stretch
        /// [a, b) of view rate ν and unannounced rate λ, ν(b − a) and ν(1 − e^{−λ(b−a)})/λ.
        public var weight: [Double]
        public var scale: [Double]
        /// Per point its start time (a view's instant), the instant its reload is granted.
        public var times: [SimTime]
        /// Announced changes, given in advance: per point, the last announced change
        /// before its start (`.min`: none), and the last instant whose change a reload at
        /// the point may show (a view's instant; a stretch's last millisecond); the
        /// opening reload's instant. A point after a reload that an announced change
        /// came after is stale throughout: `weight`.
        public var announced: [SimTime]
        public var covers: [SimTime]
        public var opened: SimTime
        /// Per point, the first later point the member's next charged reload may come at
        /// after a reload at it (the widget asks again only after its reload policy's
        /// interval, or at a push; `PhoneBound.following`); the next point when no such
        /// rule is given.
        public var following: [Int]
        /// The first point (an index into `at`) at or after the member's first request
        /// since the reload that opens the segment: no charged reload comes before it.
        public var reachable: Int
        /// Where the segment ends: the next free reload, or the run's end.
        public var end: SimTime

        /// A segment of views.
        public init(member: Int, firstView: Int, start: Double, at: [Double], after: [Double], reachable: Int, end: SimTime,
                    times: [SimTime]? = nil) {
            self.init(member: member, firstView: firstView, start: start, at: at, after: after,
                      weight: Array(repeating: 1, count: at.count), scale: Array(repeating: 1, count: at.count),
                      times: times ?? Array(repeating: 0, count: at.count), reachable: reachable, end: end)
        }

        /// A segment without announced changes.
        public init(member: Int, firstView: Int, start: Double, at: [Double], after: [Double], weight: [Double],
                    scale: [Double], times: [SimTime], reachable: Int, end: SimTime) {
            self.init(member: member, firstView: firstView, start: start, at: at, after: after, weight: weight,
                      scale: scale, times: times, reachable: reachable, end: end,
                      announced: Array(repeating: .min, count: at.count), covers: times, opened: .min)
        }

        public init(member: Int, firstView: Int, start: Double, at: [Double], after: [Double], weight: [Double],
                    scale: [Double], times: [SimTime], reachable: Int, end: SimTime, announced: [SimTime],
                    covers: [SimTime], opened: SimTime) {
            self.member = member
            self.firstView = firstView
            self.start = start
            self.at = at
            self.after = after
            self.weight = weight
            self.scale = scale
            self.times = times
            self.reachable = reachable
            self.end = end
            self.announced = announced
            self.covers = covers
            self.opened = opened
            following = at.indices.map { $0 + 1 }
        }

        var count: Int { at.count }

        /// The expected stale views of point `l` when the member last reloaded at level
        /// `from` (before the point), showing the changes up to `cover`.
        @inline(__always)
        func stale(_ l: Int, from: Double, cover: SimTime) -> Double {
            if announced[l] > cover { return weight[l] }
            let x = max(0, at[l] - from)
            return (weight[l] - scale[l]) - scale[l] * expm1(-x)
        }

        /// Per row (the opening reload, then a reload at each reachable view), the
        /// expected stale views from the row's reload up to each later view: row `i`
        /// (i = 0 for the opening reload, i = k + 1 for view `reachable + k`) holds, for
        /// j from its first view to `count`, the sum over the views before j.
        func costRows() -> (costs: [Double], offsets: [Int]) {
            let n = count
            var costs: [Double] = []
            var offsets: [Int] = []
            costs.reserveCapacity(n + 1 + (n - reachable) * (n - reachable + 1) / 2 + n)
            offsets.append(0)
            var sum = 0.0
            costs.append(0)
            for l in 0 ..< n {
                sum += stale(l, from: start, cover: opened)
                costs.append(sum)
            }
            for i in reachable ..< n {
                offsets.append(costs.count)
                // The point reloaded at is fresh.
                sum = 0
                costs.append(0)
                costs.append(0)
                for l in i + 1 ..< n {
                    sum += stale(l, from: after[i], cover: covers[i])
                    costs.append(sum)
                }
            }
            return (costs, offsets)
        }
    }

    public let segments: [Segment]
    /// Per segment, its cost rows (`Segment.costRows`).
    private let rows: [(costs: [Double], offsets: [Int])]

    public init(segments: [Segment]) {
        self.segments = segments
        rows = segments.map { $0.costRows() }
    }

    /// The expected stale member views with no charged reload.
    public var withoutCharges: Double {
        rows.indices.reduce(0) { $0 + rows[$1].costs[segments[$1].count] }
    }

    /// The expected cost of views `from ..< to` of segment `s` after a reload at view
    /// `i` (nil: the opening reload).
    @inline(__always)
    private func cost(_ s: Int, reloadAt i: Int?, to j: Int) -> Double {
        let seg = segments[s]
        guard let i else { return rows[s].costs[j] }
        return rows[s].costs[rows[s].offsets[i - seg.reachable + 1] + j - i]
    }

    /// Segment `s` with a price `mu` per charged reload: the least expected stale views
    /// plus `mu` per reload, the reloads of one such least choice (view indices of the
    /// segment, in order), and, of all least choices, that one's count.
    func priced(_ s: Int, mu: Double, best: inout [Double], next: inout [Int], count: inout [Int]) -> (value: Double, reloads: Int, first: Int) {
        let seg = segments[s]
        let n = seg.count
        let r = seg.reachable
        // best[i]: the least for views i ..< n after a reload at view i (i ≥ r).
        best.resize(to: n + 1, filler: 0)
        next.resize(to: n + 1, filler: n)
        count.resize(to: n + 1, filler: 0)
        if r < n {
            for i in stride(from: n - 1, through: r, by: -1) {
                var v = cost(s, reloadAt: i, to: n), to = n, c = 0
                for j in seg.following[i] ..< n {
                    let w = cost(s, reloadAt: i, to: j) + mu + best[j]
                    if w < v { v = w; to = j; c = count[j] + 1 }
                }
                best[i] = v
                next[i] = to
                count[i] = c
            }
        }
        var v = cost(s, reloadAt: nil, to: n), first = n, c = 0
        for j in r ..< n {
            let w = cost(s, reloadAt: nil, to: j) + mu + best[j]
            if w < v { v = w; first = j; c = count[j] + 1 }
        }
        return (v, c, first)
    }

    /// The price's answer for the person: Σ over segments of the least expected stale
    /// views plus `mu` per reload, and the reloads of those least choices.
    public func priced(mu: Double) -> (value: Double, reloads: Int) {
        var best: [Double] = [], next: [Int] = [], count: [Int] = []
        var value = 0.0, reloads = 0
        for s in segments.indices {
            let p = priced(s, mu: mu, best: &best, next: &next, count: &count)
            value += p.value
            reloads += p.reloads
        }
        return (value, reloads)
    }

    /// The price's plan: per segment, the views it reloads at, and the expected stale
    /// views it leaves.
    public func plan(mu: Double) -> (reloads: [[Int]], stale: Double) {
        var best: [Double] = [], next: [Int] = [], count: [Int] = []
        var plan: [[Int]] = []
        var stale = 0.0
        for s in segments.indices {
            let p = priced(s, mu: mu, best: &best, next: &next, count: &count)
            var chosen: [Int] = []
            var at = p.first
            while at < segments[s].count {
                chosen.append(at)
                at = next[at]
            }
            stale += p.value - mu * Double(chosen.count)
            plan.append(chosen)
        }
        return (plan, stale)
    }

    /// The bound with at most `k` charged reloads: the greatest value of
    /// Σ (least + μ · reloads) − μ · k over the prices tried, which is at most the least
    /// expected count with `k` reloads whatever μ ≥ 0 (each priced least is at most the
    /// priced cost of the best choice with `k`); and the plan of the lowest price tried
    /// that asks for at most `k` reloads, a choice any planner could make, with its
    /// expected count (at least the bound). Between them lies `exact(k)`.
    public func lagrangian(_ k: Int) -> (bound: Double, mu: Double, plan: [[Int]], planStale: Double, planReloads: Int) {
        let zero = priced(mu: 0)
        if zero.reloads <= k {
            let p = plan(mu: 0)
            return (zero.value, 0, p.reloads, p.stale, p.reloads.reduce(0) { $0 + $1.count })
        }
        // A reload saves at most one view per view of its segment: no price above the
        // longest segment's views buys one.
        var high = Double(segments.map(\.count).max() ?? 0) + 1
        var low = 0.0
        var bound = zero.value
        for _ in 0 ..< 60 {
            let mu = (low + high) / 2
            let p = priced(mu: mu)
            bound = max(bound, p.value - mu * Double(k))
            if p.reloads > k { low = mu } else { high = mu }
            if high - low < 1e-9 * max(1, high) { break }
        }
        let p = plan(mu: high)
        return (bound, high, p.reloads, p.stale, p.reloads.reduce(0) { $0 + $1.count })
    }

    /// The least expected stale member views with at most `k` charged reloads, exactly:
    /// per segment the least with each number of reloads, then the best split of `k`
    /// over the segments. Its cost grows as k² × views², for small worlds.
    public func exact(_ k: Int) -> Double {
        var total = [0.0] + Array(repeating: Double.infinity, count: k)  // total[j]: the least with exactly j so far
        for s in segments.indices {
            let seg = segments[s]
            let n = seg.count, r = seg.reachable
            // least[c][i]: views i ..< n after a reload at view i, with at most c more.
            var least = Array(repeating: Array(repeating: 0.0, count: n + 1), count: k + 1)
            for c in 0 ... k {
                for i in stride(from: n - 1, through: max(r, 0), by: -1) {
                    var v = cost(s, reloadAt: i, to: n)
                    if c > 0 {
                        for j in seg.following[i] ..< n { v = min(v, cost(s, reloadAt: i, to: j) + least[c - 1][j]) }
                    }
                    least[c][i] = v
                }
            }
            // own[c]: the segment's least with at most c reloads.
            var own = Array(repeating: cost(s, reloadAt: nil, to: n), count: k + 1)
            for c in stride(from: 1, through: k, by: 1) where r < n {
                for j in r ..< n { own[c] = min(own[c], cost(s, reloadAt: nil, to: j) + least[c - 1][j]) }
            }
            var merged = Array(repeating: Double.infinity, count: k + 1)
            for a in 0 ... k where total[a] < .infinity {
                for c in 0 ... k - a { merged[a + c] = min(merged[a + c], total[a] + own[c]) }
            }
            total = merged
        }
        return total.min() ?? 0
    }
}
