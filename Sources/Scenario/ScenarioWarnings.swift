import Foundation
import WidgetSimModel
import Yams

/// What a valid scenario file may not mean: located like problems, but the file still
/// runs. A fixed-offset time zone (`EST`) where a region's zone, with daylight saving
/// time, is likely meant; and keys that the rest of the file leaves without effect
/// (`relevanceWarnings`).
public enum ScenarioWarnings {
    /// The warnings of the file at `path`, which `ScenarioLoader` read without problems.
    public static func check(path: String, scenario: Scenario) -> [ScenarioIssue] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return check(yaml: text, file: path, scenario: scenario)
    }

    public static func check(yaml: String, file: String, scenario: Scenario) -> [ScenarioIssue] {
        guard let root = try? Yams.compose(yaml: yaml) else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let s = scenario.start
        let date = calendar.date(from: DateComponents(year: s.year, month: s.month, day: s.day)) ?? Date()
        var warnings: [ScenarioIssue] = []
        func zone(_ node: Node, _ path: String) {
            guard case .scalar(let scalar) = node,
                  let message = Hints.fixedOffsetZoneWarning(scalar.string, at: date) else { return }
            let mark = node.mark
            warnings.append(ScenarioIssue(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1,
                                          path: path, message: "warning: " + message))
        }
        // The home zone, and the zones of trips.
        if let home = root["time_zone"] { zone(home, "time_zone") }
        if case .sequence(let zones)? = root["person"]?["travel"]?["zones"] {
            for (i, z) in zones.enumerated() { zone(z, "person.travel.zones[\(i)]") }
        }
        // What reading a replayed log skipped (`trace:`), at the trace.
        for text in scenario.replay?.warnings ?? [] {
            let mark = root["trace"]?.mark
            warnings.append(ScenarioIssue(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, path: "trace", message: text))
        }
        warnings += relevanceWarnings(root: root, file: file, scenario: scenario)
        return warnings
    }

    /// Relevance keys that the rest of a widget's definition, or the stack, leaves
    /// without effect (MODEL §5): a relevance on a widget no stack holds (only members
    /// are ranked); a `scheduled` score with no scheduled changes, or a `breaking` one
    /// with no random changes (the widget always carries its baseline); a `scheduled`
    /// score whose windows are empty (lead 0, duration 0, events of length 0); and a
    /// `scheduled_length` that no relevance reads (only `scheduled` with duration 0
    /// ends with the event).
    static func relevanceWarnings(root: Node, file: String, scenario: Scenario) -> [ScenarioIssue] {
        guard case .sequence(let nodes)? = root["widgets"], nodes.count == scenario.widgets.count else { return [] }
        var warnings: [ScenarioIssue] = []
        func warn(_ node: Node?, _ path: String, _ message: String) {
            let mark = node?.mark
            warnings.append(ScenarioIssue(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1,
                                          path: path, message: "warning: " + message))
        }
        let members = Set(scenario.stack.members)
        for (i, (w, node)) in zip(scenario.widgets, nodes).enumerated() {
            let path = "widgets[\(i)]"
            let relevance = node["relevance"]
            var lengthRead = false
            if w.relevance != .none && !members.contains(i) {
                warn(relevance, path + ".relevance",
                     "`\(w.id)` is in no stack, and only stack members are ranked: its relevance has no effect")
            }
            switch w.relevance {
            case .none, .constant:
                break
            case .scheduled(_, _, let lead, let duration):
                let score = relevance?["score"] ?? relevance?["levels"]
                let scorePath = path + ".relevance." + (relevance?["score"] != nil ? "score" : "levels")
                lengthRead = duration == 0
                if w.content.scheduledPerDay == 0 {
                    warn(score, scorePath, "`content.scheduled_per_day` is 0, so `\(w.id)` has no scheduled "
                         + "changes and always carries its baseline: its score has no effect")
                } else if lead == 0 && duration == 0 && w.content.scheduledLengthMs == 0 {
                    warn(score, scorePath, "with `lead` 0, `duration` 0 and events of `scheduled_length` 0 each "
                         + "window ends where it starts: the score of `\(w.id)` has no effect")
                }
            case .breaking:
                if w.content.randomPerDay == 0 {
                    let score = relevance?["score"] ?? relevance?["levels"]
                    let scorePath = path + ".relevance." + (relevance?["score"] != nil ? "score" : "levels")
                    warn(score, scorePath, "`content.random_per_day` is 0, so `\(w.id)` never has news "
                         + "and always carries its baseline: its score has no effect")
                }
            }
            if !lengthRead, let length = node["content"]?["scheduled_length"] {
                warn(length, path + ".content.scheduled_length", "only a `scheduled` relevance with `duration: 0` "
                     + "ends with the event; for `\(w.id)` `scheduled_length` has no effect")
            }
        }
        return warnings
    }
}
