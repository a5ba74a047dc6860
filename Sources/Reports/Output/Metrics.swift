import WidgetSimExecution
import WidgetSimKernel
import WidgetSimModel

/// A headline metric: one column of `summary.csv` and `daily.csv` (and one set of rows of
/// `comparison.csv`), computed from a pair's totals over a range of days (MODEL §6).
///
/// Units are the same in every report: durations in seconds, energy in the widgets'
/// cost units, shares as fractions in 0…1.
public struct Metric: Sendable {
    public enum Kind: Sendable {
        /// A whole number that grows with the people simulated (a total).
        case count
        /// A whole number that does not grow with the people (a quantile).
        case quantile
        /// A real number: a ratio, a mean, or a total of a real quantity (`extensive`).
        case ratio
    }
    public var name: String
    public var kind: Kind
    /// The unit, in words (`"1"` for a plain count, `"share"` for a fraction in 0…1).
    public var unit: String
    public var meaning: String
    /// Whether the value grows in proportion to the people (a total).
    public var extensive: Bool
    /// Whether `daily.csv` has the metric (a quantile over the measured days has no daily value).
    public var daily = true
    /// The value over `days`, or nil when it is undefined (a ratio over nothing).
    public var compute: @Sendable (_ totals: PairTotals, _ days: Range<Int>) -> Double?

    /// The column type in CSV files.
    public var type: ColumnType { kind == .ratio ? .double : .integer }

    static func count(_ name: String, _ meaning: String, _ c: PersonCounter) -> Metric {
        Metric(name: name, kind: .count, unit: "1", meaning: meaning, extensive: true) { t, d in Double(t.sum(c, days: d)) }
    }
    static func count(_ name: String, _ meaning: String, _ c: WidgetCounter) -> Metric {
        Metric(name: name, kind: .count, unit: "1", meaning: meaning, extensive: true) { t, d in Double(t.sum(c, days: d)) }
    }
    static func ratio(_ name: String, _ unit: String, _ meaning: String,
                      _ f: @escaping @Sendable (PairTotals, Range<Int>) -> (Double, Double)) -> Metric {
        Metric(name: name, kind: .ratio, unit: unit, meaning: meaning, extensive: false) { t, d in
            let (a, b) = f(t, d)
            return b > 0 ? a / b : nil
        }
    }
}

func ratio(_ a: Int64, _ b: Int64) -> (Double, Double) { (Double(a), Double(b)) }

public enum Metrics {
    /// Person-days (or widget-days) in `days` for these totals.
    static func personDays(_ t: PairTotals, _ d: Range<Int>) -> Int64 { Int64(t.people * d.count) }
    static func widgetDays(_ t: PairTotals, _ d: Range<Int>) -> Int64 { personDays(t, d) * Int64(t.widgets) }

    static func reloads(_ t: PairTotals, _ d: Range<Int>) -> Int64 {
        ReloadReason.allCases.reduce(Int64(0)) { $0 + t.sum(WidgetCounter.reload($1), days: d) }
    }

    /// The columns, in report order.
    public static let all: [Metric] = [
        .count("views", "home-screen views", PersonCounter.views),
        .count("views_wanted", "views at which some stack member was wanted", .viewsWanted),
        .count("hits", "views whose top was the wanted member", .hits),
        .ratio("accuracy", "share", "hits ÷ views_wanted") { t, d in ratio(t.sum(.hits, days: d), t.sum(.viewsWanted, days: d)) },
        .ratio("top3_rate", "share", "views whose wanted member ranked in the top 3 ÷ views_wanted") { t, d in
            ratio(t.sum(.top3Hits, days: d), t.sum(.viewsWanted, days: d)) },
        .ratio("mean_reciprocal_rank", "share", "mean of 1 / rank of the wanted member, over views_wanted") { t, d in
            (Double(t.sum(.reciprocalRank2520, days: d)) / 2520, Double(t.sum(.viewsWanted, days: d))) },
        .ratio("ceiling", "share",
               "Bayes-optimal accuracy, an expected value: Σ max P(wanted = w) ÷ Σ P(some member wanted); a ranking can exceed it by sampling noise") { t, d in
            ratio(t.sum(.bestChanceNano, days: d), t.sum(.wantedChanceNano, days: d)) },
        .ratio("accuracy_over_ceiling", "ratio", "accuracy ÷ ceiling") { t, d in
            let acc = Double(t.sum(.hits, days: d)) / Double(max(1, t.sum(.viewsWanted, days: d)))
            let ceil = Double(t.sum(.bestChanceNano, days: d)) / Double(max(1, t.sum(.wantedChanceNano, days: d)))
            return (acc, t.sum(.viewsWanted, days: d) > 0 ? ceil : 0) },
        .ratio("rotations_per_day", "per person-day", "changes of the top between consecutive views, per person-day") { t, d in
            ratio(t.sum(.rotations, days: d), personDays(t, d)) },
        .ratio("rotation_precision", "share", "rotations whose new top was wanted at that view ÷ rotations") { t, d in
            ratio(t.sum(.rotationHits, days: d), t.sum(.rotations, days: d)) },
        .count("rotations_to_stale", "rotations whose new top showed stale content", .rotationsToStale),
        .ratio("stale_top_share", "share", "views whose top showed stale content ÷ views") { t, d in
            ratio(t.sum(.staleTopViews, days: d), t.sum(PersonCounter.views, days: d)) },
        .count("reloads_timeline", "reloads because the timeline's reload policy came due", .reloadTimeline),
        .count("reloads_background", "reloads asked by the app from the background (pushes)", .reloadBackground),
        .count("reloads_foreground", "reloads asked by the app in the foreground", .reloadForeground),
        .count("reloads_interaction", "reloads from taps on interactive widgets", .reloadInteraction),
        .count("reloads_time_change", "reloads at midnights, DST transitions and zone changes", .reloadTimeChange),
        .count("reloads_environment", "reloads at locale, accessibility or account changes", .reloadEnvironment),
        .count("reloads_audio", "reloads asked by an app during its audio or navigation session", .reloadAudio),
        .count("reloads_widget_added", "first reloads of instances added to the stack during the run", .reloadWidgetAdded),
        .count("reloads_standby", "display refreshes while the phone was in StandBy", .reloadStandBy),
        .count("reloads_charged", "reloads charged to budgets (a total: grows with people and days)", .charged),
        .count("requests_denied", "charged requests refused and dropped", .denied),
        .count("requests_deferred", "charged requests refused and deferred", .deferred),
        .ratio("mean_deferral_seconds", "seconds", "mean delay given to deferred requests") { t, d in
            (Double(t.sum(.deferralMs, days: d)) / 1000, Double(t.sum(.deferred, days: d))) },
        .ratio("reloads_per_widget_day", "per widget-day", "all reloads, charged and free, per widget instance per day") { t, d in
            ratio(reloads(t, d), widgetDays(t, d)) },
        .ratio("charged_reloads_per_widget_day", "per widget-day", "reloads charged to budgets per widget instance per day") { t, d in
            ratio(t.sum(.charged, days: d), widgetDays(t, d)) },
        .ratio("free_reloads_per_widget_day", "per widget-day",
               "reloads not charged to budgets (every reason but timeline and background) per widget instance per day") { t, d in
            ratio(reloads(t, d) - t.sum(.charged, days: d), widgetDays(t, d)) },
        Metric(name: "reloads_per_widget_day_p95", kind: .quantile, unit: "per widget-day",
               meaning: "95th percentile of reloads per widget-day over the measured days (summary and comparison only)",
               extensive: false, daily: false) { t, d in
            d == t.measuredDays && t.reloadHistogram.reduce(0, +) > 0 ? Double(t.reloadQuantile(0.95)) : nil },
        .ratio("stale_view_share", "share",
               "views of an instance that showed stale content ÷ views of instances (depends on the ranking: counts what was shown)") { t, d in
            ratio(t.sum(.staleViews, days: d), t.sum(WidgetCounter.views, days: d)) },
        .ratio("stale_member_share", "share",
               "at each view, stack members whose content was stale (would be stale if shown) ÷ stack members, pooled over views: the budget's staleness, whatever the ranking") { t, d in
            ratio(t.sum(.staleMemberViews, days: d), t.sum(.memberViews, days: d)) },
        .ratio("mean_staleness_seconds", "seconds", "mean age of the first unshown change at stale views") { t, d in
            (Double(t.sum(.stalenessMs, days: d)) / 1000, Double(t.sum(.staleViews, days: d))) },
        .ratio("exhausted_share", "share", "share of widget time with an exhausted budget") { t, d in
            ratio(t.sum(.exhaustedMs, days: d), widgetDays(t, d) * Milliseconds.day) },
        Metric(name: "energy", kind: .ratio, unit: "cost units", meaning: "energy spent on reloads (a total)",
               extensive: true) { t, d in Double(t.sum(.energyMilli, days: d)) / 1000 },
        .count("sessions", "app sessions", .sessions),
        .count("donations", "intent donations", .donations),
        .count("pushes", "pushes received", .pushes),
        .count("content_changes", "random content changes", .contentChanges),
        .count("audio_sessions", "audio or navigation sessions started", .audioSessions),
        .count("standby_views", "views while the phone was in StandBy", .standByViews),
        .count("suggestions_shown", "views at which Widget Suggestions showed a widget from outside the stack on top",
               .suggestionsShown),
        .count("suggestions_wanted", "of those, views at which the suggested widget was wanted", .suggestionsWanted),
        .count("events", "events the kernel handled", .events),
    ]

    /// The metrics `daily.csv` has.
    public static var daily: [Metric] { all.filter(\.daily) }

    public static func named(_ name: String) -> Metric? { all.first { $0.name == name } }
}
