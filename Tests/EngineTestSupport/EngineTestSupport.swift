// What the engine's tests share: widgets and scenarios built in code, policies that
// record what the engine asked of them, one person simulated, a trace kept in memory.
import WidgetSimKernel
import WidgetSimModel
import WidgetSimSampling

/// A widget with flat interest `base`, an hourly timeline and no content changes unless given.
public func widget(
    _ id: String, base: Double, peaks: [InterestPeak] = [], reload: ReloadPolicy = .after(Milliseconds.hour),
    horizon: Int64 = Milliseconds.hour, content: ContentSpec = ContentSpec(), relevance: RelevanceSpec = .none,
    kind: String? = nil, interactive: Bool = false
) -> WidgetSpec {
    WidgetSpec(
        id: id, kind: kind ?? id, app: "app.\(kind ?? id)", interactive: interactive,
        interest: InterestSpec(base: base, peaks: peaks),
        timeline: TimelineSpec(horizonMs: horizon, reload: reload),
        content: content, relevance: relevance)
}

/// A scenario built in code: UTC, no travel, no environment changes.
public func scenario(
    people: Int = 20, days: Int = 3, seed: UInt64 = 11, widgets: [WidgetSpec],
    budgets: [PolicyChoice] = [PolicyChoice(name: "unlimited")],
    rankings: [PolicyChoice] = [PolicyChoice(name: "static")],
    person: (inout PersonModel) -> Void = { _ in }
) -> Scenario {
    var p = PersonModel()
    p.environmentChangesPerDay = 0
    p.viewsPerDay = PerPersonRate(mean: 80, cv: 0)
    p.sessionsPerDay = PerPersonRate(mean: 10, cv: 0)
    person(&p)
    return Scenario(
        name: "test", seed: seed, days: days, people: people,
        start: CalendarDate(year: 2026, month: 1, day: 5), timeZone: "UTC", person: p,
        widgets: widgets, stack: StackSpec(members: Array(widgets.indices)),
        budgets: budgets, rankings: rankings)
}

/// A budget policy that forwards to another and records what it was asked and said.
public final class RecordingBudget: BudgetPolicy {
    public let inner: any BudgetPolicy
    public var decisions: [(instance: Int, reason: ReloadReason, time: SimTime, decision: BudgetDecision)] = []
    public var reloads: [(instance: Int, charged: Bool, time: SimTime)] = []
    public init(_ inner: any BudgetPolicy) { self.inner = inner }
    public func begin(instances: Int) {
        decisions.removeAll()
        reloads.removeAll()
        inner.begin(instances: instances)
    }
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let d = inner.decide(instance: instance, reason: reason, at: now)
        decisions.append((instance, reason, now, d))
        return d
    }
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {
        reloads.append((instance, charged, now))
        inner.didReload(instance: instance, charged: charged, at: now)
    }
    public func didView(instance: Int, at now: SimTime) { inner.didView(instance: instance, at: now) }
    public func didUseApp(instance: Int, at now: SimTime) { inner.didUseApp(instance: instance, at: now) }
}

/// A ranking policy that forwards to another and records each view's top.
public final class RecordingRanking: RankingPolicy {
    public let inner: any RankingPolicy
    public var tops: [(time: SimTime, top: Int)] = []
    public init(_ inner: any RankingPolicy) { self.inner = inner }
    public func begin(members: Int, stream: WidgetSimSampling.RandomStream) {
        tops.removeAll()
        inner.begin(members: members, stream: stream)
    }
    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        inner.rank(view, history: history, order: &order)
        tops.append((view.time, order[0]))
    }
    public func observe(_ outcome: ViewOutcome, history: StackHistory) { inner.observe(outcome, history: history) }
    public func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
        inner.observeDonation(member: member, at: time, hour: hour, weekday: weekday)
    }
    public func observePush(member: Int, at time: SimTime) { inner.observePush(member: member, at: time) }
}

/// Runs one person of `s` through an engine with the given policies.
public func simulate(_ s: Scenario, person: Int, budget: any BudgetPolicy, ranking: any RankingPolicy) throws -> PersonCounts {
    let builder = try WorldBuilder(scenario: s)
    let engine = PersonEngine(scenario: s, budget: budget, ranking: ranking)
    return engine.run(builder.build(person: person, replication: 0))
}

/// A budget that refuses every charged request: only free reloads happen.
public final class NoCharges: BudgetPolicy {
    public init() {}
    public func begin(instances: Int) {}
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        .deny(because: .quotaExhausted)
    }
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}
}

/// The sum of `counter` over every day and widget of `c`.
public func total(_ c: PersonCounts, _ counter: WidgetCounter) -> Int64 {
    var sum: Int64 = 0
    for d in 0 ..< c.days { for w in 0 ..< c.widgets { sum += c[d, widget: w, counter] } }
    return sum
}

/// Keeps every trace line in memory.
public final class CollectingTrace: TraceSink, @unchecked Sendable {
    public struct Line {
        public var time: SimTime
        public var person: Int
        public var pair: PolicyPair?
        public var event: String
        public var widget: String
        public var decision: String
        public var reason: String
    }
    public var lines: [Line] = []
    public init() {}
    public func record(time: SimTime, person: Int, pair: PolicyPair?, event: String, widget: String, decision: String, reason: String) {
        lines.append(Line(time: time, person: person, pair: pair, event: event, widget: widget, decision: decision, reason: reason))
    }
}
