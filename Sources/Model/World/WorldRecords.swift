import WidgetSimKernel

/// A home-screen view, with everything about it that no policy can change.
public struct ViewRecord: Sendable {
    public var time: SimTime
    public var hour: UInt8
    public var weekday: UInt8
    /// The wanted stack member, or −1 for none.
    public var wanted: Int8
    /// The person would swipe to the wanted widget if it is not on top (drawn always).
    public var wouldSwipe: Bool
    /// The person would tap the wanted widget if it is shown and interactive (drawn always).
    public var wouldTap: Bool
    /// max over members of P(wanted = member), in units of 1e-9.
    public var bestChanceNano: Int64
    /// P(some member is wanted), in units of 1e-9.
    public var wantedChanceNano: Int64
    /// Whether the phone is in StandBy at this view.
    public var standBy: Bool = false

    /// A record a list is made long with before its elements are written.
    static let blank = ViewRecord(
        time: 0, hour: 0, weekday: 0, wanted: -1, wouldSwipe: false, wouldTap: false, bestChanceNano: 0, wantedChanceNano: 0)
}

/// An app session: its widget (the one whose interest drew it), donation and span.
public struct SessionRecord: Sendable {
    public var start: SimTime
    public var end: SimTime
    public var widget: Int32
    public var donates: Bool
    /// The instance whose configuration the donated intent carries (same kind as
    /// `widget`), or −1 when it matches no configured instance.
    public var donatedInstance: Int32
    public var hour: UInt8
    public var weekday: UInt8

    /// A record a list is made long with before its elements are written.
    static let blank = SessionRecord(start: 0, end: 0, widget: -1, donates: false, donatedInstance: -1, hour: 0, weekday: 0)
}

/// Something that happens to one widget at one time (a random content change, a push).
public struct WidgetMoment: Sendable, Comparable {
    public var time: SimTime
    public var widget: Int32
    public static func < (a: Self, b: Self) -> Bool {
        a.time != b.time ? a.time < b.time : a.widget < b.widget
    }
}
