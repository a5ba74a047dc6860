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
    /// Refusals by day, instance (the one that asked) and code; missed views by day,
    /// wanted instance, instance on top and code (`widgets` for none): added once per
    /// block of people (`addReasonsByWidget`).
    public var refusalsByWidget: [Int64]
    public var missedByWidget: [Int64]
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
        refusalsByWidget = Array(repeating: 0, count: days * widgets * RefusalReason.count)
        missedByWidget = Array(repeating: 0, count: days * (widgets + 1) * (widgets + 1) * MissedViewReason.count)
    }

    /// Adds an engine's tally of refusals and missed views by instance (`PersonEngine.takeReasonsByWidget`).
    public mutating func addReasonsByWidget(_ tally: (refusals: [Int64], missedViews: [Int64])) {
        guard Self.add(tally.refusals, to: &refusalsByWidget), Self.add(tally.missedViews, to: &missedByWidget) else {
            preconditionFailure("a count total overflowed")
        }
    }

    public mutating func add(_ c: PersonCounts) {
        guard Self.add(c.person, to: &person), Self.add(c.widget, to: &widget),
              Self.add(c.refusals, to: &refusals), Self.add(c.missedViews, to: &missedViews) else {
            preconditionFailure("a count total overflowed")
        }
        people += 1
        addReloads(c)
    }

    /// `add(_:)`, refusing counts that would overflow a 64-bit total (which only a run
    /// far beyond any sensible size reaches): the error names the person, day and widget,
    /// and the totals are left as they were.
    public mutating func add(
        _ c: PersonCounts, person: Int, replication: Int, pair: PolicyPair, widgets specs: [WidgetSpec]
    ) throws(CountOverflow) {
        guard Self.add(c.person, to: &self.person) else {
            let i = Self.firstOverflow(c.person, self.person)
            throw CountOverflow(person: person, replication: replication, day: i / PersonCounter.count,
                                widget: nil, pair: pair)
        }
        guard Self.add(c.widget, to: &widget) else {
            Self.subtract(c.person, from: &self.person)
            let i = Self.firstOverflow(c.widget, widget)
            let w = (i / WidgetCounter.count) % widgets
            throw CountOverflow(person: person, replication: replication, day: i / (WidgetCounter.count * widgets),
                                widget: specs.indices.contains(w) ? specs[w].id : "\(w)", pair: pair)
        }
        guard Self.add(c.refusals, to: &refusals), Self.add(c.missedViews, to: &missedViews) else {
            preconditionFailure("a count total overflowed")
        }
        people += 1
        addReloads(c)
    }

    /// Adds `values` to `totals`, element by element, in one pass without a branch per
    /// element; false, with `totals` as they were, when some sum overflows.
    static func add(_ values: [Int64], to totals: inout [Int64]) -> Bool {
        precondition(values.count >= totals.count, "counts of another shape")
        return values.withUnsafeBufferPointer { b in
            totals.withUnsafeMutableBufferPointer { a in
                // A sum overflows exactly when its sign differs from both terms' signs.
                var overflow: Int64 = 0
                for i in 0 ..< a.count {
                    let x = a[i]
                    let y = b[i]
                    let s = x &+ y
                    overflow |= (x ^ s) & (y ^ s)
                    a[i] = s
                }
                if overflow >= 0 { return true }
                for i in 0 ..< a.count { a[i] = a[i] &- b[i] }
                return false
            }
        }
    }

    /// Takes `values` back off `totals` (after an `add` that succeeded).
    static func subtract(_ values: [Int64], from totals: inout [Int64]) {
        for i in totals.indices { totals[i] = totals[i] &- values[i] }
    }

    /// The first index at which `totals[i] + values[i]` overflows.
    static func firstOverflow(_ values: [Int64], _ totals: [Int64]) -> Int {
        totals.indices.first { totals[$0].addingReportingOverflow(values[$0]).overflow }!
    }

    /// The widget counters whose sum is an instance's reloads: the first of each row,
    /// one per reason, in the reasons' order (`PairTotalsTests` check it).
    static let reloadCounters = 9

    /// Counts the person's measured widget-days in the reload histogram.
    mutating func addReloads(_ c: PersonCounts) {
        guard warmupDays < days, widgets > 0 else { return }
        let rows = (days - warmupDays) * widgets
        precondition(c.widget.count >= days * widgets * WidgetCounter.count, "counts of another shape")
        withUnsafeTemporaryAllocation(of: Int.self, capacity: rows) { reloads in
            var most = 0
            c.widget.withUnsafeBufferPointer { values in
                let first = values.baseAddress! + warmupDays * widgets * WidgetCounter.count
                for r in 0 ..< rows {
                    let row = first + r * WidgetCounter.count
                    var k: Int64 = 0
                    for c in 0 ..< Self.reloadCounters { k += row[c] }
                    precondition(k >= 0, "a negative number of reloads")
                    reloads[r] = Int(k)
                    most = max(most, Int(k))
                }
            }
            if most >= reloadHistogram.count {
                reloadHistogram += Array(repeating: 0, count: most + 1 - reloadHistogram.count)
            }
            reloadHistogram.withUnsafeMutableBufferPointer { histogram in
                for r in 0 ..< rows { histogram[reloads[r]] += 1 }
            }
        }
    }

    public mutating func add(_ other: PairTotals) {
        people += other.people
        for i in person.indices { person[i] += other.person[i] }
        for i in widget.indices { widget[i] += other.widget[i] }
        for i in refusals.indices { refusals[i] += other.refusals[i] }
        for i in missedViews.indices { missedViews[i] += other.missedViews[i] }
        for i in refusalsByWidget.indices { refusalsByWidget[i] += other.refusalsByWidget[i] }
        for i in missedByWidget.indices { missedByWidget[i] += other.missedByWidget[i] }
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

    /// The refusal codes each day's counters hold: the codes made when they were.
    public var refusalCodes: Int { days > 0 ? refusals.count / days : 0 }

    /// Refusals of `r` on `day`; 0 for a code made after these totals were.
    public func value(day: Int, _ r: RefusalReason) -> Int64 {
        Int(r.rawValue) < refusalCodes ? refusals[day * refusalCodes + Int(r.rawValue)] : 0
    }

    public func value(day: Int, _ r: MissedViewReason) -> Int64 {
        missedViews[day * MissedViewReason.count + Int(r.rawValue)]
    }

    /// Refusals of `r` on `day` of instance `w` (the one that asked).
    public func value(day: Int, widget w: Int, _ r: RefusalReason) -> Int64 {
        Int(r.rawValue) < refusalCodes ? refusalsByWidget[(day * widgets + w) * refusalCodes + Int(r.rawValue)] : 0
    }

    /// Missed views of `r` on `day` whose wanted instance was `wanted` and whose top was
    /// `top` (`widgets` for none: a wanted widget placed nowhere, or no top).
    public func value(day: Int, wanted: Int, top: Int, _ r: MissedViewReason) -> Int64 {
        missedByWidget[((day * (widgets + 1) + wanted) * (widgets + 1) + top) * MissedViewReason.count + Int(r.rawValue)]
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
