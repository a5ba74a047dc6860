import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// `relevance.levels`: a relevance model whose entries draw their scores.
@Suite struct RelevanceLevelsTests {
    @Test func levelsAreReadInPlaceOfAScore() throws {
        let s = try parse(minimal(replacing: 10, with:
            "    timeline: {horizon: 6h}",
            "    content: {scheduled_per_day: 4}",
            "    relevance: {model: scheduled, baseline: 1, duration: 30m,",
            "                levels: [{score: 10, share: 0.1}, {score: 5, share: 0.3}, {score: 2, share: 0.6}]}"))
        let w = s.widgets[0]
        #expect(w.relevanceLevels == [
            RelevanceLevel(score: 10, share: 0.1), RelevanceLevel(score: 5, share: 0.3), RelevanceLevel(score: 2, share: 0.6),
        ])
        #expect(w.relevance == .scheduled(score: 10, baseline: 1, leadMs: 0, durationMs: 1_800_000))
        let plain = try parse(minimal)
        #expect(plain.widgets[0].relevanceLevels.isEmpty)
    }

    @Test func badLevelsAreReportedWhereTheyAre() {
        #expect(problems(minimal(inserting:
            "    relevance: {model: breaking, duration: 1h, levels: [{score: 4, share: 0.5}, {score: 2, share: 0.4}]}",
            after: 10)) == [
            "test.yaml:11:56: widgets[0].relevance.levels: the shares must sum to 1, got 0.9",
        ])
        #expect(problems(minimal(inserting:
            "    relevance: {model: breaking, duration: 1h, score: 3, levels: [{score: 4, share: 1}]}",
            after: 10)) == [
            "test.yaml:11:66: widgets[0].relevance.levels: give `score` or `levels`, not both",
        ])
        #expect(problems(minimal(inserting:
            "    relevance: {model: breaking, duration: 1h, levels: [{score: 4, share: 0}, {score: 2}]}",
            after: 10)) == [
            "test.yaml:11:75: widgets[0].relevance.levels[0].share: must be above 0, got 0",
            "test.yaml:11:79: widgets[0].relevance.levels[1]: missing required key `share`",
        ])
        let constant = problems(minimal(inserting: "    relevance: {model: constant, levels: [{score: 4, share: 1}]}", after: 10))
        #expect(constant.contains { $0.contains("relevance.levels: unknown key `levels`") }, "\(constant)")
    }
}
