import Foundation
import Testing

/// `widgetsim compare` on a study's folder compares one point (`--point`), or days of
/// daily.csv (`--days`), and refuses to pool different points.
@Suite struct CompareSelectionTests {
    /// A CSV file without quoted fields, as rows of named fields.
    func table(_ text: String) -> [[String: String]] {
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
    }

    func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(xs.count) }

    @Test func aStudyIsComparedOnePointAtATimeAndDaysAreSelected() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("study").path
        let run = try widgetsim(["run", repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path,
                                 "--sweep", "budgets.daily_quota.per_day=2,40", "--replications", "3",
                                 "--out", out, "--quiet", "--no-report", "--no-widget-days"])
        #expect(run.status == 0, "\(run.stderr)")
        let a = "daily_quota/static", b = "unlimited/static"

        // Pooled: refused, naming the points.
        let pooled = try widgetsim(["compare", out, a, b])
        #expect(pooled.status == 2)
        #expect(pooled.stderr.contains("holds 2 points of a study (0, 1)") && pooled.stderr.contains("--point K"), "\(pooled.stderr)")

        // One point: the paired difference of that point's replications, not of all rows.
        let summary = table(try String(contentsOfFile: out + "/summary.csv", encoding: .utf8))
        func charged(_ pair: String, point: String?) -> [Double] {
            let p = pair.split(separator: "/").map(String.init)
            return summary.filter { $0["budget"] == p[0] && $0["ranking"] == p[1] && (point == nil || $0["point"] == point) }
                .map { Double($0["reloads_charged"]!)! }
        }
        for point in ["0", "1"] {
            let r = try widgetsim(["compare", out, a, b, "--point", point, "--csv"])
            #expect(r.status == 0, "\(r.stderr)")
            let row = try #require(table(r.stdout).first { $0["metric"] == "reloads_charged" })
            let expected = mean(zip(charged(a, point: point), charged(b, point: point)).map { $0 - $1 })
            #expect(abs(Double(row["diff_mean"]!)! - expected) < 1e-9 * max(1, abs(expected)), "point \(point): \(row)")
            #expect(row["point"] == point && row["groups"] == "3" && row["interval_over"] == "replications")
        }
        // The limit of 2 charged reloads a day and that of 40 differ: pooling would have hidden it.
        let low = mean(zip(charged(a, point: "0"), charged(b, point: "0")).map { $0 - $1 })
        let high = mean(zip(charged(a, point: "1"), charged(b, point: "1")).map { $0 - $1 })
        #expect(low != high)

        // Days: day 1 of daily.csv, paired over replications.
        let daily = table(try String(contentsOfFile: out + "/daily.csv", encoding: .utf8))
        func dayValues(_ pair: String, _ metric: String) -> [Double] {
            let p = pair.split(separator: "/").map(String.init)
            return daily.filter { $0["budget"] == p[0] && $0["ranking"] == p[1] && $0["point"] == "0" && $0["day"] == "1" }
                .map { Double($0[metric]!)! }
        }
        let r = try widgetsim(["compare", out, a, b, "--point", "0", "--days", "1..1", "--csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(table(r.stdout).first { $0["metric"] == "reloads_charged" })
        let expected = mean(zip(dayValues(a, "reloads_charged"), dayValues(b, "reloads_charged")).map { $0 - $1 })
        #expect(abs(Double(row["diff_mean"]!)! - expected) < 1e-9 * max(1, abs(expected)), "\(row)")
        #expect(row["first_day"] == "1" && row["last_day"] == "1")
        // The table says what it compares.
        let shown = try widgetsim(["compare", out, a, b, "--point", "1", "--days", "0..1"])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("point 1 (budgets.daily_quota.per_day=40)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("days 0..1 of daily.csv"), "\(shown.stdout)")

        // Refusals: exit 2, saying what there is.
        let noPoint = try widgetsim(["compare", out, a, b, "--point", "5"])
        #expect(noPoint.status == 2 && noPoint.stderr.contains("has no point 5; it has points 0, 1"), "\(noPoint.stderr)")
        let noDays = try widgetsim(["compare", out, a, b, "--point", "0", "--days", "7..9"])
        #expect(noDays.status == 2 && noDays.stderr.contains("has days 0..1"), "\(noDays.stderr)")
        let backwards = try widgetsim(["compare", out, a, b, "--point", "0", "--days", "1..0"])
        #expect(backwards.status == 2 && backwards.stderr.contains("--days takes A..B"), "\(backwards.stderr)")
    }
}
