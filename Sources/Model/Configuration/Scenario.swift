import WidgetSimKernel
import WidgetSimSampling

/// Everything one simulation run needs, already validated. The `Scenario` layer builds
/// it from a file; tests build it directly.
public struct Scenario: Sendable {
    /// The scenario's name (`name:`), carried by every report row.
    public var name: String
    /// What the scenario is for (`description:`), free text.
    public var description: String = ""
    /// The scenario seed: the root of every stream's seed (see `StreamKey`).
    public var seed: UInt64
    /// Simulated days; time runs over [0, days × 24 h).
    public var days: Int
    /// Leading days that run (policies learn) but count in no metric but `daily.csv`.
    public var warmupDays: Int = 0
    /// Independent repetitions of the whole population, each with its own seed.
    public var replications: Int = 1
    /// Simulated people per replication.
    public var people: Int
    /// The start instant is local midnight of this date in `timeZone`.
    public var start: CalendarDate
    /// The people's home time zone (IANA identifier).
    public var timeZone: String
    /// The pseudo-random generator behind every stream.
    public var generator: GeneratorKind = .default
    /// How a person behaves: views, sessions, swipes, pushes (`person:`).
    public var person: PersonModel
    /// The widgets, in file order: instance numbers follow it (`widgets:`).
    public var widgets: [WidgetSpec]
    /// The Smart Stack and its rotation governor (`stack:`).
    public var stack: StackSpec
    /// The budget policies to compare, each with its label and parameters (`budgets:`).
    public var budgets: [PolicyChoice]
    /// The ranking policies to compare (`rankings:`); every budget runs with every ranking.
    public var rankings: [PolicyChoice]
    /// The (budget label, ranking label) pair that comparisons are made against.
    public var baseline: PolicyPair
    /// Sessions replayed from a usage log (`trace:`), in place of the drawn ones; nil
    /// for the person model's sessions.
    public var replay: ReplayedSessions?
    /// The registry that resolves the names in `budgets` and `rankings` to policies:
    /// the one the scenario was read against.
    public var policies: PolicyRegistry = .builtIn

    /// A scenario from its parts, every other value at its default. The baseline defaults
    /// to the first budget with the first ranking.
    public init(
        name: String, seed: UInt64, days: Int, people: Int, start: CalendarDate,
        timeZone: String, person: PersonModel, widgets: [WidgetSpec], stack: StackSpec,
        budgets: [PolicyChoice], rankings: [PolicyChoice], baseline: PolicyPair? = nil
    ) {
        self.name = name
        self.seed = seed
        self.days = days
        self.people = people
        self.start = start
        self.timeZone = timeZone
        self.person = person
        self.widgets = widgets
        self.stack = stack
        self.budgets = budgets
        self.rankings = rankings
        self.baseline = baseline ?? PolicyPair(budget: budgets[0].label, ranking: rankings[0].label)
    }

    /// Simulated milliseconds in the run.
    public var durationMs: Int64 { Int64(days) * Milliseconds.day }

    /// Every budget × ranking pair, budgets outermost, in file order.
    public var policyPairs: [PolicyPair] {
        budgets.flatMap { b in rankings.map { PolicyPair(budget: b.label, ranking: $0.label) } }
    }
}

/// A civil date (proleptic Gregorian).
public struct CalendarDate: Sendable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
    public var description: String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

/// A policy as a scenario names it: a label unique within the scenario (the name by
/// default), the policy's registered name, and its parameters.
public struct PolicyChoice: Sendable, Hashable {
    /// The name report rows use: the entry's `label`, or the policy's name.
    public var label: String
    /// The registered policy's name.
    public var name: String
    /// The entry's parameter values (checked against the policy's specs).
    public var parameters: PolicyParameters
    /// A choice of policy `name`, labelled `label` (by default, `name`).
    public init(label: String? = nil, name: String, parameters: PolicyParameters = .init()) {
        self.label = label ?? name
        self.name = name
        self.parameters = parameters
    }
}

/// One budget × ranking combination, by label.
public struct PolicyPair: Sendable, Hashable, CustomStringConvertible {
    /// The budget's label.
    public var budget: String
    /// The ranking's label.
    public var ranking: String
    /// The pair of these labels.
    public init(budget: String, ranking: String) {
        self.budget = budget
        self.ranking = ranking
    }
    /// `budget × ranking`, as tables print it.
    public var description: String { "\(budget) × \(ranking)" }
}

/// A quantity that differs between people: each person draws theirs from a gamma
/// distribution with this mean and coefficient of variation (0: everyone the mean).
public struct PerPersonRate: Sendable, Hashable {
    public var mean: Double
    public var cv: Double
    public init(mean: Double, cv: Double = 0) {
        self.mean = mean
        self.cv = cv
    }
}

/// How people behave: the exogenous processes of MODEL §2 that are not per widget.
public struct PersonModel: Sendable {
    /// Home-screen views per day.
    public var viewsPerDay = PerPersonRate(mean: 85, cv: 0.3)
    /// Relative weight of each local hour 0…23 for views.
    public var viewProfile: [Double] = HourProfile.diurnal
    /// App sessions per day, all apps together; each session's widget is drawn in
    /// proportion to the widgets' interest at its start.
    public var sessionsPerDay = PerPersonRate(mean: 15, cv: 0.3)
    public var sessionProfile: [Double] = HourProfile.diurnal
    /// Session length: log-normal with this median and log-scale sigma (0: constant).
    public var sessionMedianMs: Int64 = 90 * Milliseconds.second
    public var sessionSigma: Double = 0.6
    /// Probability that a session donates its widget's intent.
    public var donationProbability: Double = 0.7
    /// Interest in no widget at all (λ_none), in the same units as widget interest.
    public var noInterest: Double = 0.5
    /// Probability that a person whose wanted widget is not on top swipes to it.
    public var swipeProbability: Double = 0.3
    /// Probability of a tap when an interactive widget is shown and wanted.
    public var tapProbability: Double = 0.2
    /// Whether a push that arrives while its app is in the foreground reloads for free.
    public var pushWhileForegroundIsFree: Bool = true
    /// Background pushes delivered per app per rolling hour (`PushThrottle`); nil: no throttle.
    public var backgroundPushesPerHour: Int? = PushThrottle.defaultPerHour
    /// Significant environment changes (locale, Dynamic Type, account) per day.
    public var environmentChangesPerDay: Double = 0.02
    public var travel: TravelModel? = nil
    /// A nightly StandBy (charging) period; nil: never.
    public var standBy: StandByModel? = nil

    public init() {}
}

/// StandBy (iOS 17+): each night the phone charges on its side and shows widgets.
/// Night d's period starts at local midnight of day d + `startHour` hours − `spreadMs`/2
/// + U·`spreadMs` (U uniform) and lasts a log-normal time (`medianMs`, `sigma`), cut
/// short at the next night's start. During it the person glances at the widgets
/// `viewsPerHour` times an hour (Poisson), beside the ordinary views, and the system
/// refreshes the display of every widget at the period's start and every
/// `refreshIntervalMs` after it while the period lasts: free reloads (reason `standBy`)
/// whose number depends on the system's rate alone, never on the widget's own reload
/// policy (MODEL §2). The widget's own timeline requests are charged as at any time.
public struct StandByModel: Sendable, Hashable {
    public var startHour: Double = 23
    public var spreadMs: Int64 = 2 * Milliseconds.hour
    public var medianMs: Int64 = 7 * Milliseconds.hour
    public var sigma: Double = 0.15
    public var viewsPerHour: Double = 0.5
    /// The system's display refresh interval in StandBy. 15 minutes is our calibration
    /// (Apple documents no rate; it is the shortest interval Apple gives for a frequently
    /// viewed widget, "every 15 to 60 minutes").
    public var refreshIntervalMs: Int64 = 15 * Milliseconds.minute
    public init() {}
}

/// Trips to other time zones: each trip starts after an exponential wait (mean
/// 1 / tripsPerDay days), goes to a zone drawn uniformly from `zones`, and lasts an
/// exponential time with mean `meanStayMs`.
public struct TravelModel: Sendable {
    public var tripsPerDay: Double
    public var zones: [String]
    public var meanStayMs: Int64
    public init(tripsPerDay: Double, zones: [String], meanStayMs: Int64) {
        self.tripsPerDay = tripsPerDay
        self.zones = zones
        self.meanStayMs = meanStayMs
    }
}

/// 24-hour profiles that scenarios can name.
public enum HourProfile {
    /// Near zero at night, a morning rise, a midday plateau and an evening peak.
    public static let diurnal: [Double] = [
        0.2, 0.1, 0.05, 0.05, 0.05, 0.2, 0.8, 1.6, 1.8, 1.4, 1.2, 1.2,
        1.5, 1.3, 1.1, 1.1, 1.2, 1.4, 1.6, 1.7, 1.6, 1.3, 0.9, 0.5,
    ]
    /// Constant over the day.
    public static let flat: [Double] = Array(repeating: 1, count: 24)
    /// 1 from 07:00 to 23:00, 0 at night.
    public static let waking: [Double] = (0 ..< 24).map { (7 ..< 23).contains($0) ? 1 : 0 }
    /// 1 from 09:00 to 18:00, 0 otherwise.
    public static let office: [Double] = (0 ..< 24).map { (9 ..< 18).contains($0) ? 1 : 0 }

    public static let named: [String: [Double]] = [
        "diurnal": diurnal, "flat": flat, "waking": waking, "office": office,
    ]
}
