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
        if let issue = sizeIssue(yaml, file: file) { throw ScenarioErrors(issues: [issue]) }
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
            var all = sorted.isEmpty ? [Self.internalIssue(file)] : sorted
            if reader.unreported > 0, let last = all.last {
                all.append(ScenarioIssue(file: file, line: last.line, column: last.column, path: ScenarioIssue.wholeFile,
                                         message: "\(reader.unreported) more problems not shown; fix these first"))
            }
            throw ScenarioErrors(issues: all)
        }
        return scenario
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
