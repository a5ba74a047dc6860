import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
@testable import WidgetSimScenario

/// `study: explore:`: sampled points, their values as written, the design's layout, and
/// the mistakes reported where they are written.
@Suite struct ExploreTests {
    let helper = StudyTests()

    func explore(_ lines: String...) -> String {
        helper.file(["study:", "  explore:"] + lines.map { "    " + $0 })
    }

    @Test func aLatinHypercubeSamplesEachRangeOnce() throws {
        let s = try helper.study(explore(
            "method: lhs",
            "samples: 20",
            "ranges:",
            "  budgets.quota.per_day: 1..20",
            "  widgets.weather.content.random_per_day: 0..0.5",
            "  widgets.weather.timeline.reload.after: 5m..1h"))
        #expect(s.parameters == ["budgets.quota.per_day", "widgets.weather.content.random_per_day", "widgets.weather.timeline.reload.after"])
        #expect(s.points.count == 20 && s.totalPoints == 20)
        // Whole-number bounds: 20 values in 20 strata, each value once.
        #expect(s.points.map { Int($0.values[0])! }.sorted() == Array(1 ... 20))
        #expect(s.points.map { helper.quota($0.scenario) } == s.points.map { .number(Double($0.values[0])!) })
        // Decimal bounds: 4 decimals, one value in each twentieth of the range.
        let shares = s.points.map { Double($0.values[1])! }
        #expect(s.points.allSatisfy { $0.values[1].split(separator: ".").last?.count == 4 })
        #expect(shares.map { Int($0 / 0.025) }.sorted() == Array(0 ..< 20))
        // Durations: whole seconds within 5m … 1h, as the scenario reads them.
        let design = try #require(s.design)
        for (k, p) in s.points.enumerated() {
            guard case .after(let ms) = p.scenario.widgets[0].timeline.reload else { Issue.record("\(p)"); continue }
            #expect(ms >= 5 * Milliseconds.minute && ms <= Milliseconds.hour && ms % 1000 == 0)
            #expect(design.numbers[k] == [Double(p.values[0])!, shares[k], Double(ms / 1000)])
        }
        #expect(design.method == "lhs" && design.samples == 20 && design.seed == 7 && !design.isSaltelli)
        #expect(design.ranges.map(\.low) == ["1", "0", "5m"])
    }

    @Test func theDesignRepeatsFromTheSeed() throws {
        let lines = ["method: lhs", "samples: 8", "ranges: {budgets.quota.per_day: 1..100}"]
        let a = try helper.study(helper.file(["study:", "  explore:"] + lines.map { "    " + $0 }))
        let b = try helper.study(helper.file(["study:", "  explore:"] + lines.map { "    " + $0 }))
        let c = try helper.study(helper.file(["study:", "  explore:"] + (lines + ["seed: 8"]).map { "    " + $0 }))
        #expect(a.points.map(\.values) == b.points.map(\.values))
        #expect(a.points.map(\.values) != c.points.map(\.values))
    }

    /// `sobol` runs Saltelli's design: N (d + 2) points, AB_i differing from A in input i only.
    @Test func sobolRunsSaltellisDesign() throws {
        let s = try helper.study(explore(
            "method: sobol",
            "samples: 4",
            "ranges: {budgets.quota.per_day: 1..100, person.views_per_day.mean: 10.0..100}"))
        #expect(s.points.count == 16)
        #expect(s.design?.isSaltelli == true)
        for j in 0 ..< 4 {
            let a = s.points[4 * j].values, ab0 = s.points[4 * j + 1].values, ab1 = s.points[4 * j + 2].values, b = s.points[4 * j + 3].values
            #expect(ab0 == [b[0], a[1]] && ab1 == [a[0], b[1]], "base sample \(j)")
        }
        // The first base sample is Sobol's point 4 (after the first 4, from 0): (7/8, 7/8, 1/8, 5/8),
        // so A = (88, 88.75) and B = (13, 66.25).
        #expect(s.points[0].values == ["88", "88.7500"] && s.points[3].values == ["13", "66.2500"])
    }

    /// Halton's first points in one dimension: 1/2, 1/4, 3/4. A value the file must hold
    /// whole refuses a decimal range point by point.
    @Test func haltonPoints() throws {
        let s = try helper.study(explore("method: halton", "samples: 3", "ranges: {widgets.weather.content.random_per_day: 0.0..1.0}"))
        #expect(s.points.map(\.values) == [["0.5000"], ["0.2500"], ["0.7500"]])
        #expect(helper.errors(explore("method: halton", "samples: 3", "ranges: {budgets.quota.per_day: 1.0..2.0}")).first
            == "s.yaml:18:3: study: point 0 (budgets.quota.per_day=1.5000): budgets[1].per_day: 1.5 is not a whole number")
    }

    @Test func mistakesAreReportedWhereTheyAreWritten() {
        #expect(helper.errors(explore("samples: 4", "ranges: {budgets.quota.per_day: 0..20}"))
            == ["s.yaml:20:37: study.explore.ranges.budgets.quota.per_day: `budgets.quota.per_day` = `0`: 0 is outside 1…1000"])
        #expect(helper.errors(explore("samples: 4", "ranges: {budgets.quota.per_dya: 1..20}"))
            == ["s.yaml:20:14: study.explore.ranges.budgets.quota.per_dya: unknown path `budgets.quota.per_dya`; did you mean `budgets.quota.per_day`?"])
        #expect(helper.errors(explore("samples: 4", "ranges: {budgets.quota.per_day: 20..1}"))
            == ["s.yaml:20:37: study.explore.ranges.budgets.quota.per_day: HIGH (1) must be above LOW (20)"])
        #expect(helper.errors(explore("samples: 4", "ranges: {budgets.quota.per_day: 20}"))
            == ["s.yaml:20:37: study.explore.ranges.budgets.quota.per_day: expected a range LOW..HIGH (numbers or durations: `20..160`, `0..0.5`, `5m..1h`), got `20`"])
        #expect(helper.errors(explore("method: grid", "samples: 4", "ranges: {budgets.quota.per_day: 1..2}"))
            == ["s.yaml:19:13: study.explore.method: unknown sample design `grid`; valid: lhs, sobol, halton"])
        #expect(helper.errors(explore("samples: 0", "ranges: {budgets.quota.per_day: 1..2}"))
            == ["s.yaml:19:14: study.explore.samples: must be in 1…1000, got 0"])
        #expect(helper.errors(explore("samples: 4", "ranges: {widgets.weather.timeline.reload.after: 1..2}")).first?
            .contains("expected a duration with a unit") == true)
        // A --sweep cannot be added to an exploring study.
        #expect(helper.errors(explore("samples: 4", "ranges: {budgets.quota.per_day: 1..2}"), StudyRequest(sweeps: ["days=2,3"]))
            == ["(command line):0:0: --sweep days=2,3: an exploring study samples every value it varies: give the range in `study.explore.ranges` instead"])
    }

    /// Points beyond the maximum need `--point K`, as for listed studies.
    @Test func aLargeSobolDesignIsRefusedWhole() {
        let e = helper.errors(explore("method: sobol", "samples: 400", "ranges: {budgets.quota.per_day: 1..100}"))
        #expect(e.count == 1 && e[0].contains("a study of 1200 points, more than the maximum of 1000"), "\(e)")
    }
}

extension ExploreTests {
    func explore(_ lines: [String]) -> String { helper.file(["study:", "  explore:"] + lines.map { "    " + $0 }) }
}

extension StudyTests {
    func file(_ lines: [String]) -> String {
        file(lines.joined(separator: "\n"))
    }
}
