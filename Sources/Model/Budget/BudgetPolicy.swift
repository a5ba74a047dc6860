import WidgetSimKernel

/// Why a widget instance reloads (MODEL §3). The raw value orders report columns.
public enum ReloadReason: Int, CaseIterable, Sendable {
    /// The timeline's reload policy came due (`atEnd`, `after`), or its retry did.
    case timeline
    /// The app asked from the background (a push handler, background refresh).
    case background
    /// The app asked while in the foreground.
    case foreground
    /// An app intent ran from a button or toggle of this instance.
    case interaction
    /// A significant time change: local midnight, a DST transition, a new time zone.
    case timeChange
    /// Locale, Dynamic Type / accessibility or account change.
    case environment
    /// The app asked while it had an audio or navigation session running (free, like
    /// a foreground app).
    case audio
    /// The instance was added to the stack: its first reload.
    case widgetAdded
    /// The system refreshed the display while the phone was in StandBy, at the system's
    /// rate (`StandByModel.refreshIntervalMs`), whatever the widget's reload policy.
    case standBy

    /// Whether the reload is charged to the instance's budget (Apple, "Keeping a
    /// widget up to date"). Only charged requests are put to the budget policy; the
    /// system grants the others at once.
    @inlinable
    public var isCharged: Bool {
        switch self {
        case .timeline, .background: true
        default: false
        }
    }

    /// The name used in report columns and traces.
    public var label: String {
        switch self {
        case .timeline: "timeline"
        case .background: "background"
        case .foreground: "foreground"
        case .interaction: "interaction"
        case .timeChange: "time_change"
        case .environment: "environment"
        case .audio: "audio"
        case .widgetAdded: "widget_added"
        case .standBy: "standby"
        }
    }
}

/// A budget policy's answer to a charged reload request. A refusal carries the reason
/// code of the policy's constraint that refused it (`RefusalReason`).
public enum BudgetDecision: Sendable, Equatable {
    /// Granted: the instance reloads now, charged to its budget.
    case grant
    /// Refused now; the request is retried at this time (the engine keeps one pending
    /// request per instance: see `PendingRequest`).
    case deferUntil(SimTime, because: RefusalReason)
    /// Refused and dropped.
    case deny(because: RefusalReason)

    /// Why it was refused, or nil for a grant.
    public var refusal: RefusalReason? {
        switch self {
        case .grant: nil
        case .deferUntil(_, let why), .deny(let why): why
        }
    }

    /// This refusal retried at `time` instead of its own time (a grant or a drop is kept).
    public func retried(at time: SimTime) -> BudgetDecision {
        if case .deferUntil(_, let why) = self { return .deferUntil(time, because: why) }
        return self
    }
}

/// A budget policy (MODEL §4): decides which charged reload requests of widget
/// instances are granted, deferred or refused.
///
/// ## Lifetime
/// One object serves one worker thread for one budget × ranking pair, and is reused
/// for person after person: the engine calls ``begin(instances:)`` before each person,
/// then feeds it that person's requests, reloads, views and app use in time order
/// (`now` never decreases between calls). An object is never used from two threads,
/// so it needs no locks; nothing may be shared between objects except constants.
///
/// ## What it may read
/// Only its arguments and its own state. A budget policy sees no ground truth (the
/// person's interest, future events, the content of widgets): the real system sees
/// none either. Only the ceilings read ground truth: the ranking policy `oracle`, and
/// the budget policy `oracle`, a ``FutureReadingBudget`` that the engine hands the
/// person's world.
///
/// ## What it must not do
/// Calls are on the simulation's hot path, millions per run. They must not allocate,
/// lock, print, read files or build strings or dictionaries: keep per-instance state
/// in flat arrays sized in ``begin(instances:)`` (keeping their storage from person to
/// person), and enums and numbers elsewhere. They must not throw or crash on any
/// sequence of calls the engine can make, and must be deterministic: the same calls
/// give the same answers (a run's reports depend only on its seed).
///
/// ## Charged and free reloads
/// The engine asks ``decide(instance:reason:at:)`` only for charged reasons
/// (`ReloadReason.isCharged`): free reloads are granted by the system and reported
/// through ``didReload(instance:charged:at:)``. A policy counts a charged reload when
/// its `decide` returns `.grant` (the engine reloads at once);
/// `didReload(charged: true)` only reports it again.
public protocol BudgetPolicy: AnyObject {
    /// A new person with `instances` widget instances, numbered `0 ..< instances` as in
    /// the scenario. Called once per person, before any other call for that person;
    /// resets every per-instance state. O(instances); it may allocate only when a person
    /// has more instances than any before.
    func begin(instances: Int)
    /// A charged request of `instance` (a timeline reload coming due, or a background
    /// request) at `now`: grant it, defer it to a later time, or refuse it. `.grant`
    /// means the reload happens now and counts against the budget. Called at every
    /// charged request, including retries of deferred ones; expected O(1) (at most
    /// O(log n) of the policy's own state), no allocation.
    func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision
    /// A reload of `instance` happened at `now`: `charged` ones were granted by
    /// ``decide(instance:reason:at:)`` just before; free ones (foreground, interaction,
    /// time change, environment) were granted by the system without asking. O(1).
    func didReload(instance: Int, charged: Bool, at now: SimTime)
    /// `instance` was on screen at a home-screen view at `now` (on top of its stack,
    /// swiped to, or standalone). Called at every view: O(1), no allocation. Optional.
    func didView(instance: Int, at now: SimTime)
    /// The app owning `instance` came to the foreground at `now`. O(1). Optional.
    func didUseApp(instance: Int, at now: SimTime)
    /// `instance` was added to the stack at `now` (it did not exist before): a
    /// policy with a learning period starts one for it. Called once per added instance,
    /// before its first reload (reason `widgetAdded`, free). O(1). Optional.
    func didAdd(instance: Int, at now: SimTime)
    /// The system rendered the timeline of a reload of `instance` at `now` (just after
    /// ``didReload(instance:charged:at:)``) and compared it with the one it replaces:
    /// `changed` is true when the new one shows a content change the old one did not (a
    /// random change since the instance's last reload; predictable changes the old
    /// timeline already held are not new). What a phone's system can see of a reload,
    /// never when the change happened (MODEL §4). O(1). Optional.
    func didRender(instance: Int, changed: Bool, at now: SimTime)
    /// Which of ``didView(instance:at:)``, ``didReload(instance:charged:at:)``,
    /// ``didRender(instance:changed:at:)``, ``didUseApp(instance:at:)`` and
    /// ``didAdd(instance:at:)`` the policy needs: the
    /// engine calls only those (at every view and every reload, a call to an empty
    /// method is not free). Fixed for the policy's life. Optional: `.all` unless a
    /// policy declares less, and a policy declaring less must behave as if the calls it
    /// leaves out did nothing.
    var observes: BudgetObservations { get }
}

/// The notifications a budget policy asks for (`BudgetPolicy.observes`).
public struct BudgetObservations: OptionSet, Sendable, Hashable {
    /// One bit per notification.
    public let rawValue: UInt8
    /// The set with these bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ``BudgetPolicy/didView(instance:at:)``.
    public static let views = BudgetObservations(rawValue: 1)
    /// ``BudgetPolicy/didReload(instance:charged:at:)``.
    public static let reloads = BudgetObservations(rawValue: 2)
    /// ``BudgetPolicy/didUseApp(instance:at:)``.
    public static let appUse = BudgetObservations(rawValue: 4)
    /// ``BudgetPolicy/didAdd(instance:at:)``.
    public static let additions = BudgetObservations(rawValue: 8)
    /// ``BudgetPolicy/didRender(instance:changed:at:)``.
    public static let renders = BudgetObservations(rawValue: 16)
    /// Every notification.
    public static let all: BudgetObservations = [.views, .reloads, .appUse, .additions, .renders]
}

extension BudgetPolicy {
    /// Every notification, unless the policy says otherwise.
    public var observes: BudgetObservations { .all }
    public func didView(instance: Int, at now: SimTime) {}
    public func didUseApp(instance: Int, at now: SimTime) {}
    public func didAdd(instance: Int, at now: SimTime) {}
    public func didRender(instance: Int, changed: Bool, at now: SimTime) {}
}

/// How a refused request is handled, shared by every policy that refuses: timeline
/// requests and background requests each either retry after a delay or are dropped.
public struct RefusalRule: Sendable {
    /// `timeline_retry`: the delay before a refused timeline request is asked again, or `drop`.
    public static let timelineRetry = ParameterSpec(
        "timeline_retry", .durationOrDrop, default: .duration(15 * Milliseconds.minute),
        "delay before a refused timeline request is asked again, or `drop`")
    /// `background_retry`: the delay before a refused background request is asked again, or `drop`.
    public static let backgroundRetry = ParameterSpec(
        "background_retry", .durationOrDrop, default: .text("drop"),
        "delay before a refused background request is asked again, or `drop`")
    /// Both, for a descriptor's parameter list.
    public static let parameters = [timelineRetry, backgroundRetry]

    /// The delay for timeline requests in milliseconds, or nil to drop them.
    public var timelineRetryMs: Int64?
    /// The delay for background requests in milliseconds, or nil to drop them.
    public var backgroundRetryMs: Int64?

    /// The rule a scenario entry's parameters give.
    public init(_ p: PolicyParameters) {
        timelineRetryMs = p.retry(Self.timelineRetry)
        backgroundRetryMs = p.retry(Self.backgroundRetry)
    }

    /// The rule with these delays (nil: drop).
    public init(timelineRetryMs: Int64?, backgroundRetryMs: Int64?) {
        self.timelineRetryMs = timelineRetryMs
        self.backgroundRetryMs = backgroundRetryMs
    }

    /// The decision for a request refused `because` of a constraint: retried after the
    /// reason's delay, but never before `earliest` (the time the policy could grant,
    /// when it knows it).
    public func refuse(
        _ reason: ReloadReason, at now: SimTime, earliest: SimTime? = nil, because why: RefusalReason
    ) -> BudgetDecision {
        let delay = reason == .timeline ? timelineRetryMs : backgroundRetryMs
        guard let delay else { return .deny(because: why) }
        return .deferUntil(max(now + delay, earliest ?? now), because: why)
    }
}

/// A budget policy that reads the person's future (MODEL §4, "The budget ceiling"): the
/// only kind of budget that does. The engine checks for it once, when it is made, and
/// every other budget runs exactly as before.
///
/// For such a budget the engine runs each person twice: first a *rehearsal*
/// (`rehearsing` true), in which the budget refuses every charged request and learns,
/// through `decide` and `didReload`, when the widget asks and when the free reloads
/// come; then `plan(world:scenario:)`, and the counted run, in which the budget answers
/// the widget's requests as any budget does (it may hold one until the instant it
/// wants, by deferring it).
public protocol FutureReadingBudget: BudgetPolicy {
    /// Whether the next run of the person is the rehearsal. Set by the engine.
    var rehearsing: Bool { get set }
    /// After the rehearsal: plans the counted run of `world`.
    func plan(world: PersonWorld, scenario: Scenario)
}
