import Foundation
import WidgetSimModel
import Yams

/// Reads scenario files (the format `scenarios/README.md` describes) into validated
/// `Scenario` values. Every problem in a file is reported at once, each with its file,
/// line, column and field path; nothing a file says can crash the reader.
public enum ScenarioLoader {
    /// Reads and parses the file at `path`. A missing or unreadable file is one issue at
    /// line 0, column 0. Policy names and parameters are checked against `policies`,
    /// which the returned scenario keeps (`Scenario.policies`) to make its policies.
    public static func load(path: String, policies: PolicyRegistry = .builtIn) throws(ScenarioErrors) -> Scenario {
        try parse(yaml: try read(path: path), file: path, policies: policies)
    }

    /// Parses `yaml`; `file` names it in the issues. Policies are looked up in `policies`.
    public static func parse(yaml: String, file: String, policies: PolicyRegistry = .builtIn)
        throws(ScenarioErrors) -> Scenario
    {
        var s = try parse(yaml: yaml, file: file, budgets: .budgets(policies), rankings: .rankings(policies))
        s.policies = policies
        return s
    }

    /// Reads the file at `path` against the given policy catalogs (tests pass their own).
    static func load(path: String, budgets: PolicyCatalog, rankings: PolicyCatalog) throws(ScenarioErrors) -> Scenario {
        try parse(yaml: try read(path: path), file: path, budgets: budgets, rankings: rankings)
    }

    /// Parses against the given policy catalogs (tests pass their own).
    static func parse(yaml: String, file: String, budgets: PolicyCatalog, rankings: PolicyCatalog)
        throws(ScenarioErrors) -> Scenario
    {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ScenarioErrors(issues: [SyntaxIssue.issue(for: error, file: file, yaml: yaml)])
        }
        let reader = ScenarioReader(file: file)
        guard let root, !ScenarioReader.isNull(root) else {
            reader.report("the file is empty: a scenario needs at least name, seed, days, people, start, "
                          + "time_zone, widgets, budgets and rankings", line: 1, column: 1, path: "")
            throw ScenarioErrors(issues: reader.issues)
        }
        let scenario = reader.scenario(root, budgets: budgets, rankings: rankings)
        guard let scenario, reader.issues.isEmpty else {
            // In file order; issues at one place keep the order they were found in.
            let sorted = reader.issues.enumerated()
                .sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
                .map(\.element)
            throw ScenarioErrors(issues: sorted.isEmpty ? [Self.internalIssue(file)] : sorted)
        }
        return scenario
    }

    /// Never expected: the reader refused a file without saying why.
    static func internalIssue(_ file: String) -> ScenarioIssue {
        ScenarioIssue(file: file, line: 1, column: 1, path: ScenarioIssue.wholeFile,
                      message: "the scenario could not be read, but no reason was found (a bug in the reader)")
    }

    /// The text of the file at `path`, or the one issue saying why it cannot be had.
    static func read(path: String) throws(ScenarioErrors) -> String {
        func fail(_ message: String) -> ScenarioErrors {
            ScenarioErrors(issues: [ScenarioIssue(file: path, line: 0, column: 0, path: ScenarioIssue.wholeFile,
                                                  message: message)])
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw fail("no such file")
        }
        if isFolder.boolValue { throw fail("is a folder, not a scenario file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail("cannot read the file (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw fail("the file is not UTF-8 text")
        }
        return text
    }
}
