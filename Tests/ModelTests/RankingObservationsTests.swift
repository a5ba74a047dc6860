import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

/// `RankingPolicy.observes`: the engine tells a ranking only what it declares, so a
/// declaration must leave out nothing the ranking's order depends on.
@Suite struct RankingObservationsTests {
    /// Five members with default content and timelines, donations, swipes and taps;
    /// member 1's content changes 20 times a day, half of them announced by push, and
    /// member 3 belongs to the same app; no push throttle; four days.
    static let scenario: Scenario = {
        var pushed = ContentSpec()
        pushed.randomPerDay = 20
        pushed.pushFraction = 0.5
        let widgets = (0 ..< 5).map { w in
            WidgetSpec(
                id: "w\(w)", kind: "w\(w)", app: "app\(w == 3 ? 1 : w)", interactive: w % 2 == 0,
                interest: InterestSpec(base: 0.4 - 0.07 * Double(w), peaks: [InterestPeak(hour: 7 + 3 * w, widthHours: 1, factor: 3)]),
                timeline: TimelineSpec(horizonMs: Milliseconds.hour, reload: .after(Milliseconds.hour)),
                content: w == 1 ? pushed : ContentSpec())
        }
        var model = PersonModel()
        model.viewsPerDay = PerPersonRate(mean: 90, cv: 0)
        model.swipeProbability = 0.5
        model.tapProbability = 0.5
        model.backgroundPushesPerHour = nil
        return Scenario(
            name: "observations", seed: 7, days: 4, people: 2, start: CalendarDate(year: 2026, month: 1, day: 5),
            timeZone: "UTC", person: model, widgets: widgets, stack: StackSpec(members: Array(0 ..< 5)),
            budgets: [PolicyChoice(name: "unlimited")], rankings: [PolicyChoice(name: "static")])
    }()

    /// `inner`, declaring `observes` in its place and counting the calls it is given.
    final class Declaring: RankingPolicy {
        let inner: any RankingPolicy
        let observes: RankingObservations
        var ranks = 0, views = 0, donations = 0
        var pushes: [(member: Int, time: SimTime)] = []

        init(_ inner: any RankingPolicy, observes: RankingObservations) {
            self.inner = inner
            self.observes = observes
        }

        func begin(members: Int, stream: RandomStream) { inner.begin(members: members, stream: stream) }
        func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
            ranks += 1
            inner.rank(view, history: history, order: &order)
        }
        func observe(_ outcome: ViewOutcome, history: StackHistory) {
            views += 1
            inner.observe(outcome, history: history)
        }
        func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
            donations += 1
            inner.observeDonation(member: member, at: time, hour: hour, weekday: weekday)
        }
        func observePush(member: Int, at time: SimTime) {
            pushes.append((member, time))
            inner.observePush(member: member, at: time)
        }
    }

    /// Each person's counts and donations to members, and the pushes to member 1's
    /// widget (its app's, which member 3 shares) in time order.
    static func run(_ ranking: any RankingPolicy) throws
        -> (counts: [PersonCounts], donations: [Int], pushes: [SimTime]) {
        let budget = try #require(BudgetPolicies.named("unlimited")).make(PolicyParameters())
        let engine = PersonEngine(scenario: scenario, budget: budget, ranking: ranking)
        let builder = try WorldBuilder(scenario: scenario)
        var counts: [PersonCounts] = []
        var donations: [Int] = []
        var pushes: [SimTime] = []
        for person in 0 ..< scenario.people {
            let world = builder.build(person: person, replication: 0)
            counts.append(engine.run(world))
            donations.append(engine.history.donations.reduce(0, +))
            pushes += world.pushTimes[1]
            #expect(world.pushTimes.enumerated().allSatisfy { $0.offset == 1 || $0.element.isEmpty })
        }
        return (counts, donations, pushes)
    }

    static func make(_ name: String) throws -> any RankingPolicy {
        try #require(RankingPolicies.named(name)).make(PolicyParameters())
    }

    /// Every built-in ranking, told only what it declares, gives every person the same
    /// counts as the same ranking told everything (through `rank`, never in place).
    @Test(arguments: RankingPolicies.all.map(\.name))
    func declaredObservationsAreEnough(name: String) throws {
        let declared = try Self.run(try Self.make(name))
        let everything = try Self.make(name)
        let told = try Self.run(Declaring(everything, observes: .all))
        for (a, b) in zip(declared.counts, told.counts) {
            #expect(a.person == b.person, "\(name) declares \(everything.observes)")
            #expect(a.widget == b.widget)
            #expect(a.missedViews == b.missedViews)
        }
        #expect(declared.counts[0].person.reduce(0, +) > 1_000)
    }

    /// The comparison above can fail: `thompson` learns from what the person did at
    /// each view, and ranks otherwise when it is not told.
    @Test func viewsChangeWhatALearnerRanks() throws {
        let told = try Self.run(Declaring(try Self.make("thompson"), observes: .all))
        let untold = try Self.run(Declaring(try Self.make("thompson"), observes: []))
        #expect(told.counts.map(\.missedViews) != untold.counts.map(\.missedViews))
    }

    /// The engine makes exactly the calls declared: `observe` after every `rank` with
    /// `.views`, `observeDonation` at every donation to a member with `.donations`, and
    /// with `.pushes` `observePush` at every push delivered, once for each member of the
    /// app it is for (member 1's pushes: members 1 and 3), at the push's time.
    @Test(arguments: [RankingObservations.all, .views, .donations, .pushes, []])
    func theEngineCallsWhatIsDeclared(observes: RankingObservations) throws {
        let ranking = Declaring(StaticRanking(), observes: observes)
        let (_, donations, pushes) = try Self.run(ranking)
        #expect(ranking.ranks > 500)
        #expect(ranking.views == (observes.contains(.views) ? ranking.ranks : 0))
        #expect(donations.reduce(0, +) > 50)
        #expect(ranking.donations == (observes.contains(.donations) ? donations.reduce(0, +) : 0))
        #expect(pushes.count > 20)
        let told = ranking.pushes.map { "\($0.member)@\($0.time)" }
        let expected = observes.contains(.pushes) ? pushes.flatMap { ["1@\($0)", "3@\($0)"] } : []
        #expect(told == expected)
    }

    /// A ranking that does not say what it observes is told everything; `time_of_day`
    /// learns from the history alone and declares nothing.
    @Test func undeclaredMeansEverything() throws {
        final class Plain: RankingPolicy {
            func begin(members: Int, stream: RandomStream) {}
            func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {}
        }
        #expect(Plain().observes == .all)
        #expect(try Self.make("time_of_day").observes == [])
        #expect(try Self.make("thompson").observes == .views)
        #expect(try Self.make("empirical_bayes").observes.contains(.pushes))
    }
}
