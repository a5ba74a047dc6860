import Foundation
import WidgetSimModel
import Yams

extension ScenarioReader {
    /// A civil date written `YYYY-MM-DD`, checked to exist (proleptic Gregorian).
    func date(_ node: Node, _ path: String) -> CalendarDate? {
        let t = Self.scalarText(node) ?? ""
        let parts = t.split(separator: "-", omittingEmptySubsequences: false)
        guard !Self.isNull(node), parts.count == 3,
              zip(parts, [4, 2, 2]).allSatisfy({ $0.count == $1 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else {
            report("expected a date as YYYY-MM-DD, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        guard year >= 1, (1 ... 12).contains(month) else {
            report("`\(t)` is not a real date", at: node, path: path)
            return nil
        }
        let length = Self.daysIn(month: month, year: year)
        guard (1 ... length).contains(day) else {
            report("`\(t)` is not a real date (\(Self.monthNames[month - 1]) \(year) has \(length) days)", at: node, path: path)
            return nil
        }
        return CalendarDate(year: year, month: month, day: day)
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// An IANA time-zone identifier that the tz database knows, written exactly (no
    /// surrounding spaces); an unknown one is reported with the nearest known identifier
    /// (by whole id or by its city).
    func timeZone(_ node: Node, _ path: String) -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            report("expected a time zone such as Europe/Berlin, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        let raw = scalar.string
        if Self.isTimeZone(raw) { return raw }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed != raw, Self.isTimeZone(trimmed) {
            report("time zone `\(Excerpt.of(raw))` has spaces around it; did you mean `\(trimmed)`?", at: node, path: path)
            return nil
        }
        var message = "unknown time zone `\(Excerpt.of(raw))`"
        if let guess = Self.nearestTimeZone(to: trimmed) { message += "; did you mean `\(guess)`?" }
        report(message, at: node, path: path)
        return nil
    }

    /// Whether `id` names a zone exactly as the tz database spells it: a listed
    /// identifier, or one the database knows without listing it (`UTC`, `Etc/UTC`) that
    /// is not another spelling of a listed one (`europe/berlin`).
    static func isTimeZone(_ id: String) -> Bool {
        if knownTimeZones.contains(id) { return true }
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && !$0.isWhitespace }),
              !lowercasedTimeZones.contains(id.lowercased()) else { return false }
        return TimeZone(identifier: id) != nil
    }
    static let lowercasedTimeZones = Set(knownTimeZones.map { $0.lowercased() })

    /// The identifiers of the tz database, sorted.
    static let knownTimeZones: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers)
    static let sortedTimeZones = knownTimeZones.sorted()

    /// The known identifier closest to `text`, comparing it with each whole identifier and
    /// with its last component (`Berlin`, `New_York`; spaces count as `_`). Only
    /// identifiers of a similar length are compared, and nothing is suggested for text
    /// longer than any identifier could be, so the work is bounded whatever the input.
    static func nearestTimeZone(to text: String) -> String? {
        let wanted = text.replacingOccurrences(of: " ", with: "_")
        guard wanted.count <= 64 else { return nil }
        var best: (id: String, distance: Int)? = nil
        for id in sortedTimeZones {
            let city = String(id.split(separator: "/").last ?? Substring(id))
            for candidate in [id, city] where abs(candidate.count - wanted.count) <= Suggestions.maximumDistance {
                let d = Suggestions.distance(wanted, candidate)
                if d < (best?.distance ?? Int.max) { best = (id, d) }
            }
        }
        guard let best, best.distance <= Suggestions.maximumDistance else { return nil }
        return best.id
    }
}
