import Foundation
import WidgetSimKernel
import WidgetSimSampling

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
    /// `stackInterest`'s rows each followed by +∞ (rows of members + 1), for
    /// `invertEnded`; empty when `stackSums` is.
    let stackInterestEnded: [Double]
    /// A view's wanted member (`wantedMember(uniform:…)`) from its `taus2` word, in
    /// each row of `stackSums`; no rows when `stackSums` is empty, or when the
    /// scenario's streams are not `taus2`.
    let wantedSteps: WordSteps
    /// A session's widget (`RandomStream.inverse` of u × Σλ over the row's λ; −1 when
    /// Σλ is 0) from its `taus2` word, in each row of `hourWeekdayInterest`; no rows
    /// when a widget's interest bursts (sessions are then thinned) or the scenario's
    /// streams are not `taus2`.
    let sessionSteps: WordSteps
    /// The words of a `taus2` stream whose uniform is below `donation_probability`.
    let donationWords: UInt64
    /// The same for each widget's `push_fraction`.
    let pushWords: [UInt64]
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
    /// The last person's views and sessions per ms in each local hour, and the mean per
    /// day they were worked out for: the next person's when their mean is the same (the
    /// same numbers, from the same ones), as it is for everyone when the rates do not
    /// vary between people.
    @exclusivity(unchecked) var lastViewRate: (perDay: Double, hourly: [Double])? = nil
    @exclusivity(unchecked) var lastSessionRate: (perDay: Double, hourly: [Double])? = nil
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
        // `invertEnded` draws from these rows: its targets, below none + a row's sum, are
        // then finite.
        precondition(stackInterest.allSatisfy(\.isFinite) && scenario.person.noInterest.isFinite
                     && stackSums.allSatisfy { (scenario.person.noInterest + $0.total).isFinite },
                     "a stack member's λ, or a sum of them, is not finite")
        let members = stackMembers.count
        self.stackInterestEnded = stackSums.isEmpty ? [] : (0 ..< 7 * 24).flatMap { row in
            stackInterest[row * members ..< row * members + members] + [Double.infinity]
        }
        self.stackInterest = stackInterest
        self.stackSums = stackSums
        let none = scenario.person.noInterest
        // Steps only where a guide can number the outcomes (a scenario file's stacks and
        // widgets always can; a scenario built in code may hold more widgets).
        wantedSteps = stackSums.isEmpty || scenario.generator != .taus2 || !WordSteps.numbers(members)
            ? WordSteps() : stackInterestEnded.withUnsafeBufferPointer { rows in
            WordSteps(rows: stackSums.count, count: members) { r, u in
                Self.wantedMember(uniform: u, none: none, total: stackSums[r].total, row: rows.baseAddress! + r * (members + 1), count: members)
            }
        }
        let widgets = widgetCount, totals = hourWeekdayTotals
        sessionSteps = bursts.contains(true) || scenario.generator != .taus2 || !WordSteps.numbers(widgets)
            ? WordSteps() : table.withUnsafeBufferPointer { table in
            WordSteps(rows: 7 * 24, count: widgets) { r, u in
                let weights = UnsafeBufferPointer(rebasing: table[r * widgets ..< (r + 1) * widgets])
                return totals[r] > 0 ? RandomStream.inverse(u * totals[r], weights: weights) : -1
            }
        }
        donationWords = WordSteps.wordsBelow(scenario.person.donationProbability)
        pushWords = scenario.widgets.map { WordSteps.wordsBelow($0.content.pushFraction) }
        lambda = Array(repeating: 0, count: scenario.widgets.count)
        sessionBurstBound = Self.sessionBurstBound(scenario)
        donations = DonationTargets(scenario.widgets)
        changeTimes = Array(repeating: [], count: scenario.widgets.count)
        contentRates = scenario.widgets.map {
            (LocalHourRate.hourlyRate(meanPerDay: $0.content.randomPerDay, hourWeights: $0.content.randomProfile),
             LocalHourRate.hourlyRate(meanPerDay: $0.content.scheduledPerDay, hourWeights: $0.content.scheduledProfile))
        }
    }

    /// The least F ≥ 1 with λ_w(t) ≤ F · λ̄_w(t) for every widget of `scenario`: 1 without
    /// bursts, else the largest burst factor. Sessions are drawn F times as often as they
    /// come and thinned (`buildSessions`).
    public static func sessionBurstBound(_ scenario: Scenario) -> Double {
        scenario.widgets.reduce(1.0) { bound, spec in
            max(bound, spec.interest.afterPush?.factor ?? 1, spec.interest.aroundScheduled?.factor ?? 1)
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

    /// `LocalHourRate.hourlyRate(meanPerDay:hourWeights:)`, or `last`'s when it was
    /// worked out for the same mean per day (and `hourWeights`, the caller's own for
    /// every person); `last` then holds this one.
    func hourlyRate(
        _ last: inout (perDay: Double, hourly: [Double])?, meanPerDay: Double, hourWeights: [Double]
    ) -> [Double] {
        if let last, last.perDay.bitPattern == meanPerDay.bitPattern { return last.hourly }
        let hourly = LocalHourRate.hourlyRate(meanPerDay: meanPerDay, hourWeights: hourWeights)
        last = (meanPerDay, hourly)
        return hourly
    }

    /// Calls `body` with the arrival times in `[0, end)` of `process` in the person's
    /// local hours at `hourlyRate` (`LocalHours.poissonArrivals`), in the builder's
    /// scratch list `arrivalTimes`, moved out and back (its storage kept from person to
    /// person).
    func withArrivalTimes(
        _ w: PersonWorld, of process: UInt64, to end: SimTime, hourlyRate: [Double], _ body: (inout [SimTime]) -> Void
    ) {
        var times = arrivalTimes
        arrivalTimes = []
        defer { arrivalTimes = times }
        times.removeAll(keepingCapacity: true)
        w.hours.poissonArrivals(stream(process), from: 0, to: end, hourlyRate: hourlyRate, into: &times)
        body(&times)
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
}
