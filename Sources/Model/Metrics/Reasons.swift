/// Why a charged reload request was not granted at once (MODEL §3): the constraint of
/// the budget policy or system rule that refused it. Counted per person-day where the
/// decision is made; `label` is the word reports and traces use.
public enum RefusalReason: UInt8, CaseIterable, Sendable {
    /// The daily quota (a rolling 24 h, or the day's balance) is spent.
    case quotaExhausted
    /// The least time between two charged reloads has not passed.
    case minSpacing
    /// The larger budget of the learning period is spent as well.
    case learningPeriod
    /// The part of the day's budget released so far (with the person's views expected
    /// so far in their budget day) is spent; the rest of the day's budget is not.
    case notYetReleased
    /// The instance's share of the person's total daily budget is spent: its own budget
    /// was scaled down to fit the total cap.
    case totalCap
    /// The token bucket holds less than one token.
    case tokensEmpty
    /// The quota of the App Standby bucket the app is in is spent.
    case bucketQuotaActive, bucketQuotaWorkingSet, bucketQuotaFrequent, bucketQuotaRare
    /// No view of the instance is expected soon: the request waits for one.
    case noViewExpected
    /// System rule: the request was folded into the instance's pending request.
    case coalescedIntoPending
    /// System rule: the push that would have asked was dropped by the background push
    /// throttle (counted once per push).
    case pushThrottled

    /// The number of codes (the width of each day's refusal counters).
    public static let count = allCases.count

    /// The code as `reasons.csv`, traces and `widgetsim policies` write it.
    public var label: String {
        switch self {
        case .quotaExhausted: "quota_exhausted"
        case .minSpacing: "min_spacing"
        case .learningPeriod: "learning_period"
        case .notYetReleased: "not_yet_released"
        case .totalCap: "total_cap"
        case .tokensEmpty: "tokens_empty"
        case .bucketQuotaActive: "bucket_quota:active"
        case .bucketQuotaWorkingSet: "bucket_quota:working_set"
        case .bucketQuotaFrequent: "bucket_quota:frequent"
        case .bucketQuotaRare: "bucket_quota:rare"
        case .noViewExpected: "no_view_expected"
        case .coalescedIntoPending: "coalesced"
        case .pushThrottled: "push_throttled"
        }
    }

    /// Refusals by a system rule, not by the budget policy: they are not among the
    /// budget's denied or deferred requests.
    public var isSystemRule: Bool { self == .coalescedIntoPending || self == .pushThrottled }
}

/// Why the widget a person wanted was not on top of the stack at a view (MODEL §3, §5).
/// Exactly one per view whose wanted member was not on top; `staleContent` (the wanted
/// member was on top but stale) and `notInStack` (the wanted widget is placed nowhere)
/// are counted apart.
public enum MissedViewReason: UInt8, CaseIterable, Sendable {
    /// Nothing observable pointed at the wanted member yet (no donation and no relevance
    /// score), and the ranking did not put it first.
    case noSignal
    /// The ranking put another member ahead of it.
    case outranked
    /// The ranking put it ahead, but its current relevance is ≤ 0: never rotated in.
    case vetoedScore
    /// The ranking put it ahead, but the member on top is held after its rotation.
    case held
    /// The ranking put it ahead, but it is cooling down after its own hold.
    case coolingDown
    /// The ranking put it ahead, but it has used its rotation quota of the last 24 h.
    case rotationQuota
    /// Smart Rotate is off: the stack always shows the person's first widget.
    case smartRotateOff
    /// Counted apart: the wanted member was on top, but its content was stale.
    case staleContent
    /// Counted apart: the wanted widget is placed nowhere (not in the stack, not on the
    /// home screen); such views are not among the views wanted.
    case notInStack

    public static let count = allCases.count

    public var label: String {
        switch self {
        case .noSignal: "no_signal"
        case .outranked: "outranked"
        case .vetoedScore: "vetoed_score"
        case .held: "held"
        case .coolingDown: "cooling_down"
        case .rotationQuota: "rotation_quota"
        case .smartRotateOff: "smart_rotate_off"
        case .staleContent: "stale_content"
        case .notInStack: "not_in_stack"
        }
    }

    /// Whether the reason explains a miss (views wanted − hits); `staleContent` and
    /// `notInStack` are counted apart.
    public var isMiss: Bool { self != .staleContent && self != .notInStack }
}
