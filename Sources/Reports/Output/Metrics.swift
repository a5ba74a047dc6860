import WidgetSimModel

/// A headline metric: one column of `summary.csv` and `daily.csv`, computed from a
/// pair's totals over a range of days (MODEL §6).
public struct Metric: Sendable {
    public enum Kind: Sendable { case count, ratio }
    public var name: String
    public var kind: Kind
    public var meaning: String
    /// The value over `days`, or nil when it is undefined (a ratio over nothing).
    public var compute: @Sendable (_ totals: PairTotals, _ days: Range<Int>) -> Double?

    static func count(_ name: String, _ meaning: String, _ c: PersonCounter) -> Metric {
        Metric(name: name, kind: .count, meaning: meaning) { t, d in Double(t.sum(c, days: d)) }
    }
    static func count(_ name: String, _ meaning: String, _ c: WidgetCounter) -> Metric {
        Metric(name: name, kind: .count, meaning: meaning) { t, d in Double(t.sum(c, days: d)) }
    }
    static func ratio(_ name: String, _ meaning: String, _ f: @escaping @Sendable (PairTotals, Range<Int>) -> (Double, Double)) -> Metric {
        Metric(name: name, kind: .ratio, meaning: meaning) { t, d in
            let (a, b) = f(t, d)
            return b > 0 ? a / b : nil
        }
    }
}

func ratio(_ a: Int64, _ b: Int64) -> (Double, Double) { (Double(a), Double(b)) }

public enum Metrics {
    /// Person-days (or widget-days) in `days` for these totals.
    static func personDays(_ t: PairTotals, _ d: Range<Int>) -> Int64 { Int64(t.people * d.count) }

    /// The columns, in report order.
    public static let all: [Metric] = [
        .count("views", "home-screen views", PersonCounter.views),
        .count("views_wanted", "views at which some stack member was wanted", .viewsWanted),
        .count("hits", "views whose top was the wanted member", .hits),
        .ratio("accuracy", "hits ÷ views_wanted") { t, d in ratio(t.sum(.hits, days: d), t.sum(.viewsWanted, days: d)) },
        .ratio("top3_rate", "views whose wanted member ranked in the top 3 ÷ views_wanted") { t, d in
            ratio(t.sum(.top3Hits, days: d), t.sum(.viewsWanted, days: d)) },
        .ratio("mean_reciprocal_rank", "mean of 1 / rank of the wanted member") { t, d in
            (Double(t.sum(.reciprocalRank2520, days: d)) / 2520, Double(t.sum(.viewsWanted, days: d))) },
        .ratio("ceiling", "Bayes-optimal accuracy: Σ max P(wanted = w) ÷ Σ P(some member wanted)") { t, d in
            ratio(t.sum(.bestChanceNano, days: d), t.sum(.wantedChanceNano, days: d)) },
        .ratio("accuracy_over_ceiling", "accuracy ÷ ceiling") { t, d in
            let acc = Double(t.sum(.hits, days: d)) / Double(max(1, t.sum(.viewsWanted, days: d)))
            let ceil = Double(t.sum(.bestChanceNano, days: d)) / Double(max(1, t.sum(.wantedChanceNano, days: d)))
            return (acc, t.sum(.viewsWanted, days: d) > 0 ? ceil : 0) },
        .ratio("rotations_per_day", "changes of the top between consecutive views, per person-day") { t, d in
            ratio(t.sum(.rotations, days: d), personDays(t, d)) },
        .ratio("rotation_precision", "rotations whose new top was wanted ÷ rotations") { t, d in
            ratio(t.sum(.rotationHits, days: d), t.sum(.rotations, days: d)) },
        .count("rotations_to_stale", "rotations whose new top showed stale content", .rotationsToStale),
        .ratio("stale_top_share", "views whose top showed stale content ÷ views") { t, d in
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
        .count("reloads_charged", "reloads charged to budgets", .charged),
        .count("requests_denied", "charged requests refused and dropped", .denied),
        .count("requests_deferred", "charged requests refused and deferred", .deferred),
        .ratio("mean_deferral_minutes", "mean delay given to deferred requests") { t, d in
            (Double(t.sum(.deferralMs, days: d)) / 60_000, Double(t.sum(.deferred, days: d))) },
        .ratio("reloads_per_widget_day", "all reloads per widget instance per day") { t, d in
            let reloads = ReloadReason.allCases.reduce(Int64(0)) { $0 + t.sum(WidgetCounter.reload($1), days: d) }
            return ratio(reloads, personDays(t, d) * Int64(t.widgets)) },
        Metric(name: "reloads_per_widget_day_p95", kind: .count,
               meaning: "95th percentile of reloads per widget-day (over the measured days)") { t, d in
            d == t.measuredDays ? Double(t.reloadQuantile(0.95)) : nil },
        .ratio("stale_view_share", "views of an instance that showed stale content ÷ views of instances") { t, d in
            ratio(t.sum(.staleViews, days: d), t.sum(WidgetCounter.views, days: d)) },
        .ratio("mean_staleness_minutes", "mean age of the first unshown change at stale views") { t, d in
            (Double(t.sum(.stalenessMs, days: d)) / 60_000, Double(t.sum(.staleViews, days: d))) },
        .ratio("exhausted_share", "share of widget time with an exhausted budget") { t, d in
            ratio(t.sum(.exhaustedMs, days: d), personDays(t, d) * Int64(t.widgets) * Milliseconds.day) },
        .ratio("energy", "energy spent on reloads, in cost units") { t, d in
            (Double(t.sum(.energyMilli, days: d)), 1000) },
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
}
