import Foundation
import WidgetSimKernel
import WidgetSimSampling

// What `PhoneBound` reads of a person's world (MODEL §4, "What a phone can reach"): the
// segments between free reloads, cut at views or stretches; Λ of the changes no push
// announces; the instants of those a push announces; the person's rate of views; and
// when a member asks again after a reload.

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
            return covers[(i + 1)...].firstIndex(sortedBy: { $0 >= y })
        }
    }

    /// The last of `changes` (in time order) before `t`, or `.min`.
    static func last(of changes: [SimTime], before t: SimTime) -> SimTime {
        let k = changes.firstIndex(sortedBy: { $0 >= t })
        return k > 0 ? changes[k - 1] : .min
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
        func firstView(atOrAfter t: SimTime) -> Int { views.firstIndex(sortedBy: { $0 >= t }) }
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
        func span(_ t: SimTime) -> Int { ends.firstIndex(sortedBy: { $0 > t }) }

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
            let k = list.firstIndex(sortedBy: { $0 > x })
            let push = k < list.count ? list[k] : .max
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
