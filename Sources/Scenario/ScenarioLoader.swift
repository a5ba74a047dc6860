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

    /// Parses against the given policy catalogs (tests pass their own). A file with a
    /// `study:` gives its first point (every study value checked).
    static func parse(yaml: String, file: String, budgets: PolicyCatalog, rankings: PolicyCatalog)
        throws(ScenarioErrors) -> Scenario
    {
        try study(yaml: yaml, file: file, StudyRequest(point: 0), budgets: budgets, rankings: rankings).points[0].scenario
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
