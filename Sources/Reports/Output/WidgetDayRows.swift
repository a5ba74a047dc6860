import WidgetSimModel

/// Writes `widget_days.csv` rows as bytes, the same bytes as the columns' text forms
/// (`ReportWriter.widgetValue`): integers in decimal, thousandths as the shortest
/// decimal that reads back to the same double (`12.5`, `3.0`, `0.001`). A run writes one
/// row per person, pair, day and widget instance, so the rows are formatted digit by
/// digit into one buffer, without a string per field.
public struct WidgetDayRows: Sendable {
    let prefixes: [[UInt8]]
    let seed: [UInt8]
    let ids: [[UInt8]]
    let warmupDays: Int
    /// Counter index and divisor of each column, in column order.
    let columns: [(counter: Int, divisor: Int64)]

    /// `study` holds the point's `ReportWriter.studyFields` (none for a plain run).
    public init(_ s: Scenario, pairs: [PolicyPair], study: [String] = []) {
        prefixes = pairs.map { Array((CSV.field(s.name) + "," + CSV.field($0.budget) + "," + CSV.field($0.ranking) + ",").utf8) }
        seed = Array((String(s.seed) + study.map { "," + CSV.field($0) }.joined()).utf8)
        ids = s.widgets.map { Array(CSV.field($0.id).utf8) }
        warmupDays = s.warmupDays
        columns = Schema.widgetColumns.map { ($0.counter.rawValue, $0.divisor) }
    }

    /// Appends the rows of one person under one pair.
    public func append(replication rep: Int, person: Int, pair: Int, _ counts: PersonCounts, to out: inout [UInt8]) {
        let widgets = counts.widgets
        counts.widget.withUnsafeBufferPointer { values in
            for day in 0 ..< counts.days {
                for w in 0 ..< widgets {
                    out.append(contentsOf: prefixes[pair])
                    Self.decimal(Int64(rep), to: &out)
                    out.append(0x2C)
                    out.append(contentsOf: seed)
                    out.append(0x2C)
                    Self.decimal(Int64(person), to: &out)
                    out.append(0x2C)
                    Self.decimal(Int64(day), to: &out)
                    out.append(0x2C)
                    out.append(day < warmupDays ? 0x31 : 0x30)
                    out.append(0x2C)
                    out.append(contentsOf: ids[w])
                    let base = (day * widgets + w) * WidgetCounter.count
                    for (c, divisor) in columns {
                        out.append(0x2C)
                        Self.value(values[base + c], divisor: divisor, to: &out)
                    }
                    out.append(0x0A)
                }
            }
        }
    }

    /// `v` in decimal.
    @inline(__always)
    static func decimal(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 {
            out.append(0x2D)
            decimal(UInt64(v.magnitude), to: &out)
        } else {
            decimal(UInt64(v), to: &out)
        }
    }

    @inline(__always)
    static func decimal(_ v: UInt64, to out: inout [UInt8]) {
        if v < 10 {
            out.append(0x30 + UInt8(v))
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes, enough for 20 digits
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &digits) { d in
            while x > 0 {
                d[31 - n] = 0x30 + UInt8(x % 10)
                x /= 10
                n += 1
            }
            out.append(contentsOf: d[(32 - n)...])
        }
    }

    /// A column's value: the count itself, or count ÷ divisor as `CSV.number` writes it.
    @inline(__always)
    static func value(_ v: Int64, divisor: Int64, to out: inout [UInt8]) {
        if divisor == 1 {
            decimal(v, to: &out)
        } else if divisor == 1000 && v >= 0 && v < 1_000_000_000_000_000 {
            // Below 10^15 (15 significant digits at most), the exact decimal v/1000 is
            // the shortest text that reads back to Double(v)/1000, and Swift writes it
            // in positional form: the integer part, a point, the fraction without
            // trailing zeros (at least one digit).
            decimal(UInt64(v / 1000), to: &out)
            out.append(0x2E)
            var f = v % 1000
            if f == 0 {
                out.append(0x30)
                return
            }
            var width = 3
            while f % 10 == 0 {
                f /= 10
                width -= 1
            }
            // The fraction's leading zeros: 0.005, 0.05.
            var scale: Int64 = 1
            for _ in 1 ..< width { scale *= 10 }
            while scale > 1 && f < scale {
                out.append(0x30)
                scale /= 10
            }
            decimal(UInt64(f), to: &out)
        } else {
            out.append(contentsOf: ReportWriter.widgetValue(v, divisor: divisor).utf8)
        }
    }
}
