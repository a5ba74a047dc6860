import ArgumentParser
import WidgetSimScenario

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check scenario files without running them.",
        discussion: """
        Reads each file and prints, for a good file, one line on stdout:
          FILE: ok (NAME: P people × D days, W widgets, N policy pairs)
        and for a bad one every problem on stderr, with its file, line, column and
        field. Warnings (a fixed-offset time zone such as EST, which has no daylight
        saving time) go to stderr too but do not fail the file. Exits with status 2
        if any file has a problem, 0 otherwise. Nothing is written.

        Example:
          widgetsim validate scenarios/*.yaml
          scenarios/default.yaml: ok (default: 1000 people × 7 days, 6 widgets, ...)
        """)

    @Argument(help: "Scenario files (YAML).")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let study = try ScenarioLoader.loadStudy(path: file, policies: WidgetSimCLI.policies)
                let s = study.first
                for w in ScenarioWarnings.check(path: file, scenario: s) { printError(w.description) }
                let points = study.isStudy ? ", a study of \(study.totalPoints) points" : ""
                print("\(file): ok (\(s.name): \(s.people) people × \(s.days) days, \(s.widgets.count) widgets, \(s.policyPairs.count) policy pairs\(points))")
            } catch {
                printError(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(2) }
    }
}
