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
    /// Whether the phone is in StandBy at this view.
    public var standBy: Bool = false
}

/// An app session: its widget (the one whose interest drew it), donation and span.
public struct SessionRecord: Sendable {
    public var start: SimTime
    public var end: SimTime
    public var widget: Int32
    public var donates: Bool
    /// The instance whose configuration the donated intent carries (same kind as
    /// `widget`), or −1 when it matches no configured instance.
    public var donatedInstance: Int32
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
    @exclusivity(unchecked) public internal(set) var person = 0
    @exclusivity(unchecked) public internal(set) var replication = 0
    @exclusivity(unchecked) public internal(set) var clock: LocalClock
    /// The clock's local hours, for the processes that read them in time order.
    @exclusivity(unchecked) public internal(set) var hours: LocalHours
    @exclusivity(unchecked) public internal(set) var timeChanges: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var environmentChanges: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var views: [ViewRecord] = []
    /// λ of each stack member at each view, in member order, one row of `members`
    /// values per view: row `i` for view i, or, when `interestByHour` is true, row
    /// `weekday * 24 + hour` of the view's local weekday and hour (when no member's
    /// interest bursts, λ depends on those alone, and one table serves every view).
    @exclusivity(unchecked) public internal(set) var viewInterest: [Double] = []
    @exclusivity(unchecked) public internal(set) var interestByHour = false
    @exclusivity(unchecked) public internal(set) var sessions: [SessionRecord] = []
    /// Session ends in time order, with the session's widget.
    @exclusivity(unchecked) public internal(set) var sessionEnds: [WidgetMoment] = []
    /// Every widget's random content changes, and their pushes, by time then widget
    /// (laid out with the world's order, `WorldOrder.merge`).
    @exclusivity(unchecked) public internal(set) var randomChanges: [WidgetMoment] = []
    @exclusivity(unchecked) public internal(set) var pushes: [WidgetMoment] = []
    /// Each widget's scheduled (predictable, known-ahead) changes, sorted.
    @exclusivity(unchecked) public internal(set) var scheduled: [[SimTime]] = []
    /// Each widget's push arrival times, sorted (for interest bursts).
    @exclusivity(unchecked) public internal(set) var pushTimes: [[SimTime]] = []
    /// Audio or navigation session starts and ends, each in time order, with the
    /// widget that declares its app's sessions.
    @exclusivity(unchecked) public internal(set) var audioStarts: [WidgetMoment] = []
    @exclusivity(unchecked) public internal(set) var audioEnds: [WidgetMoment] = []
    /// StandBy periods: starts and ends, in time order, one of each per night.
    @exclusivity(unchecked) public internal(set) var standByStarts: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var standByEnds: [SimTime] = []
    /// Instances added to the home screen during the run, in time order.
    @exclusivity(unchecked) public internal(set) var additions: [WidgetMoment] = []
    /// All of the above before the run's end, in the order the engine meets them.
    @exclusivity(unchecked) public internal(set) var order = WorldOrder()

    init(clock: LocalClock) {
        self.clock = clock
        hours = LocalHours(clock)
    }
}

/// Builds `PersonWorld`s for one scenario. One builder per worker thread: it keeps
/// its streams and buffers and reuses them person after person.
public final class WorldBuilder {
    public let scenario: Scenario
    let homeZone: TimeZone
    let travelZones: [TimeZone]
    let epochMs: Int64
    /// Each process's stream at the index of its number (nil where no process has it).
    let streams: [RandomStream?]
    /// The build each stream was last seeded for (`builds` then), at the same index: a
    /// stream is seeded when a build first asks for it, so processes a world does not
    /// use cost nothing. Its draws are the same: nothing draws from it before.
    @exclusivity(unchecked) var seededFor: [Int]
    /// The number of builds so far, and `StreamKey.personHash` of the last one's
    /// (replication, person): what each of its streams' seeds starts from.
    @exclusivity(unchecked) var builds = 0
    @exclusivity(unchecked) var personHash: UInt64 = 0
    let world: PersonWorld
    let stackMembers: [Int]
    let widgetCount: Int
    /// Every widget's base × hour factor × weekday factor, at
    /// `(weekday * 24 + hour) * widgetCount + widget`: the part of λ that depends on the
    /// local hour and weekday only, worked out once here rather than at every view
    /// (`InterestSpec.factor` walks the peaks). The same products, so the same doubles.
    let hourWeekdayInterest: [Double]
    /// The sum of each row of `hourWeekdayInterest` (weekday * 24 + hour), added in
    /// widget order: Σλ at that hour and weekday when no widget's interest bursts.
    let hourWeekdayTotals: [Double]
    /// Whether the widget's interest depends on more than the local hour and weekday:
    /// it bursts after pushes or around scheduled changes, or the widget is added
    /// during the run (no interest before).
    let bursts: [Bool]
    /// When each widget is added (0: there from the start).
    let addedAt: [SimTime]
    /// Widgets placed nowhere that people may want (`StackSpec.suggestable`).
    let suggestable: [Int]
    /// When no stack member's interest bursts, the members' λ at a view depends on the
    /// local hour and weekday only, and so does everything a view records of it: then
    /// `stackInterest` holds the members' λ (member order) at `(weekday * 24 + hour) *
    /// members + member` and `stackSums` the sums of each weekday and hour; both are
    /// empty otherwise.
    let stackInterest: [Double]
    let stackSums: [StackSums]
    /// Scratch: λ of every widget at one instant.
    @exclusivity(unchecked) var lambda: [Double]
    /// The least F ≥ 1 with λ_w(t) ≤ F · λ̄_w(t) for every widget: 1 without bursts,
    /// else the largest burst factor (see `buildSessions`).
    let sessionBurstBound: Double
    /// Which instance each session's donation matches.
    let donations: DonationTargets
    /// Each widget's random and scheduled content changes per ms in each local hour
    /// (`LocalHourRate.hourlyRate`): the same for every person.
    let contentRates: [(random: [Double], scheduled: [Double])]
    /// Scratch: each widget's random content changes.
    @exclusivity(unchecked) var changeTimes: [[SimTime]]
    /// The clock of someone who stays at home all run, its local hours and its time
    /// changes: the same for everyone who does not travel, so worked out once, for the
    /// first such person, and shared by the rest.
    @exclusivity(unchecked) var homeClock: (clock: LocalClock, hours: LocalHours, timeChanges: [SimTime])?
    /// Scratch: the arrival times of the views, then of the sessions, kept with their
    /// storage from person to person (filled afresh, the list grows only the first time).
    @exclusivity(unchecked) var arrivalTimes: [SimTime] = []
    /// Whether views whose λ depends on the local hour and weekday alone are built in
    /// a loop of their own (`buildViewsByHour`) rather than the general one; tests turn
    /// it off to compare the two.
    @exclusivity(unchecked) var viewsByHourInOwnLoop = true
    /// The same for sessions when no widget's interest bursts (`buildSessionsByHour`).
    @exclusivity(unchecked) var sessionsByHourInOwnLoop = true

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
        var processes: [UInt64] = [
            StreamProcess.personRates, StreamProcess.views, StreamProcess.wanted,
            StreamProcess.feedback, StreamProcess.sessions, StreamProcess.sessionDetails,
            StreamProcess.travel, StreamProcess.environment, StreamProcess.sessionThinning,
            StreamProcess.donatedConfigurations, StreamProcess.standBy,
        ]
        for w in scenario.widgets.indices {
            processes += [StreamProcess.randomChanges(w), StreamProcess.pushes(w), StreamProcess.scheduled(w),
                          StreamProcess.audioSessions(w)]
        }
        var streams = [RandomStream?](repeating: nil, count: Int(processes.max() ?? 0) + 1)
        for p in processes { streams[Int(p)] = RandomStream(kind: scenario.generator, seed: 1) }
        self.streams = streams
        seededFor = Array(repeating: 0, count: streams.count)
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
        hourWeekdayTotals = (0 ..< 7 * 24).map { row in
            var total = 0.0
            for i in 0 ..< scenario.widgets.count { total += table[row * scenario.widgets.count + i] }
            return total
        }
        let addedAt = scenario.widgets.map { $0.addedAfterMs ?? 0 }
        self.addedAt = addedAt
        suggestable = scenario.stack.suggestable
        let bursts = scenario.widgets.indices.map { i in
            scenario.widgets[i].interest.afterPush != nil || scenario.widgets[i].interest.aroundScheduled != nil
                || addedAt[i] > 0
        }
        self.bursts = bursts
        var stackInterest: [Double] = []
        var stackSums: [StackSums] = []
        if !stackMembers.contains(where: { bursts[$0] }) && suggestable.isEmpty {
            for row in 0 ..< 7 * 24 {
                let first = stackInterest.count
                for m in stackMembers { stackInterest.append(table[row * widgetCount + m]) }
                stackSums.append(StackSums(stackInterest[first...], noInterest: scenario.person.noInterest))
            }
        }
        self.stackInterest = stackInterest
        self.stackSums = stackSums
        lambda = Array(repeating: 0, count: scenario.widgets.count)
        sessionBurstBound = scenario.widgets.reduce(1.0) { bound, spec in
            max(bound, spec.interest.afterPush?.factor ?? 1, spec.interest.aroundScheduled?.factor ?? 1)
        }
        donations = DonationTargets(scenario.widgets)
        changeTimes = Array(repeating: [], count: scenario.widgets.count)
        contentRates = scenario.widgets.map {
            (LocalHourRate.hourlyRate(meanPerDay: $0.content.randomPerDay, hourWeights: $0.content.randomProfile),
             LocalHourRate.hourlyRate(meanPerDay: $0.content.scheduledPerDay, hourWeights: $0.content.scheduledProfile))
        }
    }

    /// The stream of `process`, seeded for the person and replication being built.
    func stream(_ process: UInt64) -> RandomStream {
        let i = Int(process)
        let stream = streams[i]!
        if seededFor[i] != builds {
            stream.reseed(gslSeed: StreamKey.gslSeed(personHash: personHash, process: process))
            seededFor[i] = builds
        }
        return stream
    }

    /// The world of `person` in `replication`. The returned object is reused by the
    /// next call: finish with it first.
    public func build(person: Int, replication: Int) -> PersonWorld {
        let s = scenario
        // Every stream is seeded for this person when first asked for (`stream(_:)`).
        builds += 1
        personHash = StreamKey(seed: s.seed, replication: replication, person: person, process: 0).personHash
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
        if trips.isEmpty, let home = homeClock {
            (w.clock, w.hours, w.timeChanges) = home
        } else {
            w.clock = LocalClock(home: homeZone, epochMs: epochMs, end: end, trips: trips)
            w.hours = LocalHours(w.clock)
            w.timeChanges = w.clock.timeChanges()
            if trips.isEmpty { homeClock = (w.clock, w.hours, w.timeChanges) }
        }

        w.environmentChanges.removeAll(keepingCapacity: true)
        if s.person.environmentChangesPerDay > 0 {
            stream(StreamProcess.environment).poissonArrivals(
                from: 0, to: end, rate: DailyProfile(meanPerDay: s.person.environmentChangesPerDay, hourWeights: HourProfile.flat),
                into: &w.environmentChanges)
        }

        buildContent(w, end: end)
        buildStandBy(w, end: end)
        buildViews(w, end: end, viewsPerDay: viewsPerDay)
        if let replay = s.replay {
            replaySessions(w, replay, person: person, end: end)
        } else {
            buildSessions(w, end: end, sessionsPerDay: sessionsPerDay)
        }
        buildAudioSessions(w, end: end)
        w.additions.removeAll(keepingCapacity: true)
        for i in addedAt.indices where addedAt[i] > 0 && addedAt[i] < end {
            w.additions.append(WidgetMoment(time: addedAt[i], widget: Int32(i)))
        }
        w.additions.sort()
        w.order.merge(w, changes: changeTimes, before: end)
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
                w.hours.poissonArrivals(
                    stream(StreamProcess.scheduled(i)), from: 0, to: end, hourlyRate: contentRates[i].scheduled,
                    into: &w.scheduled[i])
            }
            changeTimes[i].removeAll(keepingCapacity: true)
            w.pushTimes[i].removeAll(keepingCapacity: true)
            if c.randomPerDay > 0 {
                w.hours.poissonArrivals(
                    stream(StreamProcess.randomChanges(i)), from: 0, to: end, hourlyRate: contentRates[i].random,
                    into: &changeTimes[i])
                let pushDraws = stream(StreamProcess.pushes(i))
                let fixedLatency = SimTime(Double(c.pushLatencyMedianMs).rounded())
                let changes = changeTimes[i]
                let p = c.pushFraction
                // At most one push per change: written once each into an array of that many.
                w.pushTimes[i].replaceAll(unsafeUninitializedCapacity: changes.count) { pushTimes, filled in
                    // The loop over the changes, for the stream itself or for a copy of its
                    // `taus2` state (which the loop keeps in registers); `latency` draws a
                    // push's latency from the stream, or gives the fixed one.
                    func fill(_ draws: inout some UniformSource, latency: () -> SimTime) {
                        var n = 0
                        for t in changes {
                            // Draw always: whether announced (`bernoulli`), and the latency.
                            let announced = draws.uniform() < p
                            let arrival = t + latency()
                            if announced && arrival < end {
                                (pushTimes.baseAddress! + n).initialize(to: arrival)
                                n += 1
                            }
                        }
                        filled = n
                    }
                    let copied = c.pushLatencySigma > 0 ? false
                        : pushDraws.withTausUniforms { fill(&$0) { fixedLatency } } != nil
                    if !copied {
                        var draws = pushDraws
                        fill(&draws) {
                            c.pushLatencySigma > 0
                                ? CheckedTime.milliseconds(
                                    pushDraws.logNormal(median: Double(c.pushLatencyMedianMs), sigma: c.pushLatencySigma).rounded())
                                : fixedLatency
                        }
                    }
                }
                // With a fixed latency the pushes keep the changes' order.
                if c.pushLatencySigma > 0 { w.pushTimes[i].sortUnlessSorted() }
            }
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

    /// Widget `i`'s burst factor at `t` (1 outside every burst; 0 before the widget
    /// is added).
    private func burst(_ i: Int, _ w: PersonWorld, at t: SimTime) -> Double {
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

    private func buildViews(_ w: PersonWorld, end: SimTime, viewsPerDay: Double) {
        let s = scenario
        var times = arrivalTimes
        arrivalTimes = []
        defer { arrivalTimes = times }
        times.removeAll(keepingCapacity: true)
        w.hours.poissonArrivals(
            stream(StreamProcess.views), from: 0, to: end,
            hourlyRate: LocalHourRate.hourlyRate(meanPerDay: viewsPerDay, hourWeights: s.person.viewProfile),
            into: &times)
        // Glances in StandBy, beside the ordinary views.
        if let standBy = s.person.standBy, standBy.viewsPerHour > 0 {
            let glances = stream(StreamProcess.standBy)
            for (a, b) in zip(w.standByStarts, w.standByEnds) {
                glances.poissonArrivals(
                    from: a, to: b,
                    rate: DailyProfile(meanPerDay: standBy.viewsPerHour * 24, hourWeights: HourProfile.flat),
                    into: &times)
            }
            times.sort()
        }
        var standByIndex = 0
        // The λ rows of views whose λ is worked out at each view go to a local array,
        // moved out of the world and the builder and back (no copy is made): an append
        // to a class's array property checks that the array is not shared every time,
        // an append to a local one need not.
        let byHour = !stackSums.isEmpty
        var viewInterest = byHour ? [] : w.viewInterest, lambda = self.lambda
        w.viewInterest = []
        self.lambda = []
        defer {
            w.viewInterest = byHour ? stackInterest : viewInterest
            w.interestByHour = byHour
            self.lambda = lambda
        }
        viewInterest.removeAll(keepingCapacity: true)
        if byHour && viewsByHourInOwnLoop {
            buildViewsByHour(w, times: times)
            return
        }
        let wantedDraws = stream(StreamProcess.wanted)
        let feedback = stream(StreamProcess.feedback)
        // The feedback stream draws only these two uniforms per view. When neither
        // probability can go either way (0, or 1 and above: u < p is then false, or true,
        // for every u in [0, 1)), every draw's outcome is known, and leaving the stream
        // undrawn changes nothing else.
        let swipeP = s.person.swipeProbability, tapP = s.person.tapProbability
        let feedbackIsFixed = (swipeP <= 0 || swipeP >= 1) && (tapP <= 0 || tapP >= 1)
        let swipeAlways = swipeP >= 1, tapAlways = tapP >= 1
        let none = s.person.noInterest
        let n = stackMembers.count
        let starts = w.standByStarts, ends = w.standByEnds
        // The local hour and weekday hold from one view to the next until `until`, the
        // end of the view's span of `LocalHours` (span `spanIndex`), and so, when λ depends on
        // them alone, do the stack's sums and the row of λ.
        let spans = w.hours.spans
        var hour = 0, weekday = 0, until = SimTime.min, spanIndex = 0
        var hourSums = StackSums()
        var hourRow = UnsafeBufferPointer<Double>(start: nil, count: 0)
        // Every arrival is a view: the records are written once each over the last
        // person's (moved out of the world and back), and the by-hour table is read
        // through a pointer (a slice of the array property would retain it at every view).
        var records = w.views
        w.views = []
        defer { w.views = records }
        records.replaceAll(unsafeUninitializedCapacity: times.count) { out, filled in
            stackInterest.withUnsafeBufferPointer { table in
                for (k, t) in times.enumerated() {
                    while standByIndex < ends.count && ends[standByIndex] <= t { standByIndex += 1 }
                    let inStandBy = standByIndex < starts.count && starts[standByIndex] <= t
                    if t >= until {
                        while spans[spanIndex].end <= t { spanIndex += 1 }
                        let span = spans[spanIndex]
                        (hour, weekday, until) = (Int(span.hour), Int(span.weekday), span.end)
                        if byHour {
                            let row = weekday * 24 + hour
                            hourSums = stackSums[row]
                            hourRow = UnsafeBufferPointer(rebasing: table[row * n ..< row * n + n])
                        }
                    }
                    // The members' λ and their sums: looked up when they depend on the hour
                    // and weekday only, worked out at t (and kept in `viewInterest`) otherwise.
                    let sums: StackSums
                    // λ of the widgets placed nowhere (`suggestable`), which people may want too.
                    var placedNowhere = 0.0
                    // Where this view's row starts in `viewInterest`.
                    var first = 0
                    if byHour {
                        sums = hourSums
                    } else {
                        _ = interest(w, at: t, hour: hour, weekday: weekday, into: &lambda)
                        first = viewInterest.count
                        for m in stackMembers { viewInterest.append(lambda[m]) }
                        for x in suggestable { placedNowhere += lambda[x] }
                        sums = StackSums(viewInterest[first...], noInterest: none + placedNowhere)
                    }
                    // Draw always: the wanted member (n + j: suggestable widget j), then swipe and tap.
                    let u = wantedDraws.uniform() * (none + placedNowhere + sums.total)
                    var wanted = -1
                    if u >= none && placedNowhere > 0 && u - none >= sums.total {
                        var v = u - none - sums.total
                        var j = 0
                        while j < suggestable.count - 1 && v >= lambda[suggestable[j]] {
                            v -= lambda[suggestable[j]]
                            j += 1
                        }
                        wanted = n + j
                    } else if u >= none && sums.total > 0 {
                        if byHour {
                            wanted = RandomStream.inverse(u - none, weights: hourRow)
                        } else {
                            wanted = viewInterest.withUnsafeBufferPointer {
                                RandomStream.inverse(u - none, weights: UnsafeBufferPointer(rebasing: $0[first ..< first + n]))
                            }
                        }
                    }
                    let swipe: Bool, tap: Bool
                    if feedbackIsFixed {
                        swipe = swipeAlways
                        tap = tapAlways
                    } else {
                        swipe = feedback.uniform() < swipeP
                        tap = feedback.uniform() < tapP
                    }
                    // The hour and weekday are a span's bytes, widened and narrowed back.
                    (out.baseAddress! + k).initialize(to: ViewRecord(
                        time: t, hour: UInt8(truncatingIfNeeded: hour), weekday: UInt8(truncatingIfNeeded: weekday),
                        wanted: Int8(wanted),
                        wouldSwipe: swipe, wouldTap: tap,
                        bestChanceNano: sums.bestChanceNano, wantedChanceNano: sums.wantedChanceNano, standBy: inStandBy))
                }
            }
            filled = times.count
        }
    }

    /// The views of `times` when the members' λ depends on the local hour and weekday
    /// only and no widget is placed nowhere (`stackSums` is not empty): what the general
    /// loop of `buildViews` writes, in three passes that each keep their state in
    /// registers. Each stream's draws keep their order (the wanted member's stream draws
    /// once per view, the feedback stream twice, and neither draws elsewhere), so the
    /// passes draw what the general loop draws, as `viewsByHourInOwnLoop` lets tests
    /// check:
    /// 1. span by span of the local hours, the views of the span with the span's
    ///    sums and row of λ, and their wanted members;
    /// 2. unless their outcomes are certain, the swipe and tap draws;
    /// 3. the views in each StandBy period.
    @inline(never)
    private func buildViewsByHour(_ w: PersonWorld, times: [SimTime]) {
        let s = scenario
        let wantedDraws = stream(StreamProcess.wanted)
        // As in `buildViews`: with both probabilities 0 or at least 1 the feedback stream
        // is left undrawn.
        let swipeP = s.person.swipeProbability, tapP = s.person.tapProbability
        let feedbackIsFixed = (swipeP <= 0 || swipeP >= 1) && (tapP <= 0 || tapP >= 1)
        let swipeAlways = swipeP >= 1, tapAlways = tapP >= 1
        let none = s.person.noInterest
        // λ of the widgets placed nowhere: there are none.
        let placedNowhere = 0.0
        let n = stackMembers.count
        let count = times.count
        // The records are written over the last person's, moved out of the world and back.
        var records = w.views
        w.views = []
        records.resizeForOverwrite(count)
        records.withUnsafeMutableBufferPointer { out in
            times.withUnsafeBufferPointer { timeBuffer in
                w.hours.spans.withUnsafeBufferPointer { spans in
                    stackInterest.withUnsafeBufferPointer { table in
                        stackSums.withUnsafeBufferPointer { sumsTable in
                            let times = timeBuffer.baseAddress, views = out.baseAddress!
                            // The loop over the views, for the wanted stream itself or for a
                            // copy of its `taus2` state (which the loop keeps in registers).
                            func fill(_ wantedDraws: inout some UniformSource) {
                                var k = 0, spanIndex = 0
                                while k < count {
                                    // The span of view k, and every view before its end.
                                    while spans[spanIndex].end <= times![k] { spanIndex &+= 1 }
                                    let span = spans[spanIndex]
                                    let r = Int(span.weekday) &* 24 &+ Int(span.hour)
                                    let sums = sumsTable[r]
                                    let total = sums.total, scale = none + placedNowhere + sums.total
                                    let row = UnsafeBufferPointer(rebasing: table[r &* n ..< r &* n &+ n])
                                    let wants = total > 0
                                    repeat {
                                        let t = times![k]
                                        // Draw always: the wanted member.
                                        let u = wantedDraws.uniform() * scale
                                        var wanted = -1
                                        if u >= none && wants { wanted = RandomStream.inverse(u - none, weights: row) }
                                        (views + k).initialize(to: ViewRecord(
                                            time: t, hour: span.hour, weekday: span.weekday, wanted: Int8(wanted),
                                            wouldSwipe: swipeAlways, wouldTap: tapAlways,
                                            bestChanceNano: sums.bestChanceNano, wantedChanceNano: sums.wantedChanceNano))
                                        k &+= 1
                                    } while k < count && times![k] < span.end
                                }
                            }
                            if wantedDraws.withTausUniforms({ fill(&$0) }) == nil {
                                var draws = wantedDraws
                                fill(&draws)
                            }
                        }
                    }
                }
            }
        }
        w.views = records
        if !feedbackIsFixed {
            let feedback = stream(StreamProcess.feedback)
            w.views.withUnsafeMutableBufferPointer { views in
                for k in views.indices {
                    views[k].wouldSwipe = feedback.uniform() < swipeP
                    views[k].wouldTap = feedback.uniform() < tapP
                }
            }
        }
        // A view is in StandBy when a period holds it (the periods are apart, in order).
        let starts = w.standByStarts, ends = w.standByEnds
        if !starts.isEmpty {
            w.views.withUnsafeMutableBufferPointer { views in
                var k = 0
                for (start, end) in zip(starts, ends) {
                    while k < views.count && views[k].time < start { k += 1 }
                    while k < views.count && views[k].time < end {
                        views[k].standBy = true
                        k += 1
                    }
                }
            }
        }
    }

    /// App sessions (MODEL §2): widget w's sessions are a Poisson process of rate
    /// r(t) · λ_w(t) / Σ_v λ̄_v(t), where r is `sessions_per_day` spread by
    /// `session_profile`, λ_w(t) is w's interest with its bursts and λ̄_v(t) is v's
    /// interest without bursts. Without bursts the rates sum to r(t), so
    /// `sessions_per_day` is the day's mean; a burst of one widget adds sessions of
    /// that widget and takes none from the others.
    ///
    /// The widgets' processes are generated together, as their superposition: one
    /// Poisson stream of candidates at rate F · r(t), F ≥ every burst factor, each kept
    /// with probability Σλ(t) / (F · Σλ̄(t)) (thinning) and given to widget w with
    /// probability λ_w(t) / Σλ(t). By the colouring theorem of Poisson processes this is
    /// exactly the law of independent per-widget processes. When no widget bursts, F = 1
    /// and every candidate is kept with no draw.
    private func buildSessions(_ w: PersonWorld, end: SimTime, sessionsPerDay: Double) {
        let s = scenario
        var times = arrivalTimes
        arrivalTimes = []
        defer { arrivalTimes = times }
        times.removeAll(keepingCapacity: true)
        w.hours.poissonArrivals(
            stream(StreamProcess.sessions), from: 0, to: end,
            hourlyRate: LocalHourRate.hourlyRate(meanPerDay: sessionsPerDay * sessionBurstBound,
                                                 hourWeights: s.person.sessionProfile),
            into: &times)
        var lambda = self.lambda
        self.lambda = []
        defer { self.lambda = lambda }
        let details = stream(StreamProcess.sessionDetails)
        let thinning = stream(StreamProcess.sessionThinning)
        let configurations = stream(StreamProcess.donatedConfigurations)
        let thin = bursts.contains(true)
        // A session's length in whole ms (at least 1), when it is not drawn.
        let fixedDuration = max(1, CheckedTime.milliseconds(Double(s.person.sessionMedianMs).rounded()))
        if !thin && sessionsByHourInOwnLoop {
            buildSessionsByHour(w, times: times, end: end, fixedDuration: fixedDuration)
            return
        }
        // The local hour and weekday hold from one session to the next until `until`, the
        // end of the session's span of `LocalHours` (span `spanIndex`), and so, when no widget's
        // interest bursts, does λ: the row of `hourWeekdayInterest`, with its sum in
        // `hourWeekdayTotals`.
        let spans = w.hours.spans
        var hour = 0, weekday = 0, until = SimTime.min, row = 0, spanIndex = 0
        // At most one session and one session end per candidate: each written once into
        // room for that many, over the last person's lists (moved out of the world and back).
        var records = w.sessions, sessionEnds = w.sessionEnds
        w.sessions = []
        w.sessionEnds = []
        records.replaceAll(unsafeUninitializedCapacity: times.count) { sessions, sessionsFilled in
            sessionEnds.replaceAll(unsafeUninitializedCapacity: times.count) { ends, endsFilled in
                hourWeekdayInterest.withUnsafeBufferPointer { table in
                    for t in times {
                        if t >= until {
                            while spans[spanIndex].end <= t { spanIndex += 1 }
                            let span = spans[spanIndex]
                            (hour, weekday, until) = (Int(span.hour), Int(span.weekday), span.end)
                            row = weekday * 24 + hour
                        }
                        let total = thin ? interest(w, at: t, hour: hour, weekday: weekday, into: &lambda) : hourWeekdayTotals[row]
                        // Draw always: acceptance (when widgets burst), the widget, the donation,
                        // the length, the donated configuration.
                        var keep = total > 0
                        if thin {
                            let calm = hourWeekdayTotals[row]
                            keep = keep && thinning.uniform() * sessionBurstBound * calm < total
                        }
                        let u = details.uniform() * total
                        let donates = details.uniform() < s.person.donationProbability
                        let duration = s.person.sessionSigma > 0
                            ? max(1, CheckedTime.milliseconds(
                                details.logNormal(median: Double(s.person.sessionMedianMs), sigma: s.person.sessionSigma).rounded()))
                            : fixedDuration
                        let c = configurations.uniform()
                        guard keep else { continue }  // no widget of interest at this hour, or thinned out
                        let widget = thin
                            ? lambda.withUnsafeBufferPointer { RandomStream.inverse(u, weights: $0) }
                            : RandomStream.inverse(
                                u, weights: UnsafeBufferPointer(rebasing: table[row * widgetCount ..< (row + 1) * widgetCount]))
                        let stop = t + duration
                        (sessions.baseAddress! + sessionsFilled).initialize(to: SessionRecord(
                            start: t, end: stop, widget: Int32(widget), donates: donates,
                            donatedInstance: Int32(donations.target(of: widget, uniform: c)),
                            hour: UInt8(hour), weekday: UInt8(weekday)))
                        sessionsFilled += 1
                        if stop < end {
                            (ends.baseAddress! + endsFilled).initialize(to: WidgetMoment(time: stop, widget: Int32(widget)))
                            endsFilled += 1
                        }
                    }
                }
            }
        }
        w.sessions = records
        sessionEnds.sortUnlessSorted()
        w.sessionEnds = sessionEnds
    }
}

extension WorldBuilder {
    /// The sessions of the candidate times `times` when no widget's interest bursts: the
    /// general loop of `buildSessions` without thinning, span by span of the local hours
    /// (λ is the span's row of `hourWeekdayInterest`), so that its state fits in
    /// registers. The same draws in the same order and the same records, as
    /// `sessionsByHourInOwnLoop` lets tests check.
    @inline(never)
    func buildSessionsByHour(_ w: PersonWorld, times: [SimTime], end: SimTime, fixedDuration: SimTime) {
        let person = scenario.person
        let details = stream(StreamProcess.sessionDetails)
        let configurations = stream(StreamProcess.donatedConfigurations)
        let donationProbability = person.donationProbability
        let sigma = person.sessionSigma, median = Double(person.sessionMedianMs)
        let count = times.count, widgets = widgetCount
        // At most one session and one session end per candidate: each written once, over
        // the last person's lists (moved out of the world and back), made that long, then
        // cut to what was written.
        var records = w.sessions, sessionEnds = w.sessionEnds
        w.sessions = []
        w.sessionEnds = []
        records.resizeForOverwrite(count)
        sessionEnds.resizeForOverwrite(count)
        var sessionsFilled = 0, endsFilled = 0
        records.withUnsafeMutableBufferPointer { sessions in
            sessionEnds.withUnsafeMutableBufferPointer { ends in
                times.withUnsafeBufferPointer { times in
                    w.hours.spans.withUnsafeBufferPointer { spans in
                        hourWeekdayInterest.withUnsafeBufferPointer { table in
                            hourWeekdayTotals.withUnsafeBufferPointer { totals in
                                // The loop over the candidates, for the streams themselves or for copies
                                // of their `taus2` states (which the loop keeps in registers); `duration`
                                // draws a session's length from the details stream, or gives the fixed one.
                                func fill(
                                    _ details: inout some UniformSource, _ configurations: inout some UniformSource,
                                    duration: () -> SimTime
                                ) {
                                    var k = 0, spanIndex = 0, filled = 0, endCount = 0
                                    while k < count {
                                        // The span of candidate k, and every candidate before its end.
                                        while spans[spanIndex].end <= times[k] { spanIndex &+= 1 }
                                        let span = spans[spanIndex]
                                        let row = Int(span.weekday) &* 24 &+ Int(span.hour)
                                        let total = totals[row]
                                        let weights = UnsafeBufferPointer(rebasing: table[row &* widgets ..< (row &+ 1) &* widgets])
                                        repeat {
                                            let t = times[k]
                                            k &+= 1
                                            // Draw always: the widget, the donation, the length, the
                                            // donated configuration.
                                            let u = details.uniform() * total
                                            let donates = details.uniform() < donationProbability
                                            let duration = duration()
                                            let c = configurations.uniform()
                                            guard total > 0 else { continue }  // no widget of interest at this hour
                                            let widget = RandomStream.inverse(u, weights: weights)
                                            let stop = t + duration
                                            (sessions.baseAddress! + filled).initialize(to: SessionRecord(
                                                start: t, end: stop, widget: Int32(widget), donates: donates,
                                                donatedInstance: Int32(donations.target(of: widget, uniform: c)),
                                                hour: span.hour, weekday: span.weekday))
                                            filled &+= 1
                                            if stop < end {
                                                (ends.baseAddress! + endCount).initialize(to: WidgetMoment(time: stop, widget: Int32(widget)))
                                                endCount &+= 1
                                            }
                                        } while k < count && times[k] < span.end
                                    }
                                    sessionsFilled = filled
                                    endsFilled = endCount
                                }
                                let copied = sigma > 0 ? false : details.withTausUniforms { details in
                                    configurations.withTausUniforms { configurations in
                                        fill(&details, &configurations) { fixedDuration }
                                    } != nil
                                } ?? false
                                if !copied {
                                    var detailDraws = details, configurationDraws = configurations
                                    fill(&detailDraws, &configurationDraws) {
                                        sigma > 0
                                            ? max(1, CheckedTime.milliseconds(details.logNormal(median: median, sigma: sigma).rounded()))
                                            : fixedDuration
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        records.removeLast(count - sessionsFilled)
        sessionEnds.removeLast(count - endsFilled)
        w.sessions = records
        sessionEnds.sortUnlessSorted()
        w.sessionEnds = sessionEnds
    }

    /// StandBy periods (see `StandByModel`): for every local night, the one before the
    /// start included (the person may be asleep at the start), always the same draws
    /// (start offset, length) whether or not the period falls in the run.
    func buildStandBy(_ w: PersonWorld, end: SimTime) {
        w.standByStarts.removeAll(keepingCapacity: true)
        w.standByEnds.removeAll(keepingCapacity: true)
        guard let model = scenario.person.standBy else { return }
        let draws = stream(StreamProcess.standBy)
        let clock = w.clock
        var previousEnd: SimTime = 0
        for day in -1 ..< scenario.days {
            // The local midnight nearest the run's day start (they differ after a DST
            // change or during a trip).
            let dayStart = SimTime(day) * Milliseconds.day
            let local = clock.localMs(dayStart)
            var sinceMidnight = local - LocalClock.floorDiv(local, Milliseconds.day) * Milliseconds.day
            if sinceMidnight > Milliseconds.day / 2 { sinceMidnight -= Milliseconds.day }
            let midnight = dayStart - sinceMidnight
            let shift = draws.uniform()
            let length = model.sigma > 0
                ? draws.logNormal(median: Double(model.medianMs), sigma: model.sigma)
                : Double(model.medianMs)
            let nominal = midnight + SimTime((model.startHour * Double(Milliseconds.hour)).rounded())
                - model.spreadMs / 2 + SimTime((shift * Double(model.spreadMs)).rounded(.down))
            let start = max(previousEnd, nominal)
            let stop = min(end, nominal + max(1, CheckedTime.milliseconds(length.rounded())))
            guard start < stop else { continue }
            if let last = w.standByEnds.last, last >= start {
                w.standByEnds[w.standByEnds.count - 1] = stop  // runs into the next night's: one period
            } else {
                w.standByStarts.append(start)
                w.standByEnds.append(stop)
            }
            previousEnd = stop
        }
    }

    /// Audio or navigation sessions of every app that has them (`AudioSessionModel`):
    /// Poisson starts from the declaring widget's own stream, then one length draw each.
    func buildAudioSessions(_ w: PersonWorld, end: SimTime) {
        w.audioStarts.removeAll(keepingCapacity: true)
        w.audioEnds.removeAll(keepingCapacity: true)
        var starts: [SimTime] = []
        for (i, spec) in scenario.widgets.enumerated() {
            guard let model = spec.audioSessions, model.perDay > 0 else { continue }
            let r = stream(StreamProcess.audioSessions(i))
            starts.removeAll(keepingCapacity: true)
            w.hours.poissonArrivals(
                r, from: 0, to: end, hourlyRate: LocalHourRate.hourlyRate(meanPerDay: model.perDay, hourWeights: model.profile),
                into: &starts)
            for t in starts {
                let length = model.sigma > 0
                    ? r.logNormal(median: Double(model.medianMs), sigma: model.sigma)
                    : Double(model.medianMs)
                let stop = t + max(1, CheckedTime.milliseconds(length.rounded()))
                w.audioStarts.append(WidgetMoment(time: t, widget: Int32(i)))
                if stop < end { w.audioEnds.append(WidgetMoment(time: stop, widget: Int32(i))) }
            }
        }
        w.audioStarts.sort()
        w.audioEnds.sort()
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

extension Array {
    /// Replaces the elements by those `initializer` writes, as
    /// `init(unsafeUninitializedCapacity:initializingWith:)` makes them, into the array's
    /// own storage when it is not shared and holds `capacity` elements: a world's lists
    /// are built afresh for each person, and a new array costs more than the writes of
    /// a short list (its allocation looks up the storage's type metadata each time).
    ///
    /// The elements reach the storage through `Array.append(contentsOf:)`, which hands
    /// a sequence its free capacity to write into (`Sequence._copyContents`, the entry
    /// point through which arrays copy any sequence).
    mutating func replaceAll(
        unsafeUninitializedCapacity capacity: Int,
        initializingWith initializer: (inout UnsafeMutableBufferPointer<Element>, inout Int) -> Void
    ) {
        removeAll(keepingCapacity: true)
        reserveCapacity(capacity)
        withoutActuallyEscaping(initializer) { initializer in
            append(contentsOf: WrittenInPlace(capacity: capacity, initializer: initializer))
        }
    }
}

extension Array {
    /// Makes the array `count` elements long, over its own storage when it is not shared
    /// and holds that many, without writing the elements: for plain values (no
    /// references), which the caller writes every one of before any is read (the
    /// elements' bits are those the storage held). A list
    /// written through `withUnsafeMutableBufferPointer` then costs neither a new
    /// array's allocation (see `replaceAll`) nor a first write of each element.
    mutating func resizeForOverwrite(_ count: Int) {
        assert(_isPOD(Element.self), "elements that hold references must be initialized")
        replaceAll(unsafeUninitializedCapacity: count) { _, filled in filled = count }
    }
}

/// The elements an initializer writes into the buffer it is given, as a sequence
/// (see `Array.replaceAll(unsafeUninitializedCapacity:initializingWith:)`). It claims
/// no elements ahead (`underestimatedCount` 0), since it may write fewer than
/// `capacity`.
private struct WrittenInPlace<Element>: Sequence {
    let capacity: Int
    let initializer: (inout UnsafeMutableBufferPointer<Element>, inout Int) -> Void

    func makeIterator() -> EmptyCollection<Element>.Iterator { EmptyCollection().makeIterator() }

    func _copyContents(
        initializing buffer: UnsafeMutableBufferPointer<Element>
    ) -> (EmptyCollection<Element>.Iterator, UnsafeMutableBufferPointer<Element>.Index) {
        precondition(buffer.count >= capacity, "an array's free capacity below what it reserved")
        var slice = UnsafeMutableBufferPointer(rebasing: buffer[..<capacity])
        var filled = 0
        initializer(&slice, &filled)
        precondition(filled <= capacity, "more elements written than there is room for")
        return (makeIterator(), filled)
    }
}

extension Array where Element: Comparable {
    /// Sorts the array unless it is sorted already, as lists of times built in order
    /// usually are (fixed latencies and lengths): one look at each neighbouring pair
    /// costs less than the sort's own passes.
    mutating func sortUnlessSorted() {
        var i = 1
        while i < count && !(self[i] < self[i - 1]) { i += 1 }
        if i < count { sort() }
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
