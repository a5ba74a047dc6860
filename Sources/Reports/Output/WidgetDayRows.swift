import WidgetSimExecution
import WidgetSimModel

/// Writes `widget_days.csv` rows as bytes, the same bytes as the columns' text forms
/// (`ReportWriter.widgetValue`): integers in decimal, thousandths as the shortest
/// decimal that reads back to the same double (`12.5`, `3.0`, `0.001`). A run writes one
/// row per person, pair, day and widget instance, so the rows are formatted digit by
/// digit into one buffer, without a string per field.
public struct WidgetDayRows: PartRowFormat {
    let prefixes: [[UInt8]]
    let seed: [UInt8]
    /// The widget ids as CSV fields, one after the other, and where each starts and ends.
    let ids: [UInt8]
    let idBounds: [Int]
    let warmupDays: Int
    /// Each column, in column order: its counter's index, its divisor, and the counts
    /// below which its field comes from `smallFields` (100 for a count, 0 otherwise).
    let columns: [(counter: Int, divisor: Int64, small: UInt64)]
    /// For each count from 0 to 99, its field after the comma that opens it (",7",
    /// ",42"): the bytes in the low bytes of a little-endian word, their number in
    /// the high byte.
    let smallFields: [UInt32] = (0 ..< 100).map { v in
        let text = Array(("," + String(v)).utf8)
        var word = UInt32(text.count) << 24
        for (i, b) in text.enumerated() { word |= UInt32(b) << (8 * i) }
        return word
    }

    /// `study` holds the point's `ReportWriter.studyFields` (none for a plain run).
    /// `runID` opens every row (`PartIdentity.runID`).
    public init(_ s: Scenario, pairs: [PolicyPair], study: [String] = [], runID: String = PartIdentity().runID) {
        prefixes = pairs.map {
            Array((CSV.field(runID) + "," + CSV.field(s.name) + "," + CSV.field($0.budget) + "," + CSV.field($0.ranking) + ",").utf8)
        }
        seed = Array((String(s.seed) + study.map { "," + CSV.field($0) }.joined()).utf8)
        let fields = s.widgets.map { Array(CSV.field($0.id).utf8) }
        ids = fields.flatMap { $0 }
        idBounds = fields.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        warmupDays = s.warmupDays
        columns = Schema.widgetColumns.map { ($0.counter.rawValue, $0.divisor, $0.divisor == 1 ? 100 : 0) }
    }

    /// Appends the rows of one person under one pair.
    public func append(replication rep: Int, person: Int, pair: Int, _ counts: PersonCounts, to out: ByteBuffer) {
        let widgets = counts.widgets
        let days = counts.days
        guard days > 0, widgets > 0 else { return }
        precondition(counts.widget.count >= days * widgets * WidgetCounter.count, "counts of another shape")
        let prefix = prefixes[pair]
        // Every row written in place, in memory sized for the longest possible rows
        // (every number at most 20 digits and a sign, or a fallback text of at most 32
        // bytes, and four bytes of room after the last): no capacity or uniqueness
        // check per byte.
        let head = prefix.count + seed.count + 2 * 21 + 3
        var longestID = 0
        for x in 0 ..< widgets { longestID = max(longestID, idBounds[x + 1] - idBounds[x]) }
        let bound = days * widgets * (head + 21 + 4 + longestID + columns.count * 33 + 1) + 4
        let start = out.reserve(bound)
        var w = Writer(base: start)
        // The fields that open every row of the person (prefix, replication, seed,
        // person), written once and copied into the rows after the first.
        w.bytes(prefix)
        w.decimal(Int64(rep))
        w.byte(0x2C)
        w.bytes(seed)
        w.byte(0x2C)
        w.decimal(Int64(person))
        w.byte(0x2C)
        let layout = Layout(days: days, widgets: widgets, warmupDays: warmupDays, opening: w.count)
        let end = ids.withUnsafeBufferPointer { ids in
            idBounds.withUnsafeBufferPointer { idBounds in
                columns.withUnsafeBufferPointer { columns in
                    smallFields.withUnsafeBufferPointer { small in
                        counts.widget.withUnsafeBufferPointer { values in
                            Self.rows(w, layout, ids: ids, idBounds: idBounds, columns: columns, small: small, values: values)
                        }
                    }
                }
            }
        }
        precondition(end.count <= bound - 4, "widget_days rows overran their buffer")
        out.count += end.count
    }

    struct Layout {
        var days: Int
        var widgets: Int
        var warmupDays: Int
        /// Bytes of the fields that open every row, written at the writer's start.
        var opening: Int
    }

    /// Writes the rows after their opening fields (already written once at the start).
    static func rows(
        _ writer: Writer, _ layout: Layout, ids: UnsafeBufferPointer<UInt8>, idBounds: UnsafeBufferPointer<Int>,
        columns: UnsafeBufferPointer<(counter: Int, divisor: Int64, small: UInt64)>, small: UnsafeBufferPointer<UInt32>,
        values: UnsafeBufferPointer<Int64>
    ) -> Writer {
        var w = writer
        let stride = WidgetCounter.count
        var first = true
        for day in 0 ..< layout.days {
            let warmup: UInt8 = day < layout.warmupDays ? 0x31 : 0x30
            for x in 0 ..< layout.widgets {
                if first {
                    first = false
                } else {
                    w.copy(w.base, count: layout.opening)
                }
                w.decimal(UInt64(day))
                w.byte(0x2C)
                w.byte(warmup)
                w.byte(0x2C)
                w.copy(ids.baseAddress! + idBounds[x], count: idBounds[x + 1] - idBounds[x])
                let row = values.baseAddress! + (day * layout.widgets + x) * stride
                for (c, divisor, limit) in columns {
                    let v = row[c]
                    if UInt64(bitPattern: v) < limit {
                        w.word(small[Int(v)])
                    } else if v == 0 && divisor != 1 {
                        w.zeroThousandths()
                    } else {
                        w.byte(0x2C)
                        w.value(v, divisor: divisor)
                    }
                }
                w.byte(0x0A)
            }
        }
        return w
    }

    /// Writes bytes from `base` on; the caller sized the memory.
    struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        /// Where the next byte goes.
        var next: UnsafeMutablePointer<UInt8>

        init(base: UnsafeMutablePointer<UInt8>) {
            self.base = base
            next = base
        }

        /// Bytes written.
        var count: Int { next - base }

        @inline(__always)
        mutating func byte(_ b: UInt8) {
            next.pointee = b
            next += 1
        }

        /// The bytes of an entry of `smallFields`: four bytes stored, the length advanced.
        @inline(__always)
        mutating func word(_ field: UInt32) {
            UnsafeMutableRawPointer(next).storeBytes(of: field.littleEndian, as: UInt32.self)
            next += Int(field >> 24)
        }

        /// ",0.0": a thousandths column at zero.
        @inline(__always)
        mutating func zeroThousandths() {
            UnsafeMutableRawPointer(next).storeBytes(of: UInt32(0x302E_302C).littleEndian, as: UInt32.self)
            next += 4
        }

        @inline(__always)
        mutating func bytes(_ b: [UInt8]) {
            b.withUnsafeBufferPointer { copy($0.baseAddress!, count: $0.count) }
        }

        @inline(__always)
        mutating func copy(_ source: UnsafePointer<UInt8>, count n: Int) {
            next.update(from: source, count: n)
            next += n
        }

        @inline(__always)
        mutating func copy(_ source: UnsafeMutablePointer<UInt8>, count n: Int) {
            copy(UnsafePointer(source), count: n)
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
                byte(0x30 | UInt8(truncatingIfNeeded: v))
            } else if v < 100 {
                let tens = v / 10
                next[0] = 0x30 | UInt8(truncatingIfNeeded: tens)
                next[1] = 0x30 | UInt8(truncatingIfNeeded: v &- tens &* 10)
                next += 2
            } else {
                longDecimal(v)
            }
        }

        /// `v` in decimal, for v ≥ 100.
        mutating func longDecimal(_ v: UInt64) {
            var digits = 3
            var limit: UInt64 = 1000
            while digits < 20 && v >= limit {
                digits += 1
                limit = limit &* 10
            }
            var x = v
            var k = digits
            while k > 0 {
                k -= 1
                let q = x / 10
                next[k] = 0x30 | UInt8(truncatingIfNeeded: x &- q &* 10)
                x = q
            }
            next += digits
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
                if v == 0 {
                    next[0] = 0x30
                    next[1] = 0x2E
                    next[2] = 0x30
                    next += 3
                    return
                }
                let whole = v / 1000
                decimal(UInt64(whole))
                byte(0x2E)
                let f = v &- whole &* 1000
                let hundreds = f / 100
                let rest = f &- hundreds &* 100
                byte(0x30 | UInt8(truncatingIfNeeded: hundreds))
                if rest != 0 {
                    let tens = rest / 10
                    let ones = rest &- tens &* 10
                    byte(0x30 | UInt8(truncatingIfNeeded: tens))
                    if ones != 0 { byte(0x30 | UInt8(truncatingIfNeeded: ones)) }
                }
            } else {
                let text = Array(ReportWriter.widgetValue(v, divisor: divisor).utf8)
                precondition(text.count <= 32, "a widget_days value longer than its room")
                bytes(text)
            }
        }
    }
}
