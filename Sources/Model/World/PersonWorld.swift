import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// A home-screen view, with everything about it that no policy can change.
public struct ViewRecord: Sendable {
    public var time: SimTime
    public var hour: UInt8
    public var weekday: UInt8
    /// The wanted stack member, or −1 for none.
    public var wanted: Int8
    /// The person would swipe to the wanted widget if it is not on top (drawn always).
    public var wouldSwipe: Bool
    /// The person would tap the wanted widget if it is shown and interactive (drawn always).
    public var wouldTap: Bool
    /// max over members of P(wanted = member), in units of 1e-9.
    public var bestChanceNano: Int64
    /// P(some member is wanted), in units of 1e-9.
    public var wantedChanceNano: Int64
}

/// An app session: its widget (the one whose interest drew it), donation and span.
public struct SessionRecord: Sendable {
    public var start: SimTime
    public var end: SimTime
    public var widget: Int32
    public var donates: Bool
    public var hour: UInt8
    public var weekday: UInt8
}

/// Something that happens to one widget at one time (a random content change, a push).
public struct WidgetMoment: Sendable, Comparable {
    public var time: SimTime
    public var widget: Int32
    public static func < (a: Self, b: Self) -> Bool {
        a.time != b.time ? a.time < b.time : a.widget < b.widget
    }
}

/// One person's exogenous world over a run (MODEL §2): every arrival and every draw
/// that no policy can change, generated once and replayed under each policy pair, so
/// policies are compared on exactly the same days (common random numbers).
public final class PersonWorld {
    public internal(set) var person = 0
    public internal(set) var replication = 0
    public internal(set) var clock: LocalClock
    public internal(set) var timeChanges: [SimTime] = []
    public internal(set) var environmentChanges: [SimTime] = []
    public internal(set) var views: [ViewRecord] = []
    /// λ of each stack member at each view, in member order, one row of `members`
    /// values per view: row `i` for view i, or, when `interestByHour` is true, row
    /// `weekday * 24 + hour` of the view's local weekday and hour (when no member's
    /// interest bursts, λ depends on those alone, and one table serves every view).
    public internal(set) var viewInterest: [Double] = []
    public internal(set) var interestByHour = false
    public internal(set) var sessions: [SessionRecord] = []
    /// Session ends in time order, with the session's widget.
    public internal(set) var sessionEnds: [WidgetMoment] = []
    public internal(set) var randomChanges: [WidgetMoment] = []
    public internal(set) var pushes: [WidgetMoment] = []
    /// Each widget's scheduled (predictable, known-ahead) changes, sorted.
    public internal(set) var scheduled: [[SimTime]] = []
    /// Each widget's push arrival times, sorted (for interest bursts).
    public internal(set) var pushTimes: [[SimTime]] = []

    init(clock: LocalClock) { self.clock = clock }
}

/// Builds `PersonWorld`s for one scenario. One builder per worker thread: it keeps
/// its streams and buffers and reuses them person after person.
public final class WorldBuilder {
    public let scenario: Scenario
    let homeZone: TimeZone
    let travelZones: [TimeZone]
    let epochMs: Int64
    let streams: [UInt64: RandomStream]
    let world: PersonWorld
    let stackMembers: [Int]
    let widgetCount: Int
    /// Every widget's base × hour factor × weekday factor, at
    /// `(weekday * 24 + hour) * widgetCount + widget`: the part of λ that depends on the
    /// local hour and weekday only, worked out once here rather than at every view
    /// (`InterestSpec.factor` walks the peaks). The same products, so the same doubles.
    let hourWeekdayInterest: [Double]
    /// Whether the widget's interest bursts after pushes or around scheduled changes.
    let bursts: [Bool]
    /// When no stack member's interest bursts, the members' λ at a view depends on the
    /// local hour and weekday only, and so does everything a view records of it: then
    /// `stackInterest` holds the members' λ (member order) at `(weekday * 24 + hour) *
    /// members + member` and `stackSums` the sums of each weekday and hour; both are
    /// empty otherwise.
    let stackInterest: [Double]
    let stackSums: [StackSums]
    /// Scratch: λ of every widget at one instant.
    var lambda: [Double]
    /// Scratch: each widget's random content changes.
    var changeTimes: [[SimTime]]

    /// Fails only for a time zone or start date that `Scenario` validation lets
    /// through but the tz database rejects.
    public init(scenario: Scenario) throws {
        self.scenario = scenario
        guard let zone = TimeZone(identifier: scenario.timeZone) else {
            throw WorldError.unknownTimeZone(scenario.timeZone)
        }
        homeZone = zone
        travelZones = try (scenario.person.travel?.zones ?? []).map {
            guard let z = TimeZone(identifier: $0) else { throw WorldError.unknownTimeZone($0) }
            return z
        }
        guard let epoch = LocalClock.startOfDay(scenario.start, in: zone) else {
            throw WorldError.badStartDate(scenario.start.description)
        }
        epochMs = epoch
        var streams: [UInt64: RandomStream] = [:]
        var processes: [UInt64] = [
            StreamProcess.personRates, StreamProcess.views, StreamProcess.wanted,
            StreamProcess.feedback, StreamProcess.sessions, StreamProcess.sessionDetails,
            StreamProcess.travel, StreamProcess.environment,
        ]
        for w in scenario.widgets.indices {
            processes += [StreamProcess.randomChanges(w), StreamProcess.pushes(w), StreamProcess.scheduled(w)]
        }
        for p in processes { streams[p] = RandomStream(kind: scenario.generator, seed: 1) }
        self.streams = streams
        world = PersonWorld(clock: LocalClock(fixedOffsetMs: 0, end: scenario.durationMs))
        stackMembers = scenario.stack.members
        widgetCount = scenario.widgets.count
        var table: [Double] = []
        for weekday in 0 ..< 7 {
            for hour in 0 ..< 24 {
                for spec in scenario.widgets {
                    table.append(spec.interest.base * spec.interest.factor(hour: hour, weekday: weekday))
                }
            }
        }
        hourWeekdayInterest = table
        let bursts = scenario.widgets.map { $0.interest.afterPush != nil || $0.interest.aroundScheduled != nil }
        self.bursts = bursts
        var stackInterest: [Double] = []
        var stackSums: [StackSums] = []
        if !stackMembers.contains(where: { bursts[$0] }) {
            for row in 0 ..< 7 * 24 {
                let first = stackInterest.count
                for m in stackMembers { stackInterest.append(table[row * widgetCount + m]) }
                stackSums.append(StackSums(stackInterest[first...], noInterest: scenario.person.noInterest))
            }
        }
        self.stackInterest = stackInterest
        self.stackSums = stackSums
        lambda = Array(repeating: 0, count: scenario.widgets.count)
        changeTimes = Array(repeating: [], count: scenario.widgets.count)
    }

    func stream(_ process: UInt64) -> RandomStream { streams[process]! }

    /// The world of `person` in `replication`. The returned object is reused by the
    /// next call: finish with it first.
    public func build(person: Int, replication: Int) -> PersonWorld {
        let s = scenario
        for (process, stream) in streams {
            stream.reseed(StreamKey(seed: s.seed, replication: replication, person: person, process: process))
        }
        let w = world
        w.person = person
        w.replication = replication
        let end = s.durationMs

        // The person's own rates: always two draws.
        let rates = stream(StreamProcess.personRates)
        let viewsPerDay = rates.gamma(mean: s.person.viewsPerDay.mean, cv: s.person.viewsPerDay.cv)
        let sessionsPerDay = rates.gamma(mean: s.person.sessionsPerDay.mean, cv: s.person.sessionsPerDay.cv)

        // Travel, then the clock and its significant time changes.
        var trips: [(start: SimTime, end: SimTime, zone: TimeZone)] = []
        if let travel = s.person.travel, !travelZones.isEmpty {
            let r = stream(StreamProcess.travel)
            var t = 0.0
            while true {
                t += r.exponential(mean: Double(Milliseconds.day) / travel.tripsPerDay)
                let zone = travelZones[r.uniformInt(travelZones.count)]
                let stay = max(Double(Milliseconds.hour), r.exponential(mean: Double(travel.meanStayMs)))
                if t >= Double(end) { break }
                trips.append((SimTime(t), CheckedTime.milliseconds(t + stay), zone))
                t += stay
            }
        }
        w.clock = LocalClock(home: homeZone, epochMs: epochMs, end: end, trips: trips)
        w.timeChanges = w.clock.timeChanges()

        w.environmentChanges.removeAll(keepingCapacity: true)
        if s.person.environmentChangesPerDay > 0 {
            stream(StreamProcess.environment).poissonArrivals(
                from: 0, to: end, rate: DailyProfile(meanPerDay: s.person.environmentChangesPerDay, hourWeights: HourProfile.flat),
                into: &w.environmentChanges)
        }

        buildContent(w, end: end)
        buildViews(w, end: end, viewsPerDay: viewsPerDay)
        buildSessions(w, end: end, sessionsPerDay: sessionsPerDay)
        return w
    }

    private func buildContent(_ w: PersonWorld, end: SimTime) {
        let s = scenario
        if w.scheduled.count != s.widgets.count {
            w.scheduled = Array(repeating: [], count: s.widgets.count)
            w.pushTimes = Array(repeating: [], count: s.widgets.count)
        }
        for (i, spec) in s.widgets.enumerated() {
            let c = spec.content
            w.scheduled[i].removeAll(keepingCapacity: true)
            if c.scheduledPerDay > 0 {
                stream(StreamProcess.scheduled(i)).poissonArrivals(
                    from: 0, to: end,
                    rate: LocalHourRate(clock: w.clock, meanPerDay: c.scheduledPerDay, hourWeights: c.scheduledProfile),
                    into: &w.scheduled[i])
            }
            changeTimes[i].removeAll(keepingCapacity: true)
            // Appended to a local array, moved out of the world and back (see `buildViews`).
            var pushTimes = w.pushTimes[i]
            w.pushTimes[i] = []
            pushTimes.removeAll(keepingCapacity: true)
            if c.randomPerDay > 0 {
                stream(StreamProcess.randomChanges(i)).poissonArrivals(
                    from: 0, to: end,
                    rate: LocalHourRate(clock: w.clock, meanPerDay: c.randomPerDay, hourWeights: c.randomProfile),
                    into: &changeTimes[i])
                let pushDraws = stream(StreamProcess.pushes(i))
                let fixedLatency = SimTime(Double(c.pushLatencyMedianMs).rounded())
                for t in changeTimes[i] {
                    // Draw always: whether announced, and the latency.
                    let announced = pushDraws.bernoulli(c.pushFraction)
                    let latency = c.pushLatencySigma > 0
                        ? CheckedTime.milliseconds(pushDraws.logNormal(median: Double(c.pushLatencyMedianMs), sigma: c.pushLatencySigma).rounded())
                        : fixedLatency
                    let arrival = t + latency
                    if announced && arrival < end { pushTimes.append(arrival) }
                }
                pushTimes.sort()
            }
            w.pushTimes[i] = pushTimes
        }
        Self.merge(changeTimes, into: &w.randomChanges)
        Self.merge(w.pushTimes, into: &w.pushes)
    }

    /// The moments of every widget, `lists[i]` (sorted) being widget i's times, in the
    /// order of `WidgetMoment` (time, then widget): a merge of the sorted lists, which
    /// gives what sorting them all together would, with less work.
    static func merge(_ lists: [[SimTime]], into result: inout [WidgetMoment]) {
        result.removeAll(keepingCapacity: true)
        guard !lists.isEmpty else { return }
        // Each list's next index and its time there (`.max` once the list is done: no
        // time of a run reaches it).
        var next = [Int](repeating: 0, count: lists.count)
        var head = lists.map { $0.first ?? .max }
        while true {
            // The earliest head; of equal times, the lowest widget (strict <). Which
            // list comes next is unpredictable: selects rather than branches.
            var best = 0
            var bestTime = head[0]
            for i in 1 ..< head.count {
                let earlier = head[i] < bestTime
                best = earlier ? i : best
                bestTime = earlier ? head[i] : bestTime
            }
            if bestTime == .max { break }
            result.append(WidgetMoment(time: bestTime, widget: Int32(best)))
            let j = next[best] + 1
            next[best] = j
            head[best] = j < lists[best].count ? lists[best][j] : .max
        }
    }

    /// λ of every widget at `t` (hour and weekday given), into `lambda`; returns Σ.
    private func interest(_ w: PersonWorld, at t: SimTime, hour: Int, weekday: Int, into lambda: inout [Double]) -> Double {
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

    /// Widget `i`'s burst factor at `t` (1 outside every burst).
    private func burst(_ i: Int, _ w: PersonWorld, at t: SimTime) -> Double {
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

    private func buildViews(_ w: PersonWorld, end: SimTime, viewsPerDay: Double) {
        let s = scenario
        var times: [SimTime] = []
        stream(StreamProcess.views).poissonArrivals(
            from: 0, to: end,
            rate: LocalHourRate(clock: w.clock, meanPerDay: viewsPerDay, hourWeights: s.person.viewProfile),
            into: &times)
        // The loop fills local arrays, moved out of the world and the builder and back
        // (no copy is made): an append to a class's array property checks that the
        // array is not shared every time, an append to a local one need not.
        let byHour = !stackSums.isEmpty
        var views = w.views, viewInterest = byHour ? [] : w.viewInterest, lambda = self.lambda
        w.views = []
        w.viewInterest = []
        self.lambda = []
        defer {
            w.views = views
            w.viewInterest = byHour ? stackInterest : viewInterest
            w.interestByHour = byHour
            self.lambda = lambda
        }
        views.removeAll(keepingCapacity: true)
        viewInterest.removeAll(keepingCapacity: true)
        let clock = w.clock
        let wantedDraws = stream(StreamProcess.wanted)
        let feedback = stream(StreamProcess.feedback)
        let none = s.person.noInterest
        let n = stackMembers.count
        for t in times {
            let (hour, weekday) = clock.hourAndWeekday(t)
            // The members' λ and their sums: looked up when they depend on the hour and
            // weekday only, worked out at t (and kept in `viewInterest`) otherwise.
            let lambdaRow: ArraySlice<Double>
            let sums: StackSums
            if byHour {
                let row = weekday * 24 + hour
                lambdaRow = stackInterest[row * n ..< row * n + n]
                sums = stackSums[row]
            } else {
                _ = interest(w, at: t, hour: hour, weekday: weekday, into: &lambda)
                let first = viewInterest.count
                for m in stackMembers { viewInterest.append(lambda[m]) }
                lambdaRow = viewInterest[first...]
                sums = StackSums(lambdaRow, noInterest: none)
            }
            // Draw always: the wanted member, then swipe and tap.
            let u = wantedDraws.uniform() * (none + sums.total)
            var wanted = -1
            if u >= none && sums.total > 0 {
                wanted = lambdaRow.withUnsafeBufferPointer { RandomStream.inverse(u - none, weights: $0) }
            }
            let swipe = feedback.uniform() < s.person.swipeProbability
            let tap = feedback.uniform() < s.person.tapProbability
            views.append(ViewRecord(
                time: t, hour: UInt8(hour), weekday: UInt8(weekday), wanted: Int8(wanted),
                wouldSwipe: swipe, wouldTap: tap,
                bestChanceNano: sums.bestChanceNano, wantedChanceNano: sums.wantedChanceNano))
        }
    }

    private func buildSessions(_ w: PersonWorld, end: SimTime, sessionsPerDay: Double) {
        let s = scenario
        var times: [SimTime] = []
        stream(StreamProcess.sessions).poissonArrivals(
            from: 0, to: end,
            rate: LocalHourRate(clock: w.clock, meanPerDay: sessionsPerDay, hourWeights: s.person.sessionProfile),
            into: &times)
        // Local arrays, as in `buildViews`.
        var sessions = w.sessions, sessionEnds = w.sessionEnds, lambda = self.lambda
        w.sessions = []
        w.sessionEnds = []
        self.lambda = []
        defer {
            w.sessions = sessions
            w.sessionEnds = sessionEnds
            self.lambda = lambda
        }
        sessions.removeAll(keepingCapacity: true)
        sessionEnds.removeAll(keepingCapacity: true)
        let clock = w.clock
        let details = stream(StreamProcess.sessionDetails)
        for t in times {
            let (hour, weekday) = clock.hourAndWeekday(t)
            let total = interest(w, at: t, hour: hour, weekday: weekday, into: &lambda)
            // Draw always: the widget, the donation, the length.
            let u = details.uniform() * total
            let donates = details.uniform() < s.person.donationProbability
            let length = s.person.sessionSigma > 0
                ? details.logNormal(median: Double(s.person.sessionMedianMs), sigma: s.person.sessionSigma)
                : Double(s.person.sessionMedianMs)
            guard total > 0 else { continue }  // no widget of interest at this hour
            let widget = lambda.withUnsafeBufferPointer { RandomStream.inverse(u, weights: $0) }
            let stop = t + max(1, CheckedTime.milliseconds(length.rounded()))
            sessions.append(SessionRecord(
                start: t, end: stop, widget: Int32(widget), donates: donates,
                hour: UInt8(hour), weekday: UInt8(weekday)))
            if stop < end { sessionEnds.append(WidgetMoment(time: stop, widget: Int32(widget))) }
        }
        sessionEnds.sort()
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

public enum WorldError: Error, CustomStringConvertible {
    case unknownTimeZone(String)
    case badStartDate(String)
    public var description: String {
        switch self {
        case .unknownTimeZone(let z): "unknown time zone `\(z)`"
        case .badStartDate(let d): "the start date \(d) has no local midnight"
        }
    }
}
