import Foundation
import WidgetSimModel
import Yams

/// What a valid scenario file may not mean: located like problems, but the file still
/// runs. Today: a fixed-offset time zone (`EST`) where a region's zone, with daylight
/// saving time, is likely meant.
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
        return warnings
    }
}
