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

extension PhoneBound {
    /// Each member's segments, in order: the member's start (`added`) and each free
    /// reload after it open one, which lasts to the next or to `end`; with the first
    /// request since it (a reload drops any request before it), when one comes before
    /// the segment ends.
    static func forEachSegment(
        members: [Int], free: (Int) -> [SimTime], requests: (Int) -> [SimTime], added: (Int) -> SimTime,
        end: SimTime, _ body: (_ member: Int, _ open: SimTime, _ close: SimTime, _ firstRequest: SimTime?) -> Void
    ) {
        for m in members {
            let from = added(m)
            let opens = [from] + free(m).filter { $0 > from && $0 < end }
            let asks = requests(m)
            var q = 0
            for (k, open) in opens.enumerated() {
                let close = k + 1 < opens.count ? opens[k + 1] : end
                while q < asks.count && asks[q] < open { q += 1 }
                body(m, open, close, q < asks.count && asks[q] < close ? asks[q] : nil)
            }
        }
    }

    /// When a member may be charged again after a reload (MODEL §4): `next(member, x)` is
    /// the earliest instant after a reload at x at which the member asks again (its
    /// reload policy's interval, or a push to its kind), `.max` for never.
    public typealias NextAsk = (_ member: Int, _ after: SimTime) -> SimTime

    /// Per point, the first later point whose `covers` instant is at or after
    /// `next(member, earliest)`, with `earliest` the earliest instant a reload counted
    /// at the point could have come at (so that a reload anywhere in the point is
    /// allowed what the earliest allows): `count` when none is.
    static func following(covers: [SimTime], earliest: [SimTime], member m: Int, next: NextAsk?) -> [Int] {
        guard let next else { return covers.indices.map { $0 + 1 } }
        return covers.indices.map { i in
            let y = next(m, earliest[i])
            var lo = i + 1, hi = covers.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if covers[mid] < y { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    /// The last of `changes` (in time order) before `t`, or `.min`.
    static func last(of changes: [SimTime], before t: SimTime) -> SimTime {
        var lo = 0, hi = changes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if changes[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? changes[lo - 1] : .min
    }

    /// The segments of a person: `views` in time order; per member, its free reloads and
    /// the requests it made when every one was refused (each in time order), when it was
    /// added, Λ of its changes no push announces (`level(member, t)`, from the run's
    /// start to t), and its announced changes in time order (none: the bound without them).
    public static func segments(
        views: [SimTime], members: [Int], free: (Int) -> [SimTime], requests: (Int) -> [SimTime],
        added: (Int) -> SimTime, end: SimTime, level: (Int, SimTime) -> Double,
        announced: (Int) -> [SimTime] = { _ in [] }, next: NextAsk? = nil
    ) -> [Segment] {
        var result: [Segment] = []
        // The index of the first view at or after t.
        func firstView(atOrAfter t: SimTime) -> Int {
            var lo = 0, hi = views.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if views[mid] < t { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        forEachSegment(members: members, free: free, requests: requests, added: added, end: end) { m, open, close, ask in
            let a = firstView(atOrAfter: open), b = firstView(atOrAfter: close)
            guard b > a else { return }
            let reach = ask.map { firstView(atOrAfter: $0) - a } ?? b - a
            let known = announced(m)
            let times = Array(views[a ..< b])
            var segment = Segment(
                member: m, firstView: a, start: level(m, open + 1),
                at: times.map { level(m, $0) }, after: times.map { level(m, $0 + 1) },
                weight: Array(repeating: 1, count: times.count), scale: Array(repeating: 1, count: times.count),
                times: times, reachable: min(reach, b - a), end: close,
                announced: times.map { last(of: known, before: $0) }, covers: times, opened: open)
            // A reload counted at a view may have come any time after the view before it.
            let earliest = times.indices.map { $0 > 0 ? times[$0 - 1] + 1 : open + 1 }
            segment.following = following(covers: times, earliest: earliest, member: m, next: next)
            result.append(segment)
        }
        return result
    }

    /// Λ of member `w`'s changes that no push announces, from the run's start to each
    /// time: (1 − `push_fraction`) × its random rate, per local hour of `hours`.
    public struct Levels: Sendable {
        public let ends: [SimTime]
        let rates: [[Double]]
        let cumulative: [[Double]]

        public init(hours: LocalHours, scenario: Scenario) {
            ends = hours.spans.map(\.end)
            rates = scenario.widgets.map { spec in
                let c = spec.content
                let hourly = LocalHourRate.hourlyRate(meanPerDay: c.randomPerDay, hourWeights: c.randomProfile)
                return hours.spans.map { (1 - c.pushFraction) * hourly[Int($0.hour)] }
            }
            var cumulative: [[Double]] = []
            for r in rates {
                var sum = 0.0, start: SimTime = 0
                var c: [Double] = []
                c.reserveCapacity(ends.count + 1)
                c.append(0)
                for (k, e) in ends.enumerated() {
                    sum += r[k] * Double(e - start)
                    c.append(sum)
                    start = e
                }
                cumulative.append(c)
            }
            self.cumulative = cumulative
        }

        /// The span of the local hours that holds `t` (`ends.count` past the last).
        func span(_ t: SimTime) -> Int {
            var lo = 0, hi = ends.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if ends[mid] <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// Λ of `w` from the run's start to `t`.
        public func level(_ w: Int, _ t: SimTime) -> Double {
            let k = span(t)
            guard k < ends.count else { return cumulative[w][ends.count] }
            let start: SimTime = k > 0 ? ends[k - 1] : 0
            return cumulative[w][k] + rates[w][k] * Double(t - start)
        }

        /// The rate (per ms) of `w`'s changes no push announces at `t`.
        public func rate(_ w: Int, _ t: SimTime) -> Double {
            let k = span(t)
            return k < ends.count ? rates[w][k] : 0
        }
    }

    /// Each widget's random changes that a push announces, in time order (those whose push
    /// would come after the run's end too): the world's draws made again from its streams
    /// (`WorldBuilder.drawPushes`). A phone learns of each from its push; given in advance,
    /// they only lower the bound.
    public static func announcedChanges(world: PersonWorld, scenario s: Scenario) -> [[SimTime]] {
        var changes = Array(repeating: [SimTime](), count: s.widgets.count)
        for c in world.randomChanges { changes[Int(c.widget)].append(c.time) }
        return s.widgets.indices.map { w in
            guard !changes[w].isEmpty else { return [] }
            let draws = RandomStream(kind: s.generator, key: StreamKey(
                seed: s.seed, replication: world.replication, person: world.person, process: StreamProcess.pushes(w)))
            var announced: [SimTime] = []
            WorldBuilder.drawPushes(of: changes[w], content: s.widgets[w].content, draws: draws) { c, _ in
                announced.append(c)
            }
            return announced
        }
    }

    /// When each member may ask for a charged reload again after a reload at x: its
    /// timeline's interval on (`after`; one entry spacing for `at_end`, whose last entry
    /// comes at least that late; never for `never`), or the first push after x to a widget
    /// of its kind (a push asks every widget of its kind), whichever comes first.
    public static func nextAsk(world: PersonWorld, scenario s: Scenario) -> NextAsk {
        let kinds = s.widgets.map(\.kind)
        var pushes = Array(repeating: [SimTime](), count: s.widgets.count)
        for p in world.pushes {
            for m in s.widgets.indices where kinds[m] == kinds[Int(p.widget)] { pushes[m].append(p.time) }
        }
        let intervals: [SimTime?] = s.widgets.map { spec in
            switch spec.timeline.reload {
            case .after(let d): d
            case .atEnd: spec.timeline.entrySpacingMs
            case .never: nil
            }
        }
        return { m, x in
            let list = pushes[m]
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid] <= x { lo = mid + 1 } else { hi = mid }
            }
            let push = lo < list.count ? list[lo] : .max
            guard let d = intervals[m] else { return push }
            return min(push, x + d)
        }
    }

    /// The person's rate of views (per ms): the person's own views a day (the world's
    /// draw, made again from its stream) over the local hours of the view profile, and
    /// the glances while in StandBy (MODEL §2); what a phone could know of its views at
    /// best, short of when they come.
    public struct ViewRate: Sendable {
        let levels: Levels
        let hourly: [Double]
        let standBy: [(start: SimTime, end: SimTime)]
        let glance: Double

        public init(world: PersonWorld, scenario s: Scenario, levels: Levels, hours: LocalHours) {
            let draws = RandomStream(kind: s.generator, key: StreamKey(
                seed: s.seed, replication: world.replication, person: world.person, process: StreamProcess.personRates))
            let perDay = draws.gamma(mean: s.person.viewsPerDay.mean, cv: s.person.viewsPerDay.cv)
            let byHour = LocalHourRate.hourlyRate(meanPerDay: perDay, hourWeights: s.person.viewProfile)
            hourly = hours.spans.map { byHour[Int($0.hour)] }
            standBy = Array(zip(world.standByStarts, world.standByEnds))
            glance = (s.person.standBy?.viewsPerHour ?? 0) / Double(Milliseconds.hour)
            self.levels = levels
        }

        /// Where the rate may change: the ends of the local hours and the StandBy periods' bounds.
        var changes: [SimTime] {
            (levels.ends + standBy.flatMap { [$0.start, $0.end] }).sorted()
        }

        /// The rate at `t`.
        public func rate(_ t: SimTime) -> Double {
            let k = levels.span(t)
            let inStandBy = standBy.contains { $0.start <= t && t < $0.end }
            return (k < hourly.count ? hourly[k] : 0) + (inStandBy ? glance : 0)
        }
    }

    /// The segments of the members in `members` when only the rate of views is known
    /// (`views`): each segment, from 1 ms after its opening reload to its end, cut into
    /// stretches at every `step` of the run's clock, at the first request, and wherever
    /// the rate of views or of changes changes; a reload anywhere in a stretch is taken
    /// to leave the whole stretch fresh and the rest stale from the stretch's end, which
    /// is at most what any reload in it leaves. Otherwise as `segments`.
    public static func cellSegments(
        members: [Int], free: (Int) -> [SimTime], requests: (Int) -> [SimTime], added: (Int) -> SimTime,
        end: SimTime, step: SimTime, levels: Levels, views: ViewRate, announced: (Int) -> [SimTime] = { _ in [] },
        next: NextAsk? = nil
    ) -> [Segment] {
        var result: [Segment] = []
        let changes = views.changes
        forEachSegment(members: members, free: free, requests: requests, added: added, end: end) { m, open, close, request in
            let first = open + 1
            guard close > first else { return }
            let ask = request.map { max($0, first) }
            // The cuts: the clock's steps, the rates' changes, the first request.
            var cuts: [SimTime] = [first]
            var t = (first / step + 1) * step
            var c = 0
            while c < changes.count && changes[c] <= first { c += 1 }
            while true {
                let next = min(t, c < changes.count ? changes[c] : .max, close)
                if let ask, ask > cuts.last!, ask < next { cuts.append(ask) }
                if next >= close { break }
                if next > cuts.last! { cuts.append(next) }
                if next == t { t += step }
                while c < changes.count && changes[c] <= next { c += 1 }
            }
            cuts.append(close)
            var at: [Double] = [], after: [Double] = [], weight: [Double] = [], scale: [Double] = []
            var reach = cuts.count - 1
            for (a, b) in zip(cuts, cuts.dropFirst()) {
                let nu = views.rate(a), lambda = levels.rate(m, a), length = Double(b - a)
                if let ask, a >= ask, reach == cuts.count - 1 { reach = at.count }
                at.append(levels.level(m, a))
                after.append(levels.level(m, b))
                weight.append(nu * length)
                scale.append(lambda > 0 ? -nu * expm1(-lambda * length) / lambda : nu * length)
            }
            let known = announced(m)
            let starts = Array(cuts.dropLast()), covers = cuts.dropFirst().map { $0 - 1 }
            var segment = Segment(
                member: m, firstView: 0, start: levels.level(m, first), at: at, after: after, weight: weight,
                scale: scale, times: starts, reachable: reach, end: close,
                announced: starts.map { last(of: known, before: $0) }, covers: covers, opened: open)
            segment.following = following(covers: covers, earliest: starts, member: m, next: next)
            result.append(segment)
        }
        return result
    }
}
