import WidgetSimModel

/// The counts of one policy pair in one replication, summed over people: per day
/// (`PersonCounter`s, and `WidgetCounter`s per widget), plus a histogram of reloads
/// per widget-day. All whole numbers, so adding people in any order — threads,
/// shards — gives the same totals.
public struct PairTotals: Sendable, Equatable {
    public let days: Int
    public let widgets: Int
    public let warmupDays: Int
    public var people: Int = 0
    public var person: [Int64]
    public var widget: [Int64]
    /// Refusals and missed views by reason code, per day (`PersonCounts`' layout).
    public var refusals: [Int64]
    public var missedViews: [Int64]
    /// `reloadHistogram[k]`: measured widget-days with exactly k reloads.
    public var reloadHistogram: [Int64] = []

    public init(days: Int, widgets: Int, warmupDays: Int) {
        self.days = days
        self.widgets = widgets
        self.warmupDays = warmupDays
        person = Array(repeating: 0, count: days * PersonCounter.count)
        widget = Array(repeating: 0, count: days * widgets * WidgetCounter.count)
        refusals = Array(repeating: 0, count: days * RefusalReason.count)
        missedViews = Array(repeating: 0, count: days * MissedViewReason.count)
    }

    public mutating func add(_ c: PersonCounts) {
        people += 1
        for i in person.indices { person[i] += c.person[i] }
        for i in widget.indices { widget[i] += c.widget[i] }
        for i in refusals.indices { refusals[i] += c.refusals[i] }
        for i in missedViews.indices { missedViews[i] += c.missedViews[i] }
        for day in warmupDays ..< days {
            for w in 0 ..< widgets {
                let k = Int(c.reloads(day: day, widget: w))
                if k >= reloadHistogram.count {
                    reloadHistogram += Array(repeating: 0, count: k + 1 - reloadHistogram.count)
                }
                reloadHistogram[k] += 1
            }
        }
    }

    /// `add(_:)`, refusing counts that would overflow a 64-bit total (which only a run
    /// far beyond any sensible size reaches): the error names the person, day and widget.
    public mutating func add(
        _ c: PersonCounts, person: Int, replication: Int, pair: PolicyPair, widgets specs: [WidgetSpec]
    ) throws(CountOverflow) {
        for i in self.person.indices where self.person[i].addingReportingOverflow(c.person[i]).overflow {
            throw CountOverflow(person: person, replication: replication, day: i / PersonCounter.count,
                                widget: nil, pair: pair)
        }
        for i in widget.indices where widget[i].addingReportingOverflow(c.widget[i]).overflow {
            let w = (i / WidgetCounter.count) % widgets
            throw CountOverflow(person: person, replication: replication, day: i / (WidgetCounter.count * widgets),
                                widget: specs.indices.contains(w) ? specs[w].id : "\(w)", pair: pair)
        }
        add(c)
    }

    public mutating func add(_ other: PairTotals) {
        people += other.people
        for i in person.indices { person[i] += other.person[i] }
        for i in widget.indices { widget[i] += other.widget[i] }
        for i in refusals.indices { refusals[i] += other.refusals[i] }
        for i in missedViews.indices { missedViews[i] += other.missedViews[i] }
        if other.reloadHistogram.count > reloadHistogram.count {
            reloadHistogram += Array(repeating: 0, count: other.reloadHistogram.count - reloadHistogram.count)
        }
        for (k, n) in other.reloadHistogram.enumerated() { reloadHistogram[k] += n }
    }

    public func value(day: Int, _ c: PersonCounter) -> Int64 {
        person[day * PersonCounter.count + c.rawValue]
    }

    public func value(day: Int, widget w: Int, _ c: WidgetCounter) -> Int64 {
        widget[(day * widgets + w) * WidgetCounter.count + c.rawValue]
    }

    public func value(day: Int, _ r: RefusalReason) -> Int64 {
        refusals[day * RefusalReason.count + Int(r.rawValue)]
    }

    public func value(day: Int, _ r: MissedViewReason) -> Int64 {
        missedViews[day * MissedViewReason.count + Int(r.rawValue)]
    }

    /// Refusals with reason `r` over `days` (the measured days by default).
    public func sum(_ r: RefusalReason, days range: Range<Int>? = nil) -> Int64 {
        (range ?? measuredDays).reduce(0) { $0 + value(day: $1, r) }
    }

    /// Views missed (or, for `staleContent`, hit but stale) for reason `r` over `days`.
    public func sum(_ r: MissedViewReason, days range: Range<Int>? = nil) -> Int64 {
        (range ?? measuredDays).reduce(0) { $0 + value(day: $1, r) }
    }

    /// Measured days: those after the warm-up.
    public var measuredDays: Range<Int> { warmupDays ..< days }

    /// `c` summed over `days`.
    public func sum(_ c: PersonCounter, days range: Range<Int>? = nil) -> Int64 {
        (range ?? measuredDays).reduce(0) { $0 + value(day: $1, c) }
    }

    /// `c` summed over `days` and every widget.
    public func sum(_ c: WidgetCounter, days range: Range<Int>? = nil) -> Int64 {
        var total: Int64 = 0
        for d in range ?? measuredDays {
            for w in 0 ..< widgets { total += value(day: d, widget: w, c) }
        }
        return total
    }

    /// The smallest k with at least `q` of measured widget-days at or below k reloads.
    public func reloadQuantile(_ q: Double) -> Int {
        let total = reloadHistogram.reduce(0, +)
        guard total > 0 else { return 0 }
        let need = Int64((q * Double(total)).rounded(.up))
        var seen: Int64 = 0
        for (k, n) in reloadHistogram.enumerated() {
            seen += n
            if seen >= max(need, 1) { return k }
        }
        return reloadHistogram.count - 1
    }
}

/// A total that no longer fits in 64 bits: where it happened.
public struct CountOverflow: Error, CustomStringConvertible {
    public var person: Int
    public var replication: Int
    public var day: Int
    public var widget: String?
    public var pair: PolicyPair
    public var description: String {
        let w = widget.map { ", widget `\($0)`" } ?? ""
        return """
            the counts of person \(person) (replication \(replication)), day \(day)\(w), under \(pair) exceed \
            what a 64-bit total holds; run fewer people or days, or split the run into shards
            """
    }
}
