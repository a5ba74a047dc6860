import Testing
import WidgetSimKernel
import WidgetSimModel

// Shared machinery for the budget policy tests (the other BudgetPolicyTests*.swift
// files), the registry checks, and the behaviour every refusing policy shares.

let bpMinute = Milliseconds.minute
let bpHour = Milliseconds.hour
let bpDay = Milliseconds.day

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator for test streams.
struct BudgetSplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0 ..< n (the modulo bias is irrelevant here).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func upTo(_ n: Int64) -> Int64 { Int64(next() % UInt64(n + 1)) }
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}

/// What the engine tells a budget policy, in time order.
enum BudgetEvent: Sendable, Equatable {
    case request(Int, ReloadReason, Int64)
    case view(Int, Int64)
    case useApp(Int, Int64)
    case freeReload(Int, Int64)

    var time: Int64 {
        switch self {
        case .request(_, _, let t), .view(_, let t), .useApp(_, let t), .freeReload(_, let t): t
        }
    }
    var instance: Int {
        switch self {
        case .request(let i, _, _), .view(let i, _), .useApp(let i, _), .freeReload(let i, _): i
        }
    }
}

/// One charged request and the policy's answer.
struct BudgetOutcome: Equatable {
    var instance: Int
    var reason: ReloadReason
    var time: Int64
    var decision: BudgetDecision
    var granted: Bool { decision == .grant }
}

/// The named built-in policy with `values` (each checked against its spec first).
func makeBudget(_ name: String, _ values: [String: ParameterValue] = [:]) throws -> any BudgetPolicy {
    let descriptor = try #require(BudgetPolicies.named(name))
    for (key, value) in values {
        let spec = try #require(descriptor.parameter(named: key), "\(name) has no parameter \(key)")
        #expect(spec.problem(with: value) == nil, "\(name).\(key) = \(value)")
    }
    return descriptor.make(PolicyParameters(values))
}

/// Feeds `events` to `policy` as the engine would (a person of `instances`
/// instances; a granted request is followed by its charged reload) and returns
/// every request's outcome.
func driveBudget(_ policy: any BudgetPolicy, instances: Int, _ events: [BudgetEvent]) -> [BudgetOutcome] {
    policy.begin(instances: instances)
    var outcomes: [BudgetOutcome] = []
    var last = Int64.min
    for event in events {
        precondition(event.time >= last, "test events out of time order at \(event)")
        last = event.time
        switch event {
        case .request(let i, let reason, let t):
            let decision = policy.decide(instance: i, reason: reason, at: t)
            outcomes.append(BudgetOutcome(instance: i, reason: reason, time: t, decision: decision))
            if decision == .grant { policy.didReload(instance: i, charged: true, at: t) }
        case .view(let i, let t): policy.didView(instance: i, at: t)
        case .useApp(let i, let t): policy.didUseApp(instance: i, at: t)
        case .freeReload(let i, let t): policy.didReload(instance: i, charged: false, at: t)
        }
    }
    return outcomes
}

/// A pseudo-random stream: events `0 … 2 × meanGap` ms apart until `until`, on
/// `instances` instances; each is a view, an app use, a free reload or a charged
/// request (background with probability `background`, else timeline).
func randomBudgetEvents(
    seed: UInt64, instances: Int, until: Int64, meanGap: Int64,
    views: Double = 0.3, uses: Double = 0.05, free: Double = 0.05, background: Double = 0.3
) -> [BudgetEvent] {
    var rng = BudgetSplitMix64(seed: seed)
    var events: [BudgetEvent] = []
    var t: Int64 = 0
    while t < until {
        let i = rng.below(instances)
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        if u < views {
            events.append(.view(i, t))
        } else if u < views + uses {
            events.append(.useApp(i, t))
        } else if u < views + uses + free {
            events.append(.freeReload(i, t))
        } else {
            events.append(.request(i, rng.chance(background) ? .background : .timeline, t))
        }
        t += rng.upTo(2 * meanGap)
    }
    return events
}

/// Timeline requests of `instance` every `step` ms in [from, until).
func budgetRequests(
    _ instance: Int = 0, every step: Int64, from: Int64 = 0, until: Int64, _ reason: ReloadReason = .timeline
) -> [BudgetEvent] {
    stride(from: from, to: until, by: Int(step)).map { .request(instance, reason, $0) }
}

/// Merges event lists by time (stable: ties keep list order, `a` first).
func mergedBudgetEvents(_ a: [BudgetEvent], _ b: [BudgetEvent]) -> [BudgetEvent] {
    var out: [BudgetEvent] = []
    var i = 0, j = 0
    while i < a.count || j < b.count {
        if j == b.count || (i < a.count && a[i].time <= b[j].time) {
            out.append(a[i]); i += 1
        } else {
            out.append(b[j]); j += 1
        }
    }
    return out
}

func grantTimes(_ outcomes: [BudgetOutcome], instance: Int? = nil) -> [Int64] {
    outcomes.filter { $0.granted && (instance == nil || $0.instance == instance) }.map(\.time)
}

/// How many of `times` fall in (t − window, t].
func grantsInWindow(_ times: [Int64], in window: Int64, endingAt t: Int64) -> Int {
    times.reduce(0) { $0 + ($1 > t - window && $1 <= t ? 1 : 0) }
}

/// A policy and parameters tight enough that a random stream sees many refusals.
struct BudgetConfig: Sendable, CustomTestStringConvertible {
    var name: String
    var values: [String: ParameterValue]
    var testDescription: String { name }
}

/// Every built-in policy, tightly configured.
let tightBudgetConfigs: [BudgetConfig] = [
    BudgetConfig(name: "unlimited", values: [:]),
    BudgetConfig(name: "fixed_interval", values: ["interval": .duration(20 * bpMinute)]),
    BudgetConfig(name: "daily_quota", values: ["per_day": .number(5)]),
    BudgetConfig(name: "view_weighted", values: [
        "min_per_day": .number(3), "max_per_day": .number(8), "views_for_max": .number(10),
        "learning_period": .duration(bpDay),
    ]),
    BudgetConfig(name: "ios_like", values: [
        "initial_per_day": .number(5), "linear_up_to": .number(3), "per_instance_max": .number(8),
    ]),
    BudgetConfig(name: "token_bucket", values: ["capacity": .number(3), "refill_per_hour": .number(1.5)]),
    BudgetConfig(name: "standby_buckets", values: [
        "active_quota": .number(3), "working_set_quota": .number(2), "frequent_quota": .number(2),
        "rare_quota": .number(1),
    ]),
]

/// Every refusing policy, configured to grant a timeline request at 0 and refuse the
/// next charged request one bpMinute later.
let refuseSecondConfigs: [BudgetConfig] = [
    BudgetConfig(name: "fixed_interval", values: [:]),
    BudgetConfig(name: "daily_quota", values: ["per_day": .number(1)]),
    BudgetConfig(name: "view_weighted", values: ["min_per_day": .number(1), "max_per_day": .number(1)]),
    BudgetConfig(name: "ios_like", values: ["initial_per_day": .number(1)]),
    BudgetConfig(name: "token_bucket", values: ["capacity": .number(1), "refill_per_hour": .number(0.001)]),
    BudgetConfig(name: "standby_buckets", values: ["rare_quota": .number(1)]),
]

@Suite struct BudgetPolicyTests {
    @Test func registryListsEveryPolicyInOrder() {
        #expect(BudgetPolicies.all.map(\.name) == [
            "unlimited", "fixed_interval", "daily_quota", "view_weighted", "ios_like", "predictive", "token_bucket",
            "standby_buckets", "oracle",
        ])
    }

    @Test func descriptorsHaveUniqueNamesSummariesAndValidDefaults() {
        let names = BudgetPolicies.all.map(\.name)
        #expect(Set(names).count == names.count)
        for d in BudgetPolicies.all {
            #expect(!d.summary.isEmpty, "\(d.name) has no summary")
            #expect(!d.source.isEmpty, "\(d.name) has no source")
            #expect(BudgetPolicies.named(d.name)?.name == d.name)
            let params = d.parameters.map(\.name)
            #expect(Set(params).count == params.count, "\(d.name) repeats a parameter")
            for spec in d.parameters {
                #expect(
                    spec.problem(with: spec.defaultValue) == nil, "\(d.name).\(spec.name) default fails its own check")
                #expect(!spec.summary.isEmpty, "\(d.name).\(spec.name) has no summary")
            }
        }
    }

    @Test func refusingPoliciesTakeTheRefusalParameters() throws {
        // `predictive` defers every refusal to the time its own plan allows (never drops);
        // the ceiling `oracle` holds a request until its plan's instant and drops the rest.
        for d in BudgetPolicies.all where !["unlimited", "predictive", "oracle"].contains(d.name) {
            for name in ["timeline_retry", "background_retry"] {
                let spec = try #require(d.parameter(named: name), "\(d.name) lacks \(name)")
                #expect(spec.kind == .durationOrDrop)
            }
        }
    }

    /// The ceiling refuses what it did not plan: before its plan, every request.
    @Test func theCeilingGrantsOnlyItsPlannedRequests() throws {
        let p = try #require(BudgetPolicies.named("oracle")).make(PolicyParameters())
        p.begin(instances: 3)
        #expect(p.decide(instance: 1, reason: .timeline, at: 5 * bpMinute) == .deny(because: .quotaExhausted))
        #expect(p is any FutureReadingBudget)
    }

    @Test func onlyIOSLikeIsUnofficialAndSaysSo() throws {
        for d in BudgetPolicies.all { #expect(d.unofficial == (d.name == "ios_like"), "\(d.name)") }
        let ios = try #require(BudgetPolicies.named("ios_like"))
        #expect(ios.summary.contains("unofficial"))
        #expect(ios.parameter(named: "timeline_retry")?.defaultValue == .duration(15 * bpMinute))
        #expect(ios.parameter(named: "background_retry")?.defaultValue == .duration(15 * bpMinute))
    }

    @Test func everyPolicyGrantsAFreshPersonsFirstRequestWithDefaults() {
        // The ceiling `oracle` grants only the requests it planned from the person's future.
        for d in BudgetPolicies.all where d.name != "oracle" {
            let p = d.make(PolicyParameters())
            p.begin(instances: 3)
            #expect(p.decide(instance: 1, reason: .timeline, at: 5 * bpMinute) == .grant, "\(d.name)")
            #expect(p.decide(instance: 2, reason: .background, at: 5 * bpMinute) == .grant, "\(d.name)")
        }
    }

    @Test(arguments: refuseSecondConfigs)
    func refusalHonoursDropAndRetry(_ config: BudgetConfig) throws {
        func secondDecision(_ extra: [String: ParameterValue], _ reason: ReloadReason) throws -> BudgetDecision {
            let p = try makeBudget(config.name, config.values.merging(extra) { $1 })
            p.begin(instances: 2)
            #expect(p.decide(instance: 0, reason: .timeline, at: 0) == .grant)
            p.didReload(instance: 0, charged: true, at: 0)
            return p.decide(instance: 0, reason: reason, at: bpMinute)
        }
        let drop = ParameterValue.text("drop")
        #expect(try secondDecision(["background_retry": drop], .background).isDeny)
        #expect(try secondDecision(["timeline_retry": drop], .timeline).isDeny)
        for (key, reason, delay) in [("timeline_retry", ReloadReason.timeline, 7 * bpMinute),
                                     ("background_retry", .background, 3 * bpMinute)] {
            let d = try secondDecision([key: .duration(delay)], reason)
            guard case .deferUntil(let until, _) = d else {
                Issue.record("\(config.name) \(reason.label): \(d)")
                continue
            }
            #expect(until >= bpMinute + delay, "\(config.name) \(reason.label) retried too soon")
        }
    }

    @Test(arguments: tightBudgetConfigs)
    func instancesAreIndependent(_ config: BudgetConfig) throws {
        let a = randomBudgetEvents(seed: 11, instances: 1, until: 6 * bpDay, meanGap: 6 * bpMinute)
        let b = randomBudgetEvents(seed: 12, instances: 1, until: 6 * bpDay, meanGap: 4 * bpMinute)
            .map { e -> BudgetEvent in
                switch e {
                case .request(_, let r, let t): .request(1, r, t)
                case .view(_, let t): .view(1, t)
                case .useApp(_, let t): .useApp(1, t)
                case .freeReload(_, let t): .freeReload(1, t)
                }
            }
        // Budget days that follow the person's day are learned from every instance's
        // views: instances are independent with the days of the rule before, and with
        // the person's days as far as requests go.
        let legacy: [String: String] = ["view_weighted": "rolling", "ios_like": "midnight"]
        var values = config.values
        if let day = legacy[config.name] { values["budget_day"] = .text(day) }
        let alone = driveBudget(try makeBudget(config.name, values), instances: 2, a)
        let together = driveBudget(try makeBudget(config.name, values), instances: 2, mergedBudgetEvents(a, b))
        #expect(together.filter { $0.instance == 0 } == alone)
        if legacy[config.name] != nil {
            let requests = b.filter { if case .request = $0 { true } else { false } }
            let personAlone = driveBudget(try makeBudget(config.name, config.values), instances: 2, a)
            let personTogether = driveBudget(
                try makeBudget(config.name, config.values), instances: 2, mergedBudgetEvents(a, requests))
            #expect(personTogether.filter { $0.instance == 0 } == personAlone)
        }
        if config.name != "unlimited" {
            #expect(alone.contains { !$0.granted } && alone.contains(where: \.granted), "stream too loose to test")
        }
    }

    @Test(arguments: tightBudgetConfigs)
    func beginResetsState(_ config: BudgetConfig) throws {
        let events = randomBudgetEvents(seed: 21, instances: 3, until: 5 * bpDay, meanGap: 3 * bpMinute)
        let other = randomBudgetEvents(seed: 22, instances: 5, until: 9 * bpDay, meanGap: 2 * bpMinute)
        let policy = try makeBudget(config.name, config.values)
        let first = driveBudget(policy, instances: 3, events)
        let again = driveBudget(policy, instances: 3, events)
        _ = driveBudget(policy, instances: 5, other)
        let afterOther = driveBudget(policy, instances: 3, events)
        let fresh = driveBudget(try makeBudget(config.name, config.values), instances: 3, events)
        #expect(again == first)
        #expect(afterOther == first)
        #expect(fresh == first)
        if config.name != "unlimited" { #expect(first.contains { !$0.granted }) }
    }

    @Test(arguments: tightBudgetConfigs)
    func freeReloadsAreNotCharged(_ config: BudgetConfig) throws {
        let events = randomBudgetEvents(seed: 31, instances: 2, until: 4 * bpDay, meanGap: 3 * bpMinute, free: 0.3)
        let withFree = driveBudget(try makeBudget(config.name, config.values), instances: 2, events)
        let without = driveBudget(
            try makeBudget(config.name, config.values), instances: 2,
            events.filter { if case .freeReload = $0 { false } else { true } })
        #expect(withFree == without)
    }
}

extension BudgetDecision {
    /// Refused and dropped, whatever the reason code.
    var isDeny: Bool {
        if case .deny = self { return true }
        return false
    }
    /// The retry time of a deferral, or nil.
    var retryTime: Int64? {
        if case .deferUntil(let t, _) = self { return t }
        return nil
    }
}
