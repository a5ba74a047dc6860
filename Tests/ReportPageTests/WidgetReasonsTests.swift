import Foundation
import Testing
@testable import WidgetSimReportPage

/// The "why" section's table per widget, from reasons.csv's widget columns.
@Suite("report.html reasons per widget")
struct WidgetReasonsTests {
    @Test("each widget's missed views, their top reason and the widget on top instead, as reasons.csv counts them")
    func perWidget() throws {
        let folder = try tinyRunFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let written = try ReportPage.build(in: folder)
        let html = try String(contentsOf: written.page, encoding: .utf8)
        let table = try #require(html.element(starting: "<table class=\"headline\" id=\"widget-reasons\"", ending: "</table>"))
        let inputs = try Inputs.read(folder)
        let baseline = try #require(inputs.comparison.baseline)
        // Recomputed from the file: measured days, the baseline pair, mean over 3 replications.
        let rows = try csvRows(folder.appendingPathComponent("reasons.csv")).filter {
            $0["budget"] == baseline.budget && $0["ranking"] == baseline.ranking && $0["warmup"] == "0" && $0["kind"] == "missed_view"
        }
        var missed: [String: Double] = [:], byReason: [String: [String: Double]] = [:], onTop: [String: [String: Double]] = [:]
        for row in rows where row["widget"] != "" {
            let n = Double(row["count"]!)! / 3
            missed[row["widget"]!, default: 0] += n
            byReason[row["widget"]!, default: [:]][row["reason"]!, default: 0] += n
            onTop[row["widget"]!, default: [:]][row["top_widget"]!, default: 0] += n
        }
        #expect(!missed.isEmpty)
        for (widget, n) in missed where n > 0 {
            let tr = try #require(table.element(starting: "<tr data-widget=\"\(widget)\"", ending: "</tr>"))
            let shown = try #require(tr.element(starting: "data-missed=\"", ending: "\" ")).dropFirst(13).dropLast(2)
            #expect(abs(Double(shown)! - n) < 1e-9, "\(tr)")
            let top = byReason[widget]!.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
            #expect(tr.contains("data-top-reason=\"\(top)\""), "\(tr)")
            let instead = onTop[widget]!.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
            #expect(tr.contains("<code>\(instead)</code>"), "\(tr)")
        }
        // Codes never counted take no place in the charts.
        let inputsReasons = try #require(inputs.reasons)
        for (kind, codes) in inputsReasons.reasonsByKind {
            for code in codes { #expect(inputsReasons.counts[kind]!.values.contains { ($0[code] ?? 0) > 0 }, "\(kind) \(code)") }
        }
    }
}
