import WidgetSimKernel

/// The size classes of WidgetKit.
public enum WidgetFamily: String, CaseIterable, Sendable {
    case small, medium, large, extraLarge, accessoryCircular, accessoryRectangular, accessoryInline
}

/// One widget instance as the scenario defines it (MODEL §3).
public struct WidgetSpec: Sendable {
    /// Unique within the scenario; names the instance in reports.
    public var id: String
    /// The widget kind: `reloadTimelines(ofKind:)` reaches every instance of a kind.
    public var kind: String
    /// The app that owns the kind; its sessions put it in the foreground.
    public var app: String
    public var family: WidgetFamily
    /// Intent parameters, sorted by key: two instances of one kind may differ here,
    /// and a donation matches the instance whose configuration it carries.
    public var configuration: [String: String]
    /// The configurations that the intents donated by this widget's app sessions
    /// carry, with their weights; empty: every donation carries `configuration`.
    public var donatedConfigurations: [DonatedConfiguration] = []
    public var interactive: Bool
    /// Energy per reload, in thousandths of a unit (whole numbers keep sums exact).
    public var reloadCostMilli: Int64
    public var usesNetwork: Bool
    public var interest: InterestSpec
    public var timeline: TimelineSpec
    public var content: ContentSpec
    public var relevance: RelevanceSpec
    /// When not empty, each new relevance entry of a `scheduled` or `breaking` model
    /// draws its score from these levels (instead of the model's `score`).
    public var relevanceLevels: [RelevanceLevel] = []
    /// When the instance is added to the home screen, from the start; nil: there from
    /// the start. Before it, the instance does not exist: no interest, no reloads.
    public var addedAfterMs: Int64? = nil
    /// The audio or navigation sessions of this widget's app (given on one widget of
    /// the app); nil: the app has none.
    public var audioSessions: AudioSessionModel? = nil

    public init(
        id: String, kind: String, app: String, family: WidgetFamily = .small,
        configuration: [String: String] = [:], interactive: Bool = false,
        reloadCostMilli: Int64 = 1000, usesNetwork: Bool = true,
        interest: InterestSpec, timeline: TimelineSpec, content: ContentSpec,
        relevance: RelevanceSpec = .none
    ) {
        self.id = id
        self.kind = kind
        self.app = app
        self.family = family
        self.configuration = configuration
        self.interactive = interactive
        self.reloadCostMilli = reloadCostMilli
        self.usesNetwork = usesNetwork
        self.interest = interest
        self.timeline = timeline
        self.content = content
        self.relevance = relevance
    }
}

/// A configuration that app sessions donate, with its relative weight (> 0).
public struct DonatedConfiguration: Sendable, Hashable {
    public var configuration: [String: String]
    public var weight: Double
    public init(_ configuration: [String: String], weight: Double = 1) {
        self.configuration = configuration
        self.weight = weight
    }
}

/// An app's audio or navigation sessions (MODEL §2): Poisson starts, `perDay` a day
/// spread by `profile`, log-normal lengths. While one lasts, the app's reload
/// requests are free.
public struct AudioSessionModel: Sendable, Hashable {
    public var perDay: Double
    public var profile: [Double] = HourProfile.diurnal
    public var medianMs: Int64 = 30 * Milliseconds.minute
    public var sigma: Double = 0.8
    public init(perDay: Double) { self.perDay = perDay }
}

/// Latent interest λ_w(t) (MODEL §2): `base` × hour factor × weekday factor × burst.
/// The hour factor is `hourly[h]` times `peak.factor` for every peak with
/// |h − peak.hour| ≤ peak.widthHours (hours on a 24-hour circle).
public struct InterestSpec: Sendable {
    public var base: Double
    public var hourly: [Double] = HourProfile.flat
    public var peaks: [InterestPeak] = []
    /// Monday first.
    public var weekday: [Double] = Array(repeating: 1, count: 7)
    /// Interest × factor for a while after each push for this widget.
    public var afterPush: Burst? = nil
    /// Interest × factor from `before` ahead of each scheduled content change (a
    /// meeting) until `after` past it.
    public var aroundScheduled: Burst? = nil

    public init(base: Double, peaks: [InterestPeak] = []) {
        self.base = base
        self.peaks = peaks
    }

    /// The hour-of-day × weekday factor (no bursts).
    public func factor(hour: Int, weekday: Int) -> Double {
        var f = hourly[hour] * self.weekday[weekday]
        for p in peaks {
            let d = abs(hour - p.hour)
            if min(d, 24 - d) <= p.widthHours { f *= p.factor }
        }
        return f
    }
}

public struct InterestPeak: Sendable, Hashable {
    public var hour: Int
    public var widthHours: Int
    public var factor: Double
    public init(hour: Int, widthHours: Int = 1, factor: Double) {
        self.hour = hour
        self.widthHours = widthHours
        self.factor = factor
    }
}

public struct Burst: Sendable, Hashable {
    public var factor: Double
    public var beforeMs: Int64
    public var afterMs: Int64
    public init(factor: Double, beforeMs: Int64 = 0, afterMs: Int64) {
        self.factor = factor
        self.beforeMs = beforeMs
        self.afterMs = afterMs
    }
}

/// What the widget's timeline provider does on a reload at t (MODEL §3): entries at t
/// and at the predictable content changes in (t, t + horizon], at least
/// `entrySpacingMs` apart (a change closer than that after an entry waits for the next
/// entry, which shows it late: `ContentTimeline`); and a reload policy.
public struct TimelineSpec: Sendable, Hashable {
    public var horizonMs: Int64
    public var entrySpacingMs: Int64 = 5 * Milliseconds.minute
    public var reload: ReloadPolicy

    public init(horizonMs: Int64, entrySpacingMs: Int64 = 5 * Milliseconds.minute, reload: ReloadPolicy) {
        self.horizonMs = horizonMs
        self.entrySpacingMs = entrySpacingMs
        self.reload = reload
    }
}

/// When a timeline asks to be reloaded: the earliest time the system asks again; the
/// budget policy decides when a reload really happens.
public enum ReloadPolicy: Sendable, Hashable {
    /// When the timeline's last entry is reached (at least one entry spacing after
    /// the reload).
    case atEnd
    /// This long after the reload.
    case after(Int64)
    /// Only when something else reloads the widget.
    case never
}

/// How a widget's true content changes (MODEL §2).
public struct ContentSpec: Sendable, Hashable {
    /// A predictable change every `periodicMs` from the start (e.g. an hourly forecast).
    public var periodicMs: Int64? = nil
    /// Scheduled changes (e.g. meetings), known ahead: Poisson per day over the hours
    /// of `scheduledProfile`.
    public var scheduledPerDay: Double = 0
    public var scheduledProfile: [Double] = HourProfile.office
    /// How long each scheduled event (a meeting) lasts from its change. A `scheduled`
    /// relevance of duration 0 holds its score until the timeline's entry at the end
    /// of the event, which carries the baseline (MODEL §5 "Duration 0"); the content
    /// itself changes only at the event's start. Our choice: a half-hour meeting.
    public var scheduledLengthMs: Int64 = 30 * Milliseconds.minute
    /// Random changes (e.g. news): Poisson per day with a 24-hour profile; never in a timeline.
    public var randomPerDay: Double = 0
    public var randomProfile: [Double] = HourProfile.flat
    /// Share of random changes announced by a push, and the push's latency
    /// (log-normal: median, sigma; sigma 0 is a constant latency).
    public var pushFraction: Double = 0
    public var pushLatencyMedianMs: Int64 = 30 * Milliseconds.second
    public var pushLatencySigma: Double = 0

    public init() {}
}

/// What relevance the widget's timeline entries carry (MODEL §5).
public enum RelevanceSpec: Sendable, Hashable {
    /// No relevance: the widget never asks to rotate.
    case none
    /// Every reload's first entry carries `score` until the next relevance (duration 0).
    case constant(score: Double)
    /// Ahead of each scheduled change: `score` from `leadMs` before it until
    /// `durationMs` after it (duration 0: until the next relevance entry, at the end of
    /// the event, `ContentSpec.scheduledLengthMs` after the change); `baseline`
    /// otherwise (calendar).
    case scheduled(score: Double, baseline: Double, leadMs: Int64, durationMs: Int64)
    /// A reload that brings a random change carries `score` for `durationMs`, then
    /// `baseline` (news: breaking stories).
    case breaking(score: Double, baseline: Double, durationMs: Int64)
}

/// One level of a relevance model with several: a score and the share of entries
/// that carry it (the shares of a widget's levels sum to 1).
public struct RelevanceLevel: Sendable, Hashable {
    public var score: Double
    public var share: Double
    public init(score: Double, share: Double) {
        self.score = score
        self.share = share
    }
}

/// The Smart Stack: up to 10 instances of one family, in the person's order.
/// Widgets not in the stack stand alone on the home screen and are seen at every view.
public struct StackSpec: Sendable, Hashable {
    /// Indices into `Scenario.widgets`, in the person's order.
    public var members: [Int]
    public var smartRotate: Bool
    /// The system's limits on rotation (`RotationGovernor`).
    public var rotationLimits: RotationLimits
    /// Widget Suggestions (iOS 15+): whether the system may put a widget from outside
    /// the stack on top (see `WidgetSuggestions`).
    public var widgetSuggestions: Bool = false
    /// Instances the person has installed apps for but placed nowhere: neither in the
    /// stack nor on the home screen. People may want them; Widget Suggestions may show
    /// them.
    public var suggestable: [Int] = []
    public static let maximumMembers = 10
    public init(members: [Int], smartRotate: Bool = true, rotationLimits: RotationLimits = RotationLimits()) {
        self.members = members
        self.smartRotate = smartRotate
        self.rotationLimits = rotationLimits
    }
}
