import Foundation
import WidgetSimModel
import Yams

/// Hints for the commonest mistakes in scenario files, added to the message that
/// reports them: a value written where a mapping belongs (`interest: 0.2`, a `stack:`
/// list), a key shortened or lengthened (`warmup` for `warmup_days`), a duration with a
/// space (`30 m`).
enum Hints {
    /// What to write instead, when `node` was found where the mapping at `path` belongs.
    static func forMapping(_ path: String, found node: Node) -> String {
        let key = path.split(separator: ".").last.map(String.init) ?? path
        switch (key, node) {
        case ("interest", .scalar):
            guard let t = ScenarioReader.scalarText(node), Double(t) != nil else { return "" }
            return "; a number alone is the base interest: write `interest: {base: \(t)}`"
        case ("stack", .sequence(let items)):
            let names = items.compactMap { ScenarioReader.scalarText($0) }.joined(separator: ", ")
            return "; the stack is a mapping of its members and settings: write `stack: {members: [\(names)]}`"
        case ("person", .sequence), ("timeline", .sequence), ("content", .sequence):
            return "; write its keys one per line, without `-` in front"
        default:
            return ""
        }
    }

    /// The valid key `name` most likely stands for: the nearest by edit distance, or the
    /// one `name` begins (`warmup` → `warmup_days`) or ends with, when just one does.
    static func nearestKey(_ name: String, in valid: [String]) -> String? {
        if let guess = Suggestions.nearest(to: name, in: valid) { return guess }
        let word = name.lowercased()
        guard word.count >= 3 else { return nil }
        let longer = valid.filter { $0.lowercased().hasPrefix(word) || $0.lowercased().hasSuffix(word) }
        if longer.count == 1 { return longer[0] }
        let shorter = valid.filter { $0.count >= 3 && (word.hasPrefix($0.lowercased()) || word.hasSuffix($0.lowercased())) }
        return shorter.count == 1 ? shorter[0] : nil
    }

    /// For `30 m`: "; write `30m`, without a space".
    static func forDuration(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        let joined = t.split(separator: " ", omittingEmptySubsequences: true).joined()
        guard joined != t, DurationText.parse(joined) != nil else { return "" }
        return "; write `\(joined)`, without a space"
    }

    /// Fixed-offset zones the tz database keeps for old software (`EST`, `MST`,
    /// `Etc/GMT+5`): UTC plus a constant, with no daylight saving time. A region's zone
    /// is what a place that changes its clocks needs. Zero-offset zones (UTC) are meant.
    static func fixedOffsetZoneWarning(_ id: String, at date: Date) -> String? {
        guard !id.contains("/") || id.hasPrefix("Etc/"), let zone = TimeZone(identifier: id) else { return nil }
        let offset = zone.secondsFromGMT(for: date)
        guard offset != 0, zone.nextDaylightSavingTimeTransition(after: date.addingTimeInterval(-366 * 86_400)) == nil
        else { return nil }
        let hours = offset / 3600, minutes = abs(offset / 60) % 60
        let text = String(format: "UTC%@%02d:%02d", offset < 0 ? "−" : "+", abs(hours), minutes)
        var message = "`\(id)` is a fixed offset (\(text) all year) with no daylight saving time"
        if let region = regionWithDaylightSaving(standardOffset: offset, near: date) {
            message += "; for a place that changes its clocks use its region's zone, e.g. `\(region)`"
        }
        return message
    }

    /// Well-known regions that keep daylight saving time, by their standard offset.
    static let regions = [
        "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Anchorage",
        "America/Halifax", "America/Sao_Paulo", "Europe/London", "Europe/Berlin", "Europe/Athens",
        "Australia/Sydney", "Australia/Adelaide", "Pacific/Auckland",
    ]

    static func regionWithDaylightSaving(standardOffset offset: Int, near date: Date) -> String? {
        regions.first { id in
            guard let zone = TimeZone(identifier: id) else { return false }
            let year = (0 ..< 12).map { date.addingTimeInterval(Double($0) * 30 * 86_400) }
            let standard = year.filter { !zone.isDaylightSavingTime(for: $0) }.map { zone.secondsFromGMT(for: $0) }
            return standard.first == offset && year.contains { zone.isDaylightSavingTime(for: $0) }
        }
    }
}
