import Yams

/// YAML that does not parse, as a located issue for the whole file.
enum SyntaxIssue {
    static func issue(for error: any Error, file: String, yaml: String) -> ScenarioIssue {
        func at(_ line: Int, _ column: Int, _ message: String) -> ScenarioIssue {
            ScenarioIssue(file: file, line: line, column: column, path: ScenarioIssue.wholeFile,
                          message: Excerpt.line("invalid YAML: " + message, limit: 500))
        }
        func located(_ problem: String, _ mark: Mark, _ context: YamlError.Context?) -> ScenarioIssue {
            var message = problem
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            return at(mark.line, mark.column, message)
        }
        guard let error = error as? YamlError else { return at(1, 1, String(describing: error)) }
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return located(problem, mark, context)
        case .reader(let problem, let offset, _, _):
            let (line, column) = position(ofCharacter: offset ?? 0, in: yaml)
            return at(line, column, problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.prefix(5).map { "`\(Excerpt.of(String(describing: $0)))`" }.joined(separator: ", ")
            return at(context.mark.line, context.mark.column,
                      "key \(keys) appears more than once in one mapping")
        default:
            return at(1, 1, String(describing: error))
        }
    }

    /// 1-based line and column of the character at `offset`.
    static func position(ofCharacter offset: Int, in text: String) -> (Int, Int) {
        var line = 1, column = 1
        for c in text.prefix(offset) {
            if c.isNewline { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}
