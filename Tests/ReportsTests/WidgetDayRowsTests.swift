import Foundation
import Testing
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
