import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
@testable import WidgetSimScenario

/// Registries of made-up policies whose parameters cover every `ParameterKind`, so that
/// parameter reading is tested whatever the real registries hold at the moment.
enum TestCatalogs {
    static let perDay = ParameterSpec("per_day", .count(1 ... 1000), default: .number(48), "reloads per day")
    static let retry = ParameterSpec("retry", .durationOrDrop, default: .text("drop"), "retry delay or drop")
    static let interval = ParameterSpec("interval", .duration(minimumMs: Milliseconds.minute),
                                        default: .duration(30 * Milliseconds.minute), "spacing")
    static let weight = ParameterSpec("weight", .number(0 ... 1), default: .number(0.5), "a weight")
    static let mode = ParameterSpec("mode", .choice(["a", "b"]), default: .text("a"), "a choice")
    static let byHour = ParameterSpec("by_hour", .flag, default: .flag(false), "a flag")

    static let budgetPolicies: [(String, [ParameterSpec])] = [
        ("unlimited", []), ("fixed_interval", [interval]), ("daily_quota", [perDay, retry]),
    ]
    static let rankingPolicies: [(String, [ParameterSpec])] = [
        ("static", []), ("hybrid", [weight, mode, byHour]),
    ]

    static var budgets: PolicyCatalog {
        PolicyCatalog(role: "budget", names: budgetPolicies.map(\.0),
                      parameters: { n in budgetPolicies.first { $0.0 == n }?.1 })
    }
    static var rankings: PolicyCatalog {
        PolicyCatalog(role: "ranking", names: rankingPolicies.map(\.0),
                      parameters: { n in rankingPolicies.first { $0.0 == n }?.1 })
    }
}

/// Parses with the test catalogs.
func parse(_ yaml: String, file: String = "test.yaml") throws(ScenarioErrors) -> Scenario {
    try ScenarioLoader.parse(yaml: yaml, file: file, budgets: TestCatalogs.budgets, rankings: TestCatalogs.rankings)
}

/// The issues of a file that must not parse, as their descriptions.
func problems(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    do {
        let s = try parse(yaml)
        Issue.record("expected errors, but the scenario `\(s.name)` parsed", sourceLocation: sourceLocation)
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

/// The path of a fixture file.
func fixture(_ name: String) -> String {
    guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
        Issue.record("the Fixtures folder is not in the test bundle")
        return name
    }
    return folder.appendingPathComponent(name).path
}

/// A small valid scenario, one line per entry; tests replace or add lines to break it.
/// Line numbers (1-based) are the array index + 1.
let minimalLines = [
    "name: minimal",                     // 1
    "seed: 7",                           // 2
    "days: 3",                           // 3
    "people: 10",                        // 4
    "start: 2026-03-02",                 // 5
    "time_zone: Europe/Berlin",          // 6
    "widgets:",                          // 7
    "  - id: weather",                   // 8
    "    interest: {base: 0.3}",         // 9
    "    timeline: {horizon: 6h}",       // 10
    "budgets: [unlimited]",              // 11
    "rankings: [static]",                // 12
]

var minimal: String { minimalLines.joined(separator: "\n") + "\n" }

/// The minimal scenario with line `number` (1-based) replaced by `lines`.
func minimal(replacing number: Int, with lines: String...) -> String {
    var all = minimalLines
    all.replaceSubrange(number - 1 ... number - 1, with: lines)
    return all.joined(separator: "\n") + "\n"
}

/// The minimal scenario with `lines` added at its end (from line 13 on).
func minimal(adding lines: String...) -> String {
    (minimalLines + lines).joined(separator: "\n") + "\n"
}

/// The minimal scenario without line `number`.
func minimal(removing number: Int) -> String {
    var all = minimalLines
    all.remove(at: number - 1)
    return all.joined(separator: "\n") + "\n"
}

/// The minimal scenario with `lines` inserted after line `number` (so the first of them
/// is line `number + 1`).
func minimal(inserting lines: String..., after number: Int) -> String {
    var all = minimalLines
    all.insert(contentsOf: lines, at: number)
    return all.joined(separator: "\n") + "\n"
}
