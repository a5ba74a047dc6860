import Foundation

/// Why a charged reload request was not granted at once (MODEL §3): the constraint of
/// the budget policy or system rule that refused it. Counted per person-day where the
/// decision is made; `label` is the word reports and traces use.
///
/// Codes are open. The built-in policies' and the system's codes are the static members
/// below; a policy of your own declares its own with ``init(_:)`` and lists it in its
/// descriptor's `refusals`, which registers it before any run counts it:
///
/// ```swift
/// extension RefusalReason {
///     static let nightFreeze = RefusalReason("night_freeze")
/// }
/// ```
///
/// Each code is a small number (`rawValue`), given in the order codes are first made
/// (the built-in codes first, in the order below): the index of its counters, so the
/// engine counts a refusal with no string in sight. The numbers of codes of your own
/// depend on the order a program makes them; reports and traces write labels.
public struct RefusalReason: Hashable, Sendable, CustomStringConvertible {
    /// The code's number: its place among the codes made so far in this process.
    public let rawValue: UInt8

    @inlinable init(number: UInt8) { rawValue = number }

    /// The code `label`: the same code (the same number) every time one label is given,
    /// registered the first time. A label is a lower-case word of letters, digits, `_`
    /// and `:`, starting with a letter, as the built-in codes are; a policy's
    /// registration refuses any other (`PolicyRegistry`). Make a code once (a `static
    /// let`) rather than in each decision: finding it takes a lock and a lookup.
    public init(_ label: String) { rawValue = RefusalCodes.shared.number(of: label) }

    /// The daily quota (a rolling 24 h, or the day's balance) is spent.
    @inlinable public static var quotaExhausted: RefusalReason { RefusalReason(number: 0) }
    /// The least time between two charged reloads has not passed.
    @inlinable public static var minSpacing: RefusalReason { RefusalReason(number: 1) }
    /// The larger budget of the learning period is spent as well.
    @inlinable public static var learningPeriod: RefusalReason { RefusalReason(number: 2) }
    /// The part of the day's budget released so far (with the person's views expected
    /// so far in their budget day) is spent; the rest of the day's budget is not.
    @inlinable public static var notYetReleased: RefusalReason { RefusalReason(number: 3) }
    /// The instance's share of the person's total daily budget is spent: its own budget
    /// was scaled down to fit the total cap.
    @inlinable public static var totalCap: RefusalReason { RefusalReason(number: 4) }
    /// The token bucket holds less than one token.
    @inlinable public static var tokensEmpty: RefusalReason { RefusalReason(number: 5) }
    /// The quota of the App Standby bucket `active` is spent.
    @inlinable public static var bucketQuotaActive: RefusalReason { RefusalReason(number: 6) }
    /// The quota of the App Standby bucket `working_set` is spent.
    @inlinable public static var bucketQuotaWorkingSet: RefusalReason { RefusalReason(number: 7) }
    /// The quota of the App Standby bucket `frequent` is spent.
    @inlinable public static var bucketQuotaFrequent: RefusalReason { RefusalReason(number: 8) }
    /// The quota of the App Standby bucket `rare` is spent.
    @inlinable public static var bucketQuotaRare: RefusalReason { RefusalReason(number: 9) }
    /// No view of the instance is expected soon: the request waits for one.
    @inlinable public static var noViewExpected: RefusalReason { RefusalReason(number: 10) }
    /// System rule: the request was folded into the instance's pending request.
    @inlinable public static var coalescedIntoPending: RefusalReason { RefusalReason(number: 11) }
    /// System rule: the push that would have asked was dropped by the background push
    /// throttle (counted once per push).
    @inlinable public static var pushThrottled: RefusalReason { RefusalReason(number: 12) }
    /// The reload is expected to save fewer stale views than the policy's threshold of
    /// the moment: the request waits for a time when it is worth more.
    @inlinable public static var belowThreshold: RefusalReason { RefusalReason(number: 13) }

    /// The built-in codes' labels, in number order.
    static let builtInLabels = [
        "quota_exhausted", "min_spacing", "learning_period", "not_yet_released", "total_cap", "tokens_empty",
        "bucket_quota:active", "bucket_quota:working_set", "bucket_quota:frequent", "bucket_quota:rare",
        "no_view_expected", "coalesced", "push_throttled", "below_threshold",
    ]

    /// Every code made so far, in number order: the built-in ones, then those of
    /// policies of your own.
    public static var allCases: [RefusalReason] { (0 ..< count).map { RefusalReason(number: UInt8($0)) } }

    /// The number of codes made so far: the width of each day's refusal counters, for
    /// counters made from now on.
    public static var count: Int { RefusalCodes.shared.count }

    /// The code as `reasons.csv`, traces and `widgetsim policies` write it.
    public var label: String { RefusalCodes.shared.label(of: rawValue) }

    /// The code's label.
    public var description: String { label }

    /// Refusals by a system rule, not by the budget policy: they are not among the
    /// budget's denied or deferred requests.
    public var isSystemRule: Bool { self == .coalescedIntoPending || self == .pushThrottled }

    /// Whether `label` has the form of a code: a lower-case word of letters, digits,
    /// `_` and `:`, starting with a letter.
    public static func isCode(_ label: String) -> Bool {
        guard let first = label.unicodeScalars.first, ("a" ... "z").contains(first) else { return false }
        return label.unicodeScalars.allSatisfy {
            ("a" ... "z").contains($0) || ("0" ... "9").contains($0) || $0 == "_" || $0 == ":"
        }
    }
}

/// The process's refusal codes: labels by number, and numbers by label.
final class RefusalCodes: @unchecked Sendable {
    static let shared = RefusalCodes()

    private let lock = NSLock()
    private var labels = RefusalReason.builtInLabels
    private var numbers: [String: UInt8]

    private init() {
        numbers = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, UInt8($0)) })
    }

    var count: Int { lock.withLock { labels.count } }

    func label(of number: UInt8) -> String { lock.withLock { labels[Int(number)] } }

    func number(of label: String) -> UInt8 {
        lock.withLock {
            if let n = numbers[label] { return n }
            precondition(labels.count <= Int(UInt8.max), "more than \(UInt8.max) refusal codes")
            let n = UInt8(labels.count)
            labels.append(label)
            numbers[label] = n
            return n
        }
    }
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
