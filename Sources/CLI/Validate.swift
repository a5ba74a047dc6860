import ArgumentParser
import WidgetSimScenario

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check scenario files without running them.",
        discussion: """
        Reads each file and reports every problem with its file, line, column and field, \
        then exits with status 2 if any file has a problem, 0 otherwise. Nothing is written.
        """)

    @Argument(help: "Scenario files (YAML).")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let study = try ScenarioLoader.loadStudy(path: file)
                let s = study.first
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
