import Foundation
import Testing
@testable import WidgetSimReportPage

/// The answer sentence of an exploring study, from robust.csv and discovery.csv.
@Suite struct ExploreAnswerTests {
    static let header = "scenario,seed,budget,ranking,baseline_budget,baseline_ranking,metric,unit,better,worlds,wins,losses,"
        + "win_share,win_share_ci95_low,win_share_ci95_high,loss_share,mean_regret,worst_regret,best_share,interval_over\n"

    func folder(robust: String, discovery: String?) throws -> URL {
        let f = temporaryFolder()
        try (Self.header + robust).write(to: f.appendingPathComponent("robust.csv"), atomically: true, encoding: .utf8)
        if let discovery {
            try ("scenario,seed,budget,ranking,baseline_budget,baseline_ranking,metric,box,worlds,losses,coverage,density,box_ranges\n" + discovery)
                .write(to: f.appendingPathComponent("discovery.csv"), atomically: true, encoding: .utf8)
        }
        return f
    }

    /// The pair best in most worlds on stale_view_share, its win share and interval, and
    /// PRIM's first box of its losses; other metrics and other boxes play no part.
    @Test func theBestPairItsWinsAndWhereItLoses() throws {
        let f = try folder(robust: """
            s,1,quota,static,quota,static,stale_view_share,share,lower,40,,,,,,,0.01,0.03,0.1,blocks
            s,1,predictive,static,quota,static,stale_view_share,share,lower,40,30,4,0.75,0.588,0.873,0.1,0.001,0.02,0.875,blocks
            s,1,ios_like,static,quota,static,stale_view_share,share,lower,40,10,20,0.25,0.127,0.412,0.5,0.02,0.05,0.025,blocks
            s,1,ios_like,static,quota,static,accuracy,share,higher,40,40,0,1.0,0.91,1.0,0.0,0.0,0.0,1.0,blocks

            """, discovery: """
            s,1,predictive,static,quota,static,accuracy,1,10,5,1.0,0.5,everywhere
            s,1,predictive,static,quota,static,stale_view_share,2,5,1,0.25,0.2,person.swipe_probability ≥ 0.4
            s,1,predictive,static,quota,static,stale_view_share,1,4,3,0.75,0.75,person.views_per_day.mean ≤ 35 and widgets.news.content.push_fraction ≥ 0.5

            """)
        defer { try? FileManager.default.removeItem(at: f) }
        #expect(ExploreAnswer.sentence(folder: f) == "`predictive/static` is best in 87.5% of the 40 sampled worlds on stale_view_share; "
            + "it beats the baseline `quota/static` beyond noise in 75% (95%: 58.8%–87.3%); it loses in 4 worlds, mostly where "
            + "person.views_per_day.mean ≤ 35 and widgets.news.content.push_fraction ≥ 0.5 (coverage 75%, density 75%).")
    }

    @Test func aPairThatNeverLosesAndTheBaseline() throws {
        let never = try folder(robust: """
            s,1,quota,static,quota,static,stale_view_share,share,lower,6,,,,,,,0.01,0.03,0.0,blocks
            s,1,unlimited,static,quota,static,stale_view_share,share,lower,6,6,0,1.0,0.5407,1.0,0.0,0.0,0.0,1.0,blocks

            """, discovery: nil)
        defer { try? FileManager.default.removeItem(at: never) }
        #expect(ExploreAnswer.sentence(folder: never) == "`unlimited/static` is best in 100% of the 6 sampled worlds on stale_view_share; "
            + "it beats the baseline `quota/static` beyond noise in 100% (95%: 54.1%–100%) and never loses to it beyond noise.")
        let baseline = try folder(robust: """
            s,1,quota,static,quota,static,stale_view_share,share,lower,6,,,,,,,0.0,0.0,1.0,blocks

            """, discovery: nil)
        defer { try? FileManager.default.removeItem(at: baseline) }
        #expect(ExploreAnswer.sentence(folder: baseline) == "`quota/static` is best in 100% of the 6 sampled worlds on stale_view_share (it is the baseline).")
        #expect(ExploreAnswer.sentence(folder: temporaryFolder()) == nil)
    }
}

extension ReportCommandTests {
    /// An exploring study's page opens its study section with the answer the run printed.
    @Test("an exploring study: the study section opens with the answer")
    func exploringStudyOpensWithItsAnswer() throws {
        var text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        text += "\nstudy:\n  explore:\n    samples: 4\n    ranges: {person.views_per_day.mean: 20..80}\n"
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("explore.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let r = try runProgram(try widgetsimBinary(), ["run", file.path, "--threads", "1", "--no-widget-days", "--out", out.path])
        #expect(r.status == 0, "\(r.err)")
        let answer = try #require(ExploreAnswer.sentence(folder: out))
        #expect(answer.hasPrefix("`") && answer.contains("of the 4 sampled worlds on stale_view_share"))
        #expect(r.out.contains(answer + "\n"))
        #expect(r.out.hasPrefix("explore: lhs design: 4 worlds over 1 range (seed 7); "))
        let page = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let section = try #require(page.range(of: "id=\"studies\""))
        // Its code (pair names between backticks) shows as code.
        let shown = markup(answer)
        #expect(shown.contains("<code>") && !shown.contains("`"))
        #expect(page[section.upperBound...].contains(shown), "the answer is in the study section")
    }
}
