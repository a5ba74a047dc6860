import WidgetSimKernel

/// One app session taken from a usage log: its span in run time and the widget whose
/// app it is.
public struct ReplayedSession: Sendable, Hashable {
    public var start: SimTime
    public var end: SimTime
    public var widget: Int32

    public init(start: SimTime, end: SimTime, widget: Int32) {
        self.start = start
        self.end = end
        self.widget = widget
    }
}

/// The sessions of a usage log's people (`trace:` in a scenario), one list per person,
/// each sorted by start: they replace the person model's sessions (MODEL §2), while
/// views, content changes, pushes and everything else are drawn as usual.
public final class ReplayedSessions: Sendable {
    /// Each person's sessions, by start.
    public let people: [[ReplayedSession]]
    /// Where the sessions came from (the log's path), for messages.
    public let source: String
    /// What reading the log skipped or read with a default, one line each.
    public let warnings: [String]

    public init(people: [[ReplayedSession]], source: String, warnings: [String] = []) {
        self.people = people.map { $0.sorted { ($0.start, $0.end, $0.widget) < ($1.start, $1.end, $1.widget) } }
        self.source = source
        self.warnings = warnings
    }
}

extension WorldBuilder {
    /// The sessions of `person` from the log instead of the model's draws: each still
    /// draws whether it donates and the donated configuration, from the same streams
    /// and with the same probabilities as a drawn session, so every policy pair sees the
    /// same replayed days. Person k of a run takes the log's person k (modulo their number).
    func replaySessions(_ w: PersonWorld, _ replay: ReplayedSessions, person: Int, end: SimTime) {
        w.sessions.removeAll(keepingCapacity: true)
        w.sessionEnds.removeAll(keepingCapacity: true)
        guard !replay.people.isEmpty else { return }
        let details = stream(StreamProcess.sessionDetails)
        let configurations = stream(StreamProcess.donatedConfigurations)
        let p = scenario.person.donationProbability
        let spans = w.hours.spans
        var spanIndex = 0
        for session in replay.people[person % replay.people.count] where session.start >= 0 && session.start < end {
            while spanIndex + 1 < spans.count && spans[spanIndex].end <= session.start { spanIndex += 1 }
            let donates = details.uniform() < p
            let c = configurations.uniform()
            let widget = Int(session.widget)
            w.sessions.append(SessionRecord(
                start: session.start, end: session.end, widget: session.widget, donates: donates,
                donatedInstance: Int32(donations.target(of: widget, uniform: c)),
                hour: spans[spanIndex].hour, weekday: spans[spanIndex].weekday))
            if session.end < end { w.sessionEnds.append(WidgetMoment(time: session.end, widget: session.widget)) }
        }
        w.sessionEnds.sort()
    }
}
