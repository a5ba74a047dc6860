import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// `scenarios/README.md` shows a complete example and real error messages; both are read
/// from the manual itself and checked against the reader and the real policy registries,
/// so the manual cannot drift from the code.
@Suite struct ManualTests {
    static var manual: String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scenarios/README.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// The fenced code blocks of `text` after `heading` (or all), as (language, body).
    static func blocks(after heading: String? = nil) -> [(language: String, body: String)] {
        var text = manual
        if let heading, let range = text.range(of: heading) { text = String(text[range.upperBound...]) }
        var blocks: [(String, String)] = []
        var current: (String, [String])? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let c = current {
                    blocks.append((c.0, c.1.joined(separator: "\n") + "\n"))
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)), [])
                }
            } else if current != nil {
                current!.1.append(String(line))
            }
        }
        return blocks
    }

    @Test func completeExampleReads() throws {
        let example = try #require(Self.blocks().first { $0.language == "yaml" })
        let s = try ScenarioLoader.parse(yaml: example.body, file: "README.md")
        #expect(s.name == "first-try")
        #expect(s.widgets.map(\.id) == ["weather", "calendar"])
        #expect(s.widgets[0].timeline.reload == .after(3_600_000))
        #expect(s.stack.members == [0, 1])
        #expect(s.baseline == PolicyPair(budget: "quota12", ranking: "static"))
    }

    @Test func commonErrorsAreTheRealMessages() throws {
        let blocks = Self.blocks(after: "### Common errors")
        let yaml = try #require(blocks.first { $0.language == "yaml" })
        let shown = try #require(blocks.first { $0.language == "text" })
        let policies = BudgetPolicies.all.map(\.name).joined(separator: ", ")
        let expected = shown.body.replacingOccurrences(of: "POLICIES", with: policies)
        do {
            _ = try ScenarioLoader.parse(yaml: yaml.body, file: "broken.yaml")
            Issue.record("the manual's broken example parsed")
        } catch {
            #expect(error.description + "\n" == expected)
        }
    }
}

extension ManualTests {
    @Test func studyExampleReadsOnTheCompleteExample() throws {
        let example = try #require(Self.blocks().first { $0.language == "yaml" })
        let study = try #require(Self.blocks(after: "## Parameter studies").first { $0.language == "yaml" })
        let s = try ScenarioLoader.study(yaml: example.body + study.body, file: "README.md")
        #expect(s.parameters == ["budgets.quota12.per_day", "person.views_per_day.mean"])
        #expect(s.points.count == 18)
        #expect(s.points[4].values == ["30", "80"])
        #expect(s.points[4].scenario.budgets[1].parameters["per_day"] == .number(30))
        #expect(s.points[4].scenario.person.viewsPerDay.mean == 80)
    }
}

extension ManualTests {
    /// The exploring study of the manual reads on its complete example: 64 sampled worlds
    /// over three ranges, each value inside its range.
    @Test func exploreExampleReadsOnTheCompleteExample() throws {
        let example = try #require(Self.blocks().first { $0.language == "yaml" })
        let explore = try #require(Self.blocks(after: "## Exploring studies").first { $0.language == "yaml" })
        let s = try ScenarioLoader.study(yaml: example.body + explore.body, file: "README.md")
        #expect(s.parameters == ["person.views_per_day.mean", "widgets.weather.content.random_per_day", "person.swipe_probability"])
        #expect(s.points.count == 64 && s.design?.method == "lhs")
        for p in s.points {
            #expect((20 ... 160).contains(Int(p.values[0]) ?? -1) && (0 ... 12).contains(Int(p.values[1]) ?? -1))
            #expect((0 ... 0.5).contains(Double(p.values[2]) ?? -1))
        }
    }
}
