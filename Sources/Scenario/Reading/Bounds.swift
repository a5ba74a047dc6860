import WidgetSimKernel
import WidgetSimModel

/// The range a number read from a scenario must fall in. Every number a file gives is
/// checked against one: the documented bounds of scenarios/README.md ("Bounds") live
/// here, each beside what it protects. A new key picks the constant that fits it or
/// adds one of its own; a key read with a plain `.positive` or `.nonNegative` still gets
/// `general`'s ceiling.
struct NumberRule: Sendable {
    var lower: Double
    /// Whether `lower` itself is refused ("above 0" rather than "0 or more").
    var lowerOpen: Bool
    var upper: Double

    /// Above 0, at most `upper`.
    static func positive(atMost upper: Double) -> NumberRule { NumberRule(lower: 0, lowerOpen: true, upper: upper) }
    /// 0 or more, at most `upper`.
    static func nonNegative(atMost upper: Double) -> NumberRule { NumberRule(lower: 0, lowerOpen: false, upper: upper) }
    /// Within `range`, both ends included.
    static func within(_ range: ClosedRange<Double>) -> NumberRule {
        NumberRule(lower: range.lowerBound, lowerOpen: false, upper: range.upperBound)
    }

    /// The ceiling of every number without a bound of its own: far beyond any sensible
    /// value, and small enough that sums and products of a few such numbers stay finite.
    static let general = 1e9
    static let any = within(-general ... general)
    static let positive = positive(atMost: general)
    static let nonNegative = nonNegative(atMost: general)
    static let probability = within(0 ... 1)

    /// Why `v` (written `text`) does not fit, or nil.
    func problem(_ v: Double, text: String) -> String? {
        let got = Excerpt.of(text)
        if lower == 0, upper == 1, !lowerOpen, !(0 ... 1).contains(v) { return "must be a probability in 0…1, got \(got)" }
        if lowerOpen, v <= lower { return lower == 0 ? "must be positive, got \(got)" : "must be above \(lower.trimmedText), got \(got)" }
        if v < lower { return lower == 0 ? "must not be negative, got \(got)" : "must be at least \(lower.trimmedText), got \(got)" }
        if v > upper { return "must be at most \(upper.trimmedText), got \(got)" }
        return nil
    }
}

/// The documented bounds of scenario values (scenarios/README.md, "Bounds"). Each is
/// chosen so that anything inside it runs: memory and events stay within the guard of
/// `RunGuard`, times and counts within 64-bit integers.
enum Bounds {
    // MARK: Rates per day (events and memory grow with them)

    /// `views_per_day`: every view of the run is held in memory for the person.
    static let viewsPerDay = NumberRule.positive(atMost: 5_000)
    /// `sessions_per_day`: every session is held in memory for the person.
    static let sessionsPerDay = NumberRule.positive(atMost: 1_000)
    /// `cv` of a per-person rate: a person's rate is a gamma draw; a cv above 3 makes
    /// a few people carry rates hundreds of times the mean.
    static let coefficientOfVariation = NumberRule.nonNegative(atMost: 3)
    /// `random_per_day`: each change is an event and a stored time.
    static let randomPerDay = NumberRule.nonNegative(atMost: 10_000)
    /// `scheduled_per_day`: each change is an event, a timeline entry and a stored time.
    static let scheduledPerDay = NumberRule.nonNegative(atMost: 1_000)
    /// `environment_changes_per_day`: each forces a reload of every widget.
    static let environmentChangesPerDay = NumberRule.nonNegative(atMost: 100)
    /// `audio_sessions.per_day`: each session is two events and a stored span.
    static let audioSessionsPerDay = NumberRule.positive(atMost: 1_000)
    /// `standby.views_per_hour`: each is an event and a stored view.
    static let standByViewsPerHour = NumberRule.nonNegative(atMost: 600)
    /// `standby.refresh_interval`: each refresh reloads every widget.
    static let standByRefreshMinimumMs = Milliseconds.minute
    /// A donated configuration's `weight` (only ratios matter).
    static let donationWeight = NumberRule.positive(atMost: 1e6)
    /// `trips_per_day`: each trip is two changes of zone, each a reload of every widget.
    static let tripsPerDay = NumberRule.positive(atMost: 10)

    // MARK: Spreads

    /// A log-normal `sigma`: exp(σ·z) must stay a representable length for any draw.
    static let sigma = NumberRule.nonNegative(atMost: 4)

    // MARK: Interest (λ must stay finite: it is summed and divided at every view)

    /// Interest `base` and `no_interest`.
    static let interestLevel = NumberRule.positive(atMost: 1e6)
    static let noInterest = NumberRule.nonNegative(atMost: 1e6)
    /// Peak, burst and weekday factors, and the values of a 24-hour profile.
    static let factor = NumberRule.positive(atMost: 1_000)
    static let weight = NumberRule.nonNegative(atMost: 1_000)
    /// The largest λ a widget may reach: base × hourly × peaks × weekday × burst.
    static let largestInterest = 1e12

    // MARK: Other numbers

    /// Relevance `score` and `baseline`.
    static let score = NumberRule.within(-1e9 ... 1e9)
    /// `reload_cost.energy`, units per reload: summed in thousandths over every reload
    /// of a run in a 64-bit counter.
    static let energy = NumberRule.nonNegative(atMost: 1_000)

    // MARK: Counts

    static let days = 1 ... 100_000
    /// People are simulated one after another; their counts are summed in 64 bits.
    static let people = 1 ... 10_000_000
    static let replications = 1 ... 10_000
    static let widgets = 100
    static let policies = 50
    static let peaks = 24
    static let travelZones = 100
    static let configurationEntries = 64
    /// `donated_configurations` of a widget: each session's donation walks them.
    static let donatedConfigurations = 100
    static let relevanceLevels = 100

    // MARK: Durations

    /// Retries, intervals, `after` delays and `entry_spacing`: shorter ones would schedule events faster
    /// than anything a phone does, and a run would not finish.
    static let shortestInterval = Milliseconds.second

    // MARK: Text (echoed in folder names, report rows and messages)

    /// `name`, widget `id`, `kind`, `app` and policy `label`; a name must leave room
    /// for the folder `reports/<name>/` within any file system's name limit.
    static let nameLength = 64
    static let descriptionLength = 4_096
    static let configurationTextLength = 256
    /// The seed: a 64-bit signed integer's range, so that every tool reading the
    /// reports (CSV, JSON) keeps it exactly.
    static let largestSeed = UInt64(Int64.max)
}

extension Double {
    /// `5000`, `1e+12` or `0.5`: a bound as messages print it.
    var trimmedText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

/// A value as a message quotes it: control characters escaped, at most `limit`
/// characters, with the full length said when it was cut.
enum Excerpt {
    static let limit = 40

    static func of(_ text: String, limit: Int = Excerpt.limit) -> String {
        var out = ""
        var count = 0
        var cut = false
        for scalar in text.unicodeScalars {
            if count >= limit {
                cut = true
                break
            }
            out += escaped(scalar)
            count += 1
        }
        guard cut else { return out }
        return out + "… (\(text.unicodeScalars.count) characters)"
    }

    /// A scalar as printable text: `\n`, `\t`, `\r`, `\u{7}` for the other controls.
    static func escaped(_ s: Unicode.Scalar) -> String {
        switch s {
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        default:
            if s.properties.generalCategory == .control || s.properties.generalCategory == .format
                || s.properties.generalCategory == .lineSeparator || s.properties.generalCategory == .paragraphSeparator
            {
                return "\\u{\(String(s.value, radix: 16))}"
            }
            return String(s)
        }
    }

    /// Whether `text` holds a control character (or a line or paragraph separator).
    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { escaped($0).count > 1 }
    }

    /// A whole message on one line: control characters escaped, at most `limit` characters.
    static func line(_ message: String, limit: Int = 2_000) -> String {
        guard message.unicodeScalars.contains(where: { escaped($0).count > 1 }) || message.count > limit else {
            return message
        }
        var out = ""
        for s in message.unicodeScalars { out += escaped(s) }
        return out.count > limit ? String(out.prefix(limit)) + "…" : out
    }
}
