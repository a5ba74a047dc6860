/// One problem in a scenario file, located: the file, the 1-based line and column of the
/// offending node (0 and 0 when the file itself cannot be read), the field path in the
/// scenario (`widgets[2].timeline.horizon`; `(file)` for the whole file) and what was
/// expected.
public struct ScenarioIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// The scenario file's path, as given.
    public var file: String
    /// The 1-based line of the offending node (0 when the file cannot be read).
    public var line: Int
    /// The 1-based column of the offending node (0 when the file cannot be read).
    public var column: Int
    /// The field path in the scenario (`budgets[3].viewed_within`), or ``wholeFile``.
    public var path: String
    /// What is wrong and what was expected.
    public var message: String

    /// An issue at `file:line:column`, field `path`.
    public init(file: String, line: Int, column: Int, path: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    /// The path that stands for the whole file.
    public static let wholeFile = "(file)"

    /// `FILE:LINE:COLUMN: PATH: MESSAGE`, the form editors and compilers use.
    public var description: String { "\(file):\(line):\(column): \(path): \(message)" }
}

/// Every problem found in one scenario file, in the order they appear in it.
public struct ScenarioErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, in file order; never empty when thrown.
    public var issues: [ScenarioIssue]

    /// These issues as one error.
    public init(issues: [ScenarioIssue]) { self.issues = issues }

    /// The issues, one per line.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
