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
    /// λ of each stack member at each view: `views.count × members`, row per view.
    public internal(set) var viewInterest: [Double] = []
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
    /// Scratch: λ of every widget at one instant.
    var lambda: [Double]

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
        lambda = Array(repeating: 0, count: scenario.widgets.count)
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
                trips.append((SimTime(t), SimTime(t + stay), zone))
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
        w.randomChanges.removeAll(keepingCapacity: true)
        w.pushes.removeAll(keepingCapacity: true)
        var times: [SimTime] = []
        for (i, spec) in s.widgets.enumerated() {
            let c = spec.content
            w.scheduled[i].removeAll(keepingCapacity: true)
            if c.scheduledPerDay > 0 {
                stream(StreamProcess.scheduled(i)).poissonArrivals(
                    from: 0, to: end,
                    rate: LocalHourRate(clock: w.clock, meanPerDay: c.scheduledPerDay, hourWeights: c.scheduledProfile),
                    into: &w.scheduled[i])
            }
            times.removeAll(keepingCapacity: true)
            w.pushTimes[i].removeAll(keepingCapacity: true)
            if c.randomPerDay > 0 {
                stream(StreamProcess.randomChanges(i)).poissonArrivals(
                    from: 0, to: end,
                    rate: LocalHourRate(clock: w.clock, meanPerDay: c.randomPerDay, hourWeights: c.randomProfile),
                    into: &times)
                let pushDraws = stream(StreamProcess.pushes(i))
                for t in times {
                    w.randomChanges.append(WidgetMoment(time: t, widget: Int32(i)))
                    // Draw always: whether announced, and the latency.
                    let announced = pushDraws.bernoulli(c.pushFraction)
                    let latency = c.pushLatencySigma > 0
                        ? pushDraws.logNormal(median: Double(c.pushLatencyMedianMs), sigma: c.pushLatencySigma)
                        : Double(c.pushLatencyMedianMs)
                    let arrival = t + SimTime(latency.rounded())
                    if announced && arrival < end {
                        w.pushes.append(WidgetMoment(time: arrival, widget: Int32(i)))
                        w.pushTimes[i].append(arrival)
                    }
                }
                w.pushTimes[i].sort()
            }
        }
        w.randomChanges.sort()
        w.pushes.sort()
    }

    /// λ of every widget at `t` (hour and weekday given), into `lambda`; returns Σ.
    private func interest(_ w: PersonWorld, at t: SimTime, hour: Int, weekday: Int) -> Double {
        var total = 0.0
        for (i, spec) in scenario.widgets.enumerated() {
            let interest = spec.interest
            var l = interest.base * interest.factor(hour: hour, weekday: weekday)
            var burst = 1.0
            if let b = interest.afterPush, Self.any(w.pushTimes[i], in: (t - b.afterMs) ... t) {
                burst = max(burst, b.factor)
            }
            if let b = interest.aroundScheduled, Self.any(w.scheduled[i], in: (t - b.afterMs) ... (t + b.beforeMs)) {
                burst = max(burst, b.factor)
            }
            l *= burst
            lambda[i] = l
            total += l
        }
        return total
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
        w.views.removeAll(keepingCapacity: true)
        w.viewInterest.removeAll(keepingCapacity: true)
        let wantedDraws = stream(StreamProcess.wanted)
        let feedback = stream(StreamProcess.feedback)
        let none = s.person.noInterest
        for t in times {
            let (hour, weekday) = w.clock.hourAndWeekday(t)
            _ = interest(w, at: t, hour: hour, weekday: weekday)
            var stackTotal = 0.0
            var best = 0.0
            for m in stackMembers {
                let l = lambda[m]
                w.viewInterest.append(l)
                stackTotal += l
                best = max(best, l)
            }
            // Draw always: the wanted member, then swipe and tap.
            let u = wantedDraws.uniform() * (none + stackTotal)
            var wanted = -1
            if u >= none && stackTotal > 0 {
                var rest = u - none
                wanted = stackMembers.count - 1
                for (k, m) in stackMembers.enumerated() {
                    rest -= lambda[m]
                    if rest < 0 { wanted = k; break }
                }
                while wanted > 0 && lambda[stackMembers[wanted]] <= 0 { wanted -= 1 }
            }
            let swipe = feedback.uniform() < s.person.swipeProbability
            let tap = feedback.uniform() < s.person.tapProbability
            let all = none + stackTotal
            w.views.append(ViewRecord(
                time: t, hour: UInt8(hour), weekday: UInt8(weekday), wanted: Int8(wanted),
                wouldSwipe: swipe, wouldTap: tap,
                bestChanceNano: all > 0 ? Int64((best / all * 1e9).rounded()) : 0,
                wantedChanceNano: all > 0 ? Int64((stackTotal / all * 1e9).rounded()) : 0))
        }
    }

    private func buildSessions(_ w: PersonWorld, end: SimTime, sessionsPerDay: Double) {
        let s = scenario
        var times: [SimTime] = []
        stream(StreamProcess.sessions).poissonArrivals(
            from: 0, to: end,
            rate: LocalHourRate(clock: w.clock, meanPerDay: sessionsPerDay, hourWeights: s.person.sessionProfile),
            into: &times)
        w.sessions.removeAll(keepingCapacity: true)
        w.sessionEnds.removeAll(keepingCapacity: true)
        let details = stream(StreamProcess.sessionDetails)
        for t in times {
            let (hour, weekday) = w.clock.hourAndWeekday(t)
            let total = interest(w, at: t, hour: hour, weekday: weekday)
            // Draw always: the widget, the donation, the length.
            let u = details.uniform() * total
            let donates = details.uniform() < s.person.donationProbability
            let length = s.person.sessionSigma > 0
                ? details.logNormal(median: Double(s.person.sessionMedianMs), sigma: s.person.sessionSigma)
                : Double(s.person.sessionMedianMs)
            guard total > 0 else { continue }  // no widget of interest at this hour
            var widget = lambda.count - 1
            var rest = u
            for i in lambda.indices {
                rest -= lambda[i]
                if rest < 0 { widget = i; break }
            }
            while widget > 0 && lambda[widget] <= 0 { widget -= 1 }
            let stop = t + max(1, SimTime(length.rounded()))
            w.sessions.append(SessionRecord(
                start: t, end: stop, widget: Int32(widget), donates: donates,
                hour: UInt8(hour), weekday: UInt8(weekday)))
            if stop < end { w.sessionEnds.append(WidgetMoment(time: stop, widget: Int32(widget))) }
        }
        w.sessionEnds.sort()
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
