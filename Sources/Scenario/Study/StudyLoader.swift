import Foundation
import WidgetSimModel
import WidgetSimSampling
import Yams

/// What the command line adds to a scenario file: values to set (`--set PATH=VALUE`),
/// parameters to sweep (`--sweep PATH=VALUES`) and which points to build.
public struct StudyRequest: Sendable {
    public var sets: [String] = []
    public var sweeps: [String] = []
    /// Build only this point (`--point K`); the study may then exceed the maximum.
    public var point: Int?
    /// Only list the points: check every value, build no point's scenario.
    public var listOnly = false
    /// The most points `--points` lists (scenarios/README.md, "Parameter studies").
    public static let maximumListed = 100_000
    public init(sets: [String] = [], sweeps: [String] = [], point: Int? = nil, listOnly: Bool = false) {
        self.sets = sets
        self.sweeps = sweeps
        self.point = point
        self.listOnly = listOnly
    }
}

extension ScenarioLoader {
    /// The file named in command-line issues.
    public static let commandLine = "(command line)"

    /// Reads the file at `path` as a study (a file without `study:` and a request without
    /// sweeps is a study of one point).
    /// Policy names and parameters are checked against `policies`, which every point's
    /// scenario keeps (`Scenario.policies`).
    public static func loadStudy(path: String, _ request: StudyRequest = StudyRequest(), policies: PolicyRegistry = .builtIn)
        throws(ScenarioErrors) -> Study
    {
        try study(yaml: try read(path: path), file: path, request, policies: policies)
    }

    /// Parses `yaml` as a study (`file` names it in the issues), with the command line's
    /// `request` applied; policies are looked up in `policies`, which every point keeps.
    public static func study(yaml: String, file: String, _ request: StudyRequest = StudyRequest(), policies: PolicyRegistry = .builtIn)
        throws(ScenarioErrors) -> Study
    {
        var s = try study(yaml: yaml, file: file, request, budgets: .budgets(policies), rankings: .rankings(policies))
        s.forEachScenario { $0.policies = policies }
        return s
    }

    static func study(yaml: String, file: String, _ request: StudyRequest, budgets: PolicyCatalog, rankings: PolicyCatalog)
        throws(ScenarioErrors) -> Study
    {
        if let issue = sizeIssue(yaml, file: file) { throw ScenarioErrors(issues: [issue]) }
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: yaml)
        } catch {
            throw ScenarioErrors(issues: [SyntaxIssue.issue(for: error, file: file, yaml: yaml)])
        }
        var builder = StudyBuilder(file: file, budgets: budgets, rankings: rankings)
        return try builder.build(composed, request)
    }
}

/// Builds a study: reads the file without its `study:`, applies `--set`, checks every
/// study value by reading the file with that value written in, then builds each point.
/// A problem a value causes is reported where the value is written.
struct StudyBuilder {
    let file: String
    let budgets: PolicyCatalog
    let rankings: PolicyCatalog
    var issues: [ScenarioIssue] = []
    /// Whether the last `check` failed on the path rather than the value.
    var pathFailed = false

    init(file: String, budgets: PolicyCatalog, rankings: PolicyCatalog) {
        self.file = file
        self.budgets = budgets
        self.rankings = rankings
    }

    /// Reads `root` as a scenario: the scenario, or nil with the reader (for its issues).
    func read(_ root: Node) -> (Scenario?, ScenarioReader) {
        let reader = ScenarioReader(file: file)
        let s = reader.scenario(root, budgets: budgets, rankings: rankings)
        return (reader.issues.isEmpty ? s : nil, reader)
    }

    func fail(_ issues: [ScenarioIssue]) -> ScenarioErrors {
        let sorted = issues.enumerated()
            .sorted { ($0.element.file != ScenarioLoader.commandLine ? 0 : 1, $0.element.line, $0.element.column, $0.offset)
                < ($1.element.file != ScenarioLoader.commandLine ? 0 : 1, $1.element.line, $1.element.column, $1.offset) }
            .map(\.element)
        return ScenarioErrors(issues: sorted)
    }

    mutating func report(_ message: String, at node: Node?, path: String) {
        if let mark = node?.mark {
            issues.append(ScenarioIssue(file: file, line: mark.line, column: mark.column, path: path, message: message))
        } else {
            issues.append(ScenarioIssue(file: ScenarioLoader.commandLine, line: 0, column: 0, path: path, message: message))
        }
    }

    mutating func build(_ composed: Node?, _ request: StudyRequest) throws(ScenarioErrors) -> Study {
        guard let composed, !ScenarioReader.isNull(composed) else {
            let reader = ScenarioReader(file: file)
            reader.report("the file is empty: a scenario needs at least name, seed, days, people, start, "
                          + "time_zone, widgets, budgets and rankings", line: 1, column: 1, path: "")
            throw ScenarioErrors(issues: reader.issues)
        }
        // The file without its study.
        var root = composed
        var studyNode: Node? = nil
        if case .mapping(let m) = composed {
            studyNode = m.first { ScenarioReader.scalarText($0.key) == "study" && !TreeEdit.isMergeKey($0.key) }?.value
            let rest = m.filter { !(ScenarioReader.scalarText($0.key) == "study" && !TreeEdit.isMergeKey($0.key)) }
            root = .mapping(Node.Mapping(rest.map { ($0.key, $0.value) }, m.tag, m.style, m.mark))
        }
        // The study's form; the file's problems and the study's are reported together.
        let studyReader = ScenarioReader(file: file)
        var spec = studyNode.map(studyReader.study) ?? StudySpec()
        issues += studyReader.issues
        let (plain, plainReader) = read(root)
        guard let plain else {
            var all = fail((plainReader.issues.isEmpty ? [ScenarioLoader.internalIssue(file)] : plainReader.issues) + issues).issues
            if plainReader.unreported > 0, let last = all.last {
                all.append(ScenarioIssue(file: file, line: last.line, column: last.column, path: ScenarioIssue.wholeFile,
                                         message: "\(plainReader.unreported) more problems not shown; fix these first"))
            }
            throw ScenarioErrors(issues: all)
        }

        // --set and --sweep.
        var base = root
        var baseScenario = plain
        for set in request.sets {
            guard let (path, value) = Self.split(set), let studyPath = StudyPath(path) else {
                report("expected PATH=VALUE, got `\(set)`", at: nil, path: "--set")
                continue
            }
            let node = Node.scalar(Node.Scalar(value, .implicit, .plain))
            guard let (tree, scenario) = check(node, text: value, at: studyPath, in: base, entry: "--set \(set)", pathNode: nil, valuePath: "--set \(set)") else { continue }
            base = tree
            baseScenario = scenario
        }
        for sweep in request.sweeps {
            guard let (path, values) = Self.split(sweep), let studyPath = StudyPath(path) else {
                report("expected PATH=VALUES (`20,40,70` or `20..70:10`), got `\(sweep)`", at: nil, path: "--sweep")
                continue
            }
            switch Self.sweepValues(values) {
            case .success(let list):
                spec.parameters.append(StudyParameter(
                    path: studyPath, entryPath: "--sweep \(sweep)", node: nil, pathNode: nil,
                    values: list.map { ($0, Node.scalar(Node.Scalar($0, .implicit, .plain)), "--sweep \(sweep)") }))
            case .failure(let problem):
                report(problem.message, at: nil, path: "--sweep \(sweep)")
            }
        }
        guard issues.isEmpty else { throw fail(issues) }

        // Each value on its own, in the file as --set left it.
        var seen: [String: String] = [:]
        for p in spec.parameters {
            if let first = seen[p.path.text] {
                report("`\(p.path)` is already varied by \(first)", at: p.pathNode, path: p.entryPath)
                continue
            }
            seen[p.path.text] = p.entryPath
            if ["name", "study"].contains(p.path.segments[0]) {
                report("`\(p.path.segments[0])` cannot vary within a study"
                       + (p.path.segments[0] == "name" ? ": it names the report folder" : ""), at: p.pathNode, path: p.entryPath)
                continue
            }
            for v in p.values {
                pathFailed = false
                _ = check(v.node, text: v.text, at: p.path, in: base, entry: p.entryPath, pathNode: p.pathNode, valuePath: v.path)
                if pathFailed { break }  // a path problem is the same for every value
            }
        }
        guard issues.isEmpty else { throw fail(issues) }

        // An exploring study: its sampled values become parameters combined by `zip`.
        var design: StudyDesign? = nil
        if let explore = spec.explore {
            design = sample(explore, into: &spec, base: base, seed: explore.seed ?? baseScenario.seed)
            guard issues.isEmpty else { throw fail(issues) }
        }

        // The points.
        let counts = spec.parameters.map(\.values.count)
        var total = 1
        if spec.parameters.isEmpty {
            total = 1
        } else if spec.combine == .zip {
            if let first = spec.parameters.first, let other = spec.parameters.first(where: { $0.values.count != first.values.count }) {
                report("zip needs parameters of equal lengths, but \(first.entryPath) has \(first.values.count) values and \(other.entryPath) has \(other.values.count)",
                       at: spec.combineNode ?? other.node, path: spec.combineNode != nil ? "study.combine" : other.entryPath)
                throw fail(issues)
            }
            total = counts[0]
        } else {
            for c in counts {
                guard total <= Study.maximumPoints * 1000 else { break }
                total *= c
            }
        }
        let anchor = spec.node
        if spec.baselinePoint >= total {
            report("must be a point number in 0…\(total - 1), got \(spec.baselinePoint)", at: spec.baselineNode, path: "study.baseline_point")
        }
        if let k = request.point, !(0 ..< total).contains(k) {
            report("--point \(k): the study has \(total) point\(total == 1 ? "" : "s"), numbered 0…\(total - 1)", at: nil, path: "--point")
        }
        if request.point == nil, request.listOnly, total > StudyRequest.maximumListed {
            report("""
                a study of \(total > Study.maximumPoints * 1000 ? "more than \(Study.maximumPoints * 1000)" : String(total)) points, \
                more than the \(StudyRequest.maximumListed) that --points lists; list fewer values, or name one point with --point K
                """, at: anchor, path: "study")
        }
        if request.point == nil, !request.listOnly, total > Study.maximumPoints {
            report("""
                a study of \(total > Study.maximumPoints * 1000 ? "more than \(Study.maximumPoints * 1000)" : String(total)) points, \
                more than the maximum of \(Study.maximumPoints) run together; run it point by point with --point K \
                (list the points with --points)
                """, at: anchor, path: "study")
        }
        guard issues.isEmpty else { throw fail(issues) }

        func values(of k: Int) -> [Int] {
            if spec.combine == .zip { return counts.map { _ in k } }
            var rest = k
            var out = Array(repeating: 0, count: counts.count)
            for i in counts.indices.reversed() {
                out[i] = rest % counts[i]
                rest /= counts[i]
            }
            return out
        }
        let wanted: [Int] = request.point.map { [$0] } ?? Array(0 ..< total)
        var points: [StudyPoint] = []
        for k in wanted {
            let choice = values(of: k)
            let texts = zip(spec.parameters, choice).map { $0.values[$1].text }
            if request.listOnly || spec.parameters.isEmpty {
                points.append(StudyPoint(number: k, values: texts, scenario: baseScenario))
                continue
            }
            var tree = base
            do {
                for (p, i) in zip(spec.parameters, choice) { tree = try TreeEdit.set(p.values[i].node, at: p.path, in: tree).root }
            } catch {
                report("point \(k) cannot be built (a bug in the study reader)", at: anchor, path: "study")
                continue
            }
            let (scenario, reader) = read(tree)
            if let scenario {
                points.append(StudyPoint(number: k, values: texts, scenario: scenario))
                continue
            }
            let label = zip(spec.parameters, texts).map { "\($0.path)=\($1)" }.joined(separator: ", ")
            for issue in reader.issues {
                report("point \(k) (\(label)): \(issue.path): \(issue.message)", at: anchor, path: "study")
            }
        }
        guard issues.isEmpty else { throw fail(issues) }
        var study = Study(parameters: spec.parameters.map(\.path.text), points: points,
                          baselinePoint: spec.baselinePoint, totalPoints: total)
        study.design = design
        return study
    }

    /// The points of `study: explore:`: each range's bounds checked as values written at
    /// its path, then the design drawn and each range's sampled values added to `spec`
    /// as a parameter, the parameters combined by `zip` (point k is row k of the design).
    mutating func sample(_ explore: ExploreSpec, into spec: inout StudySpec, base: Node, seed: UInt64) -> StudyDesign? {
        if let sweep = spec.parameters.first {
            report("an exploring study samples every value it varies: give the range in `study.explore.ranges` instead",
                   at: nil, path: sweep.entryPath)
            return nil
        }
        var kinds: [ExploreValues.Kind] = []
        var seen: Set<String> = []
        for r in explore.ranges {
            guard seen.insert(r.path.text).inserted else {
                report("`\(r.path)` is already explored", at: r.pathNode, path: r.entryPath)
                continue
            }
            if ["name", "study", "seed"].contains(r.path.segments[0]) {
                report("`\(r.path.segments[0])` cannot vary within a study", at: r.pathNode, path: r.entryPath)
                continue
            }
            switch ExploreValues.kind(low: r.low, high: r.high) {
            case .failure(let problem):
                report(problem.message, at: r.node, path: r.entryPath)
            case .success(let kind):
                kinds.append(kind)
                for bound in [r.low, r.high] {
                    pathFailed = false
                    let node = Node.scalar(Node.Scalar(bound, .implicit, .plain, r.node.mark))
                    _ = check(node, text: bound, at: r.path, in: base, entry: r.entryPath, pathNode: r.pathNode, valuePath: r.entryPath,
                              keyPath: r.entryPath)
                    if pathFailed { break }
                }
            }
        }
        guard issues.isEmpty else { return nil }
        let d = explore.ranges.count
        let rows: [[Double]]
        do {
            if explore.method == .sobol {
                let baseRows = try SobolIndices.sobolBase(samples: explore.samples, dimensions: d)
                rows = SobolIndices.design(base: baseRows, dimensions: d)
            } else {
                rows = try ExperimentDesign.rows(explore.method, samples: explore.samples, dimensions: d, seed: seed)
            }
        } catch {
            let most = ExperimentDesign.maximumDimensions(explore.method) / (explore.method == .sobol ? 2 : 1)
            report("\(explore.method.rawValue) explores at most \(most) ranges, got \(d)", at: explore.methodNode ?? explore.node,
                   path: "study.explore.method")
            return nil
        }
        var numbers = Array(repeating: [Double](), count: rows.count)
        for (j, r) in explore.ranges.enumerated() {
            var values: [(text: String, node: Node, path: String)] = []
            for (k, row) in rows.enumerated() {
                let v = ExploreValues.value(kinds[j], at: row[j])
                values.append((v.text, Node.scalar(Node.Scalar(v.text, .implicit, .plain, r.node.mark)), r.entryPath))
                numbers[k].append(v.number)
            }
            spec.parameters.append(StudyParameter(path: r.path, entryPath: r.entryPath, node: r.node, pathNode: r.pathNode, values: values))
        }
        spec.combine = .zip
        return StudyDesign(method: explore.method.rawValue, samples: explore.samples, seed: seed,
                           ranges: explore.ranges.map { StudyDesign.Range(path: $0.path.text, low: $0.low, high: $0.high) },
                           numbers: numbers)
    }

    /// Writes `value` at `path` in `tree` and reads the result; reports what is wrong at
    /// the value (or, for a path the file cannot hold, at the path).
    mutating func check(_ value: Node, text: String, at path: StudyPath, in tree: Node, entry: String, pathNode: Node?,
                        valuePath: String, keyPath: String? = nil) -> (Node, Scenario)? {
        let pathAt = pathNode ?? value
        let pathPath = keyPath ?? (pathNode != nil ? entry + ".path" : entry)
        let edited: TreeEdit.Edited
        do {
            edited = try TreeEdit.set(value, at: path, in: tree)
        } catch {
            switch error {
            case .noEntry(let at, let name, let names):
                let guess = Suggestions.nearest(to: name, in: names).map { "; did you mean `\(at).\($0)`?" }
                    ?? "; its entries: \(names.joined(separator: ", "))"
                report("unknown path `\(path)`: `\(at)` has no entry `\(name)`\(guess)", at: pathAt, path: pathPath)
            case .throughValue(let at, let next):
                report("unknown path `\(path)`: `\(at)` is a single value in the file, with no `\(next)` inside",
                       at: pathAt, path: pathPath)
            case .notAValue(let at, let what):
                report("`\(at)` is \(what), not a value: a path names one value (a number, duration, word or flag)",
                       at: pathAt, path: pathPath)
            }
            pathFailed = true
            return nil
        }
        let (scenario, reader) = read(edited.root)
        for step in edited.steps {
            guard let keys = reader.acceptedKeys[step.mapping], !keys.contains(step.key) else { continue }
            // Not the path itself, nor the entries its writing made (`nope` for `nope.x`).
            let candidates = TreeEdit.candidates(edited.root, accepted: reader.acceptedKeys)
                .filter { $0 != path.text && !path.text.hasPrefix($0 + ".") && !$0.hasPrefix(path.text + ".") }
            var message = "unknown path `\(path)`"
            if let guess = Suggestions.nearest(to: path.text, in: candidates) {
                message += "; did you mean `\(guess)`?"
            } else {
                let under = step.named.split(separator: ".").dropLast().joined(separator: ".")
                message += ": `\(step.key)` is not a key \(under.isEmpty ? "of the file" : "of `\(under)`"); valid: \(keys.joined(separator: ", "))"
            }
            report(message, at: pathAt, path: pathPath)
            pathFailed = true
            return nil
        }
        if let scenario { return (edited.root, scenario) }
        let target = edited.steps.last.map { $0.mapping.appending(key: $0.key) }
        for issue in reader.issues {
            let atValue = issue.path == target
            let prefix = "`\(path)` = `\(text)`: " + (atValue ? "" : "\(issue.path): ")
            report(prefix + issue.message, at: value.mark != nil ? value : nil, path: valuePath)
        }
        return nil
    }

    static func split(_ text: String) -> (String, String)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let value = String(text[text.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : (String(text[..<eq]), value)
    }

    /// `20,40,70` or `FROM..TO:STEP` (numbers or durations).
    static func sweepValues(_ text: String) -> Result<[String], StudyRange.Problem> {
        if let dots = text.range(of: "..") {
            let from = String(text[..<dots.lowerBound])
            let rest = text[dots.upperBound...]
            guard let colon = rest.firstIndex(of: ":") else {
                return .failure(StudyRange.Problem(key: "", message: "a range needs a step: FROM..TO:STEP, e.g. 20..70:10"))
            }
            let result = StudyRange.values(from: from, to: String(rest[..<colon]), step: String(rest[rest.index(after: colon)...]))
            return result.mapError { StudyRange.Problem(key: $0.key, message: "range \($0.key): \($0.message)") }
        }
        let list = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard list.allSatisfy({ !$0.isEmpty }) else {
            return .failure(StudyRange.Problem(key: "", message: "an empty value in the list"))
        }
        guard list.count <= Study.maximumPoints else {
            return .failure(StudyRange.Problem(key: "", message: "\(list.count) values, more than the maximum of \(Study.maximumPoints) points"))
        }
        return .success(list)
    }
}
