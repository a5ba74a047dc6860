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
        let rows = counts.days * widgets
        guard rows > 0 else { return }
        // Each row written into one buffer sized for the longest possible rows (every
        // number at most 20 digits and a sign, or a fallback text of at most 32 bytes),
        // then appended at once: no capacity or uniqueness check per byte.
        let fixed = prefixes[pair].count + seed.count + ids.map(\.count).max()! + 3 * 21 + 8
        let bound = rows * (fixed + columns.count * 33)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
            var w = Writer(base: buffer.baseAddress!)
            counts.widget.withUnsafeBufferPointer { values in
                for day in 0 ..< counts.days {
                    for x in 0 ..< widgets {
                        w.bytes(prefixes[pair])
                        w.decimal(Int64(rep))
                        w.byte(0x2C)
                        w.bytes(seed)
                        w.byte(0x2C)
                        w.decimal(Int64(person))
                        w.byte(0x2C)
                        w.decimal(Int64(day))
                        w.byte(0x2C)
                        w.byte(day < warmupDays ? 0x31 : 0x30)
                        w.byte(0x2C)
                        w.bytes(ids[x])
                        let base = (day * widgets + x) * WidgetCounter.count
                        for (c, divisor) in columns {
                            w.byte(0x2C)
                            w.value(values[base + c], divisor: divisor)
                        }
                        w.byte(0x0A)
                    }
                }
            }
            precondition(w.count <= bound, "widget_days rows overran their buffer")
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: w.count))
        }
    }

    /// Writes bytes from `base` on; the caller sized the memory.
    struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        @inline(__always)
        mutating func byte(_ b: UInt8) {
            base[count] = b
            count += 1
        }

        @inline(__always)
        mutating func bytes(_ b: [UInt8]) {
            b.withUnsafeBufferPointer { (base + count).update(from: $0.baseAddress!, count: $0.count) }
            count += b.count
        }

        /// `v` in decimal.
        @inline(__always)
        mutating func decimal(_ v: Int64) {
            if v < 0 {
                byte(0x2D)
                decimal(UInt64(v.magnitude))
            } else {
                decimal(UInt64(v))
            }
        }

        @inline(__always)
        mutating func decimal(_ v: UInt64) {
            if v < 10 {
                byte(0x30 + UInt8(v))
                return
            }
            var digits = 1
            var limit: UInt64 = 10
            while digits < 20 && v >= limit {
                digits += 1
                limit = limit &* 10
            }
            var x = v
            var k = count + digits
            while k > count {
                k -= 1
                base[k] = 0x30 + UInt8(x % 10)
                x /= 10
            }
            count += digits
        }

        /// A column's value: the count itself, or count ÷ divisor as `CSV.number` writes it.
        @inline(__always)
        mutating func value(_ v: Int64, divisor: Int64) {
            if divisor == 1 {
                decimal(v)
            } else if divisor == 1000 && v >= 0 && v < 1_000_000_000_000_000 {
                // Below 10^15 (15 significant digits at most), the exact decimal v/1000 is
                // the shortest text that reads back to Double(v)/1000, and Swift writes it
                // in positional form: the integer part, a point, the fraction without
                // trailing zeros (at least one digit).
                decimal(UInt64(v / 1000))
                byte(0x2E)
                var f = v % 1000
                if f == 0 {
                    byte(0x30)
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
                    byte(0x30)
                    scale /= 10
                }
                decimal(UInt64(f))
            } else {
                let text = Array(ReportWriter.widgetValue(v, divisor: divisor).utf8)
                precondition(text.count <= 32, "a widget_days value longer than its room")
                bytes(text)
            }
        }
    }
}
