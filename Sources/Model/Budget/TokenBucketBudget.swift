import WidgetSimKernel

/// `token_bucket`: each instance has a bucket of `capacity` tokens, full at the start,
/// refilled continuously at `refill_per_hour` up to the capacity; a charged reload
/// costs one token.
///
/// Rule: a charged request is granted iff the instance's bucket holds ≥ 1 token, which
/// it then spends. A refusal is handled by `RefusalRule`, retried no earlier than the
/// first millisecond at which the bucket holds 1 token again.
///
/// Exactness: the level is kept as a whole number of units of 1/3.6·10¹² token (a
/// millionth of a token per millisecond-of-an-hour), and both parameters are rounded
/// to a millionth of a token. The refill over an elapsed time is then an integer
/// product (elapsed ms × refill in millionths per hour), so decimal parameters
/// behave as written (0.7 per hour gives exactly 17.5 tokens in 25 h), nothing drifts
/// over a long run, and the retry time is exact. `tokens(of:at:)` reports the level as
/// a `Double`.
///
/// Source: the classic token-bucket rate limiter (e.g. Tanenbaum, *Computer Networks*,
/// traffic shaping).
public final class TokenBucketBudget: BudgetPolicy {
    public static let capacity = ParameterSpec(
        "capacity", .number(1 ... 10_000), default: .number(10),
        "tokens a full bucket holds: the largest burst of charged reloads")
    public static let refillPerHour = ParameterSpec(
        "refill_per_hour", .number(0.001 ... 10_000), default: .number(2),
        "tokens added per hour, continuously, up to the capacity")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "token_bucket",
        summary: "A bucket of C tokens (10) per instance, full at the start, refilled continuously at r per hour "
            + "(2); a charged reload costs one token.",
        source: "the classic token-bucket rate limiter",
        refusals: [.tokensEmpty],
        parameters: [capacity, refillPerHour] + RefusalRule.parameters,
        make: { p in
            TokenBucketBudget(
                capacity: p.number(TokenBucketBudget.capacity),
                refillPerHour: p.number(TokenBucketBudget.refillPerHour), refusal: RefusalRule(p))
        })

    /// Level units in one token: 10⁶ (millionths) × 3.6·10⁶ (ms per hour), so that a
    /// refill of `m` millionths of a token per hour adds exactly `m` units per ms.
    static let unitsPerToken: Int64 = 1_000_000 * Milliseconds.hour

    public let capacity: Double
    public let refillPerHour: Double
    public let refusal: RefusalRule
    /// The capacity in units.
    private let full: Int64
    /// The refill in units per ms (= millionths of a token per hour).
    private let refillPerMs: Int64
    /// Each bucket's level in units at `stamp`.
    @exclusivity(unchecked) private var level: [Int64] = []
    @exclusivity(unchecked) private var stamp: [SimTime] = []

    public init(capacity: Double, refillPerHour: Double, refusal: RefusalRule) {
        precondition(capacity >= 1 && capacity <= 1e6, "capacity must be in 1…10⁶")
        precondition(refillPerHour >= 1e-6, "refill must be at least a millionth of a token per hour")
        self.capacity = capacity
        self.refillPerHour = refillPerHour
        self.refusal = refusal
        full = Int64((capacity * 1e6).rounded()) * Milliseconds.hour
        refillPerMs = Int64((refillPerHour * 1e6).rounded())
    }

    public func begin(instances: Int) {
        level.resetFlat(count: instances, to: full)
        stamp.resetFlat(count: instances, to: 0)
    }

    /// `instance`'s level in units at `now` (not before its latest request).
    @inline(__always) private func level(_ instance: Int, at now: SimTime) -> Int64 {
        let current = level[instance]
        let (added, overflow) = max(0, now - stamp[instance]).multipliedReportingOverflow(by: refillPerMs)
        return overflow || added >= full - current ? full : current + added
    }

    /// Tokens in `instance`'s bucket at `now` (not before its latest request).
    public func tokens(of instance: Int, at now: SimTime) -> Double {
        Double(level(instance, at: now)) / Double(Self.unitsPerToken)
    }

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let current = level(instance, at: now)
        level[instance] = current
        stamp[instance] = now
        if current >= Self.unitsPerToken {
            level[instance] = current - Self.unitsPerToken
            return .grant
        }
        // The first ms at which the refill covers the missing part of a token.
        let missing = Self.unitsPerToken - current
        let wait = (missing + refillPerMs - 1) / refillPerMs
        return refusal.refuse(reason, at: now, earliest: now + wait, because: .tokensEmpty)
    }

    /// Tokens are spent by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [] }
}
