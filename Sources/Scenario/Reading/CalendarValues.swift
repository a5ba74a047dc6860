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

    /// An IANA time-zone identifier that the tz database knows; an unknown one is
    /// reported with the nearest known identifier (by whole id or by its city).
    func timeZone(_ node: Node, _ path: String) -> String? {
        guard let t = Self.scalarText(node), !Self.isNull(node) else {
            report("expected a time zone such as Europe/Berlin, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        if TimeZone(identifier: t) != nil { return t }
        var message = "unknown time zone `\(t)`"
        if let guess = Self.nearestTimeZone(to: t) { message += "; did you mean `\(guess)`?" }
        report(message, at: node, path: path)
        return nil
    }

    /// The known identifier closest to `text`, comparing it with each whole identifier and
    /// with its last component (`Berlin`, `New_York`; spaces count as `_`).
    static func nearestTimeZone(to text: String) -> String? {
        let wanted = text.replacingOccurrences(of: " ", with: "_")
        var best: (id: String, distance: Int)? = nil
        for id in TimeZone.knownTimeZoneIdentifiers.sorted() {
            let city = String(id.split(separator: "/").last ?? Substring(id))
            let d = min(Suggestions.distance(wanted, id), Suggestions.distance(wanted, city))
            if d < (best?.distance ?? Int.max) { best = (id, d) }
        }
        return best?.id
    }
}
