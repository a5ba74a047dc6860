import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
@testable import WidgetSimReports

/// The byte writer of widget_days.csv against the text forms of the columns.
@Suite struct WidgetDayRowsTests {
    func bytes(_ v: Int64, divisor: Int64) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            var w = WidgetDayRows.Writer(base: buffer.baseAddress!)
            w.value(v, divisor: divisor)
            return String(decoding: UnsafeBufferPointer(start: buffer.baseAddress!, count: w.count), as: UTF8.self)
        }
    }

    @Test func countsAreWrittenAsTheirDecimalText() {
        var g = SystemRandomNumberGenerator()
        var values: [Int64] = Array(-1000 ... 1000) + [.max, .min, .min + 1]
        for k in 0 ..< 19 {
            let p = Int64(pow(10, Double(k)).rounded())
            values += [p - 1, p, p + 1, -p]
        }
        values += (0 ..< 20_000).map { _ in Int64.random(in: .min ... .max, using: &g) }
        for v in values {
            #expect(bytes(v, divisor: 1) == String(v), "\(v)")
        }
    }

    @Test func thousandthsAreWrittenAsTheShortestRoundTripDecimal() {
        var g = SystemRandomNumberGenerator()
        var values: [Int64] = Array(0 ... 30_000) + [-1, -999, -1000, -123_456, .max, .min]
        for k in 0 ..< 19 {
            let p = Int64(pow(10, Double(k)).rounded())
            values += [p - 1, p, p + 1, p + 5, p + 50, p + 500]
        }
        values += (0 ..< 20_000).map { _ in Int64.random(in: 0 ... 1_000_000_000_000_000, using: &g) }
        values += (0 ..< 20_000).map { _ in Int64.random(in: 0 ... 100_000_000, using: &g) }
        for v in values {
            #expect(bytes(v, divisor: 1000) == ReportWriter.widgetValue(v, divisor: 1000), "\(v)")
        }
    }
}

/// Whole rows, written in place for several people, pairs and days, against the rows
/// joined from the fields' text forms.
@Suite struct WidgetDayRowsAppendTests {
    @Test func rowsAreTheFieldsTextsJoined() throws {
        var s = try loadScenario("tiny.yaml")
        s.name = "a, \"quoted\" name"
        s.days = 3
        s.warmupDays = 1
        let pairs = [PolicyPair(budget: "b1", ranking: "r1"), PolicyPair(budget: "budget two", ranking: "r,2")]
        let study = ["7", "x y"]
        let rows = WidgetDayRows(s, pairs: pairs, study: study, runID: "0123abcd-4567ef89")
        var g = SystemRandomNumberGenerator()
        let out = ByteBuffer(capacity: 16)
        var expected = ""
        for (person, rep, pair) in [(0, 0, 0), (12, 3, 1), (123_456, 11, 0), (5, 0, 1)] {
            var counts = PersonCounts(days: s.days, widgets: s.widgets.count)
            for i in counts.widget.indices {
                counts.widget[i] = switch Int.random(in: 0 ..< 6, using: &g) {
                case 0: 0
                case 1: Int64.random(in: 0 ..< 10, using: &g)
                case 2: Int64.random(in: 0 ..< 100, using: &g)
                case 3: Int64.random(in: 0 ..< 100_000, using: &g)
                case 4: Int64.random(in: -2000 ..< 0, using: &g)
                default: Int64.random(in: .min ... .max, using: &g)
                }
            }
            rows.append(replication: rep, person: person, pair: pair, counts, to: out)
            for day in 0 ..< s.days {
                for (x, spec) in s.widgets.enumerated() {
                    var fields = ["0123abcd-4567ef89", s.name, pairs[pair].budget, pairs[pair].ranking, String(rep), String(s.seed)] + study
                    fields += [String(person), String(day), day < s.warmupDays ? "1" : "0", spec.id]
                    for column in Schema.widgetColumns {
                        fields.append(ReportWriter.widgetValue(counts[day, widget: x, column.counter], divisor: column.divisor))
                    }
                    expected += CSV.row(fields)
                }
            }
        }
        let written = String(decoding: out.bytes, as: UTF8.self)
        #expect(written == expected)
        #expect(written.utf8.count == out.count)
    }
}
