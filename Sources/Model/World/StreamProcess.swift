/// The process numbers that, with (seed, replication, person), key each random stream
/// (see `StreamKey`). Per-widget processes are numbered from `widgetBase` by the
/// widget's position in the scenario, so adding a widget never changes another's
/// numbers. Changing a number changes every result: these values are part of the
/// file format's meaning.
public enum StreamProcess {
    /// Each person's own daily rates (views, sessions): gamma draws.
    public static let personRates: UInt64 = 1
    /// Home-screen view arrivals.
    public static let views: UInt64 = 2
    /// The wanted widget at each view.
    public static let wanted: UInt64 = 3
    /// Swipe and tap draws at each view (drawn at every view, used only when they apply).
    public static let feedback: UInt64 = 4
    /// App session arrivals.
    public static let sessions: UInt64 = 5
    /// Each session's widget, donation and length.
    public static let sessionDetails: UInt64 = 6
    /// Trips to other time zones.
    public static let travel: UInt64 = 7
    /// Environment changes (locale, Dynamic Type, account).
    public static let environment: UInt64 = 8
    /// The ranking policy's own randomness (coin tosses, Thompson draws).
    public static let ranking: UInt64 = 9
    /// Acceptance draws of the session process when some widget's interest bursts
    /// (thinning: one uniform per candidate session).
    public static let sessionThinning: UInt64 = 10
    /// The configuration each session's donated intent carries.
    public static let donatedConfigurations: UInt64 = 11
    /// StandBy: each night's start and length, then the glances during the periods.
    public static let standBy: UInt64 = 12
    /// The rotation governor's own randomness (hold durations).
    public static let rotation: UInt64 = 13

    public static let widgetBase: UInt64 = 100
    public static let perWidget: UInt64 = 4
    /// Random content changes of widget `w`.
    public static func randomChanges(_ w: Int) -> UInt64 { widgetBase + perWidget * UInt64(w) }
    /// Push announcement draws (whether, and latency) of widget `w`.
    public static func pushes(_ w: Int) -> UInt64 { widgetBase + perWidget * UInt64(w) + 1 }
    /// Scheduled content changes (meetings) of widget `w`.
    public static func scheduled(_ w: Int) -> UInt64 { widgetBase + perWidget * UInt64(w) + 2 }
    /// Audio or navigation sessions of the app whose widget `w` declares them.
    public static func audioSessions(_ w: Int) -> UInt64 { widgetBase + perWidget * UInt64(w) + 3 }

    /// The relevance scores drawn for widget `w`'s entries when its relevance has levels
    /// (numbered in a block of their own, above every per-widget block).
    public static func relevanceLevels(_ w: Int) -> UInt64 { relevanceLevelsBase + UInt64(w) }
    public static let relevanceLevelsBase: UInt64 = 1 << 32
}
