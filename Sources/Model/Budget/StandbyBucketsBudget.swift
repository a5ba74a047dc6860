import WidgetSimKernel

/// `standby_buckets`: Android App Standby. Each instance falls in a bucket by how long
/// ago its app was last used, and each bucket allows a number of charged reloads per
/// rolling window.
///
/// Rule, for a charged request of instance `w` at `now`, with e = now − the last
/// `didUseApp` of `w`:
/// - bucket: e < `active_within` (12 h) → active; else e < `working_set_within` (24 h) →
///   working set; else e < `frequent_within` (48 h) → frequent; otherwise, or if the
///   app was never used, rare. (The comparisons run in this order, so a threshold below an
///   earlier one only shadows its bucket.)
/// - granted iff fewer than the bucket's quota of `w`'s granted charged reloads fall
///   in (now − window, now] for the bucket's window; a quota of 0 means unlimited.
///   Grants are counted whatever bucket they were made in.
/// - a refusal is handled by `RefusalRule`, retried no earlier than the moment the
///   counted grant whose departure brings the count below the quota leaves the window
///   (the oldest counted one when exactly the quota is counted). A later app use can
///   open the quota sooner; the retry keeps its time. Its reason code names the
///   bucket: `bucket_quota:active`, `…:working_set`, `…:frequent`, `…:rare`.
///
/// Source: the bucket thresholds are AOSP `AppStandbyController`'s elapsed-time
/// thresholds (12 h, 24 h, 48 h) and the windows AOSP `QuotaController`'s window sizes
/// (10 min, 2 h, 8 h, 24 h); the counts per window (20, 10, 10, 10) are our
/// calibration (QuotaController limits execution time and job counts, not widget
/// updates).
public final class StandbyBucketsBudget: BudgetPolicy {
    /// App Standby buckets, most to least privileged.
    public enum Bucket: Int, CaseIterable, Sendable {
        case active, workingSet, frequent, rare

        public var label: String {
            switch self {
            case .active: "active"
            case .workingSet: "working_set"
            case .frequent: "frequent"
            case .rare: "rare"
            }
        }

        /// The reason code of a refusal by this bucket's quota.
        public var refusal: RefusalReason {
            switch self {
            case .active: .bucketQuotaActive
            case .workingSet: .bucketQuotaWorkingSet
            case .frequent: .bucketQuotaFrequent
            case .rare: .bucketQuotaRare
            }
        }
    }

    public static let activeWithin = ParameterSpec(
        "active_within", .duration(minimumMs: 0), default: .duration(12 * Milliseconds.hour),
        "an app used less than this long ago is active")
    public static let workingSetWithin = ParameterSpec(
        "working_set_within", .duration(minimumMs: 0), default: .duration(24 * Milliseconds.hour),
        "an app used less than this long ago, and not active, is in the working set")
    public static let frequentWithin = ParameterSpec(
        "frequent_within", .duration(minimumMs: 0), default: .duration(48 * Milliseconds.hour),
        "an app used less than this long ago, and not in a better bucket, is frequent; otherwise rare")
    public static let activeQuota = quota("active", 20)
    public static let activeWindow = window("active", 10 * Milliseconds.minute)
    public static let workingSetQuota = quota("working_set", 10)
    public static let workingSetWindow = window("working_set", 2 * Milliseconds.hour)
    public static let frequentQuota = quota("frequent", 10)
    public static let frequentWindow = window("frequent", 8 * Milliseconds.hour)
    public static let rareQuota = quota("rare", 10)
    public static let rareWindow = window("rare", 24 * Milliseconds.hour)

    private static func quota(_ bucket: String, _ count: Int) -> ParameterSpec {
        ParameterSpec(
            "\(bucket)_quota", .count(0 ... 10_000), default: .number(Double(count)),
            "charged reloads allowed per \(bucket)_window to an instance in the \(bucket) bucket (0 = unlimited)")
    }
    private static func window(_ bucket: String, _ ms: Int64) -> ParameterSpec {
        ParameterSpec(
            "\(bucket)_window", .duration(minimumMs: Milliseconds.second), default: .duration(ms),
            "rolling window of the \(bucket) bucket's quota")
    }

    public static let descriptor = BudgetPolicyDescriptor(
        name: "standby_buckets",
        summary: "Android App Standby: by time since the app's last use (<12 h active, <24 h working set, "
            + "<48 h frequent, else rare), at most 20 charged reloads per 10 min, 10 per 2 h, 10 per 8 h, 10 per 24 h.",
        source: "AOSP AppStandbyController (12/24/48 h thresholds) and QuotaController (10 min, 2 h, 8 h, 24 h "
            + "windows); counts per window are our calibration",
        refusals: StandbyBucketsBudget.Bucket.allCases.map(\.refusal),
        parameters: [
            activeWithin, workingSetWithin, frequentWithin, activeQuota, activeWindow, workingSetQuota,
            workingSetWindow, frequentQuota, frequentWindow, rareQuota, rareWindow,
        ] + RefusalRule.parameters,
        make: { p in
            typealias S = StandbyBucketsBudget
            return StandbyBucketsBudget(
                thresholdsMs: [
                    p.duration(S.activeWithin), p.duration(S.workingSetWithin), p.duration(S.frequentWithin),
                ],
                quotas: [
                    p.count(S.activeQuota), p.count(S.workingSetQuota), p.count(S.frequentQuota),
                    p.count(S.rareQuota),
                ],
                windowsMs: [
                    p.duration(S.activeWindow), p.duration(S.workingSetWindow), p.duration(S.frequentWindow),
                    p.duration(S.rareWindow),
                ],
                refusal: RefusalRule(p))
        })

    /// `lastUse` of an instance whose app was never used.
    private static let never = SimTime.min

    /// Upper bounds (exclusive) of the time since last use for active, working set, frequent.
    public let thresholdsMs: [Int64]
    /// Per bucket, in `Bucket` order; 0 = unlimited.
    public let quotas: [Int]
    /// Per bucket, in `Bucket` order.
    public let windowsMs: [Int64]
    public let refusal: RefusalRule
    /// Grants kept per instance: the largest quota.
    private let depth: Int
    @exclusivity(unchecked) private var lastUse: [SimTime] = []
    private let grants = GrantTimes()

    public init(thresholdsMs: [Int64], quotas: [Int], windowsMs: [Int64], refusal: RefusalRule) {
        precondition(thresholdsMs.count == 3 && quotas.count == 4 && windowsMs.count == 4)
        precondition(quotas.allSatisfy { $0 >= 0 } && windowsMs.allSatisfy { $0 > 0 })
        self.thresholdsMs = thresholdsMs
        self.quotas = quotas
        self.windowsMs = windowsMs
        self.refusal = refusal
        depth = max(1, quotas.max() ?? 1)
    }

    public func begin(instances: Int) {
        lastUse.resetFlat(count: instances, to: Self.never)
        grants.reset(instances: instances, depth: depth)
    }

    /// The bucket of `instance` at `now`.
    public func bucket(of instance: Int, at now: SimTime) -> Bucket {
        let last = lastUse[instance]
        guard last != Self.never else { return .rare }
        let elapsed = now - last
        if elapsed < thresholdsMs[0] { return .active }
        if elapsed < thresholdsMs[1] { return .workingSet }
        if elapsed < thresholdsMs[2] { return .frequent }
        return .rare
    }

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let bucket = bucket(of: instance, at: now)
        let b = bucket.rawValue
        let quota = quotas[b]
        if quota > 0, let free = grants.fullUntil(instance, count: quota, window: windowsMs[b], at: now) {
            return refusal.refuse(reason, at: now, earliest: free, because: bucket.refusal)
        }
        grants.record(instance, at: now)
        return .grant
    }

    /// Grants are recorded by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [.appUse] }

    public func didUseApp(instance: Int, at now: SimTime) {
        lastUse[instance] = now
    }
}
