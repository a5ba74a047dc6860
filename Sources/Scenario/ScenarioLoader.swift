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

    /// The largest scenario file: far beyond any real one (the default scenario is a
    /// few kilobytes), small enough that reading it takes well under a second.
    public static let largestFile = 1 << 20
    /// The most lines and commas a file may hold: a bound on the YAML nodes it makes.
    public static let mostSeparators = 10_000

    /// A file too large to read quickly, refused before the YAML parser sees it.
    static func sizeIssue(_ yaml: String, file: String) -> ScenarioIssue? {
        let bytes = yaml.utf8.count
        if bytes > largestFile {
            return ScenarioIssue(
                file: file, line: 1, column: 1, path: ScenarioIssue.wholeFile,
                message: "the file is \(bytes) bytes long; a scenario file is at most \(largestFile) bytes")
        }
        var separators = 0, line = 1, column = 1
        for byte in yaml.utf8 {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            if byte == 0x0A || byte == 0x2C {
                separators += 1
                if separators > mostSeparators {
                    return ScenarioIssue(
                        file: file, line: line, column: column, path: ScenarioIssue.wholeFile,
                        message: "the file has more than \(mostSeparators) lines and commas; a scenario is far shorter")
                }
            }
        }
        return nil
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
        // The kind of file first: opening a named pipe or a device could block or
        // never end.
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw fail(errno == ENOENT || errno == ENOTDIR ? "no such file" : "cannot read the file: \(String(cString: strerror(errno)))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw fail("is a folder, not a scenario file")
        case S_IFIFO: throw fail("is a named pipe (FIFO), not a scenario file; save the scenario to a file first")
        case S_IFCHR, S_IFBLK: throw fail("is a device, not a scenario file")
        case S_IFSOCK: throw fail("is a socket, not a scenario file")
        default: throw fail("is not a regular file")
        }
        if info.st_size > largestFile {
            throw fail("the file is \(info.st_size) bytes long; a scenario file is at most \(largestFile) bytes")
        }
        guard access(path, R_OK) == 0, let data = FileManager.default.contents(atPath: path) else {
            throw fail("cannot read the file (permission denied)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw fail("the file is not UTF-8 text")
        }
        return text
    }
}
