import Foundation
import WidgetSimKernel
import WidgetSimModel
import Yams

/// One varied value of a study, as given: its path and its values, each with the node
/// that carries it (for errors located where the value is written).
struct StudyParameter {
    var path: StudyPath
    /// Where the parameter is written: `study.parameters[0]`, or `--sweep PATH=…`.
    var entryPath: String
    var node: Node?
    var pathNode: Node?
    var values: [(text: String, node: Node, path: String)]
}

/// `study:` as written, before its values are checked against the scenario.
struct StudySpec {
    enum Combine: String, CaseIterable { case grid, zip }
    var node: Node?
    var parameters: [StudyParameter] = []
    var combine = Combine.grid
    var combineNode: Node?
    var baselinePoint = 0
    var baselineNode: Node?
    var explore: ExploreSpec?
}

/// `study:` — parameters with `values:` or `range: {from, to, step}`, `combine: grid | zip`,
/// `baseline_point`. Only the form is checked here; whether each value fits where its
/// path puts it is checked by reading the scenario with the value written in.
extension ScenarioReader {
    static let studyKeys = ["parameters", "combine", "baseline_point", "explore"]

    func study(_ node: Node) -> StudySpec {
        var spec = StudySpec(node: node)
        guard let f = fields(node, "study", keys: Self.studyKeys) else { return spec }
        if let e = f["explore"] {
            spec.explore = explore(e, f.path("explore"))
            if let p = f["parameters"] {
                report("give either `parameters` or `explore`, not both: an exploring study samples every value it varies",
                       at: p, path: f.path("parameters"))
            }
            if let c = f["combine"] {
                report("`combine` belongs to listed parameters; an exploring study's design combines its ranges", at: c, path: f.path("combine"))
            }
        } else if let list = required("parameters", in: f).flatMap({ self.list($0, f.path("parameters"), what: "a list of study parameters") }) {
            if list.isEmpty, let n = f["parameters"] {
                report("must list at least one parameter", at: n, path: f.path("parameters"))
            }
            for (i, item) in list.enumerated() {
                if let p = studyParameter(item, f.path("parameters").appending(index: i)) { spec.parameters.append(p) }
            }
        }
        if let c = f.read("combine", { choice($0, $1, what: "combination", options: StudySpec.Combine.allCases.map { ($0.rawValue, $0) }) }) {
            spec.combine = c
            spec.combineNode = f["combine"]
        }
        if let b = f.read("baseline_point", { whole($0, $1, in: 0 ... Int.max) }) {
            spec.baselinePoint = b
            spec.baselineNode = f["baseline_point"]
        }
        return spec
    }

    func studyParameter(_ node: Node, _ path: String) -> StudyParameter? {
        guard let f = fields(node, path, keys: ["path", "values", "range"]) else { return nil }
        let pathNode = required("path", in: f)
        var studyPath: StudyPath? = nil
        if let pathNode, let t = text(pathNode, f.path("path"), what: "a path") {
            studyPath = StudyPath(t)
            if studyPath == nil {
                report("expected a path such as `budgets.quota12.per_day`, got \(Self.found(pathNode))", at: pathNode, path: f.path("path"))
            }
        }
        var values: [(String, Node, String)]? = nil
        switch (f["values"], f["range"]) {
        case (nil, nil):
            report("missing `values` or `range`: give the values to run", at: node, path: path)
        case (.some, .some):
            report("give either `values` or `range`, not both", at: f["range"], path: f.path("range"))
        case (let v?, nil):
            values = studyValues(v, f.path("values"))
        case (nil, let r?):
            values = studyRange(r, f.path("range"))
        }
        guard let studyPath, let values else { return nil }
        return StudyParameter(path: studyPath, entryPath: path, node: node, pathNode: pathNode, values: values)
    }

    func studyValues(_ node: Node, _ path: String) -> [(String, Node, String)]? {
        guard let items = list(node, path, what: "a list of values") else { return nil }
        if items.isEmpty {
            report("must list at least one value", at: node, path: path)
            return nil
        }
        var out: [(String, Node, String)] = []
        for (i, item) in items.enumerated() {
            guard case .scalar = item, !Self.isNull(item), let t = Self.scalarText(item) else {
                report("expected a single value (a number, duration or word), got \(Self.found(item))", at: item, path: path.appending(index: i))
                continue
            }
            out.append((t, item, path.appending(index: i)))
        }
        if out.count > Study.maximumPoints {
            report("\(out.count) values, more than the maximum of \(Study.maximumPoints) points", at: node, path: path)
            return nil
        }
        return out.count == items.count ? out : nil
    }

    /// `{from, to, step}`: numbers or durations, from ≤ to, step above 0.
    func studyRange(_ node: Node, _ path: String) -> [(String, Node, String)]? {
        guard let f = fields(node, path, keys: ["from", "to", "step"]) else { return nil }
        let texts = ["from", "to", "step"].map { key in required(key, in: f).flatMap { text($0, f.path(key)) } }
        guard let from = texts[0], let to = texts[1], let step = texts[2] else { return nil }
        switch StudyRange.values(from: from, to: to, step: step) {
        case .success(let list):
            let mark: Mark? = if case .mapping(let m) = node { m.mark } else { nil }
            return list.map { ($0, Node.scalar(Node.Scalar($0, .implicit, .plain, mark)), path) }
        case .failure(let problem):
            report(problem.message, at: f[problem.key] ?? node, path: problem.key.isEmpty ? path : f.path(problem.key))
            return nil
        }
    }
}

/// The values of a range, as text: numbers written with as many decimals as the widest
/// of `from` and `step`, durations in the largest unit that holds them whole.
enum StudyRange {
    struct Problem: Error {
        var key: String
        var message: String
    }

    static func values(from: String, to: String, step: String) -> Result<[String], Problem> {
        if let a = Double(from), let b = Double(to), let s = Double(step), a.isFinite, b.isFinite, s.isFinite {
            let decimals = [from, to, step].map(Self.decimals).max() ?? 0
            if let (key, text) = [("from", from), ("to", to), ("step", step)].first(where: { Self.decimals($0.1) > 9 }) {
                return .failure(Problem(key: key, message: "use at most 9 decimals in a range; `\(text)` has \(Self.decimals(text))"))
            }
            let scale = pow(10, Double(decimals))
            guard abs(a * scale) < 9e15, abs(b * scale) < 9e15, abs(s * scale) < 9e15 else {
                return .failure(Problem(key: "to", message: "the range's numbers are too large"))
            }
            let list = scaled(Int64((a * scale).rounded()), Int64((b * scale).rounded()), Int64((s * scale).rounded()), step: step, to: to)
            return list.map { $0.map { decimals == 0 ? String($0) : String(format: "%.\(decimals)f", Double($0) / scale) } }
        }
        if let a = ScenarioReader.durationMs(from), let b = ScenarioReader.durationMs(to), let s = ScenarioReader.durationMs(step) {
            return scaled(a, b, s, step: step, to: to).map { $0.map(durationText) }
        }
        let bad = Double(from) != nil || ScenarioReader.durationMs(from) != nil
            ? (Double(to) != nil || ScenarioReader.durationMs(to) != nil ? "step" : "to") : "from"
        return .failure(Problem(key: bad, message: "expected numbers, or durations with a unit, for from, to and step alike"))
    }

    private static func scaled(_ a: Int64, _ b: Int64, _ s: Int64, step: String, to: String) -> Result<[Int64], Problem> {
        guard s > 0 else {
            return .failure(Problem(key: "step", message: "must be positive, got \(step): the range would never end"))
        }
        guard a <= b else {
            return .failure(Problem(key: "to", message: "is below `from`: the range is empty"))
        }
        let count = (b - a) / s + 1
        guard count <= Int64(Study.maximumPoints) else {
            return .failure(Problem(key: "step", message: "gives \(count) values, more than the maximum of \(Study.maximumPoints) points"))
        }
        return .success((0 ..< count).map { a + $0 * s })
    }

    /// The decimals a number is written with: `0.25` 2, `1e-3` 3, `2.5e-2` 3.
    static func decimals(_ text: String) -> Int {
        let lower = text.lowercased()
        let mantissa = lower.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? lower
        let exponent = lower.contains("e") ? Int(lower.split(separator: "e", maxSplits: 1)[1]) ?? 0 : 0
        let written = mantissa.firstIndex(of: ".").map { mantissa[mantissa.index(after: $0)...].count } ?? 0
        return max(0, min(10_000, written - exponent))
    }

    static func durationText(_ ms: Int64) -> String {
        for (unit, size) in [("d", Milliseconds.day), ("h", Milliseconds.hour), ("m", Milliseconds.minute), ("s", Int64(1000))]
        where ms != 0 && ms % size == 0 {
            return "\(ms / size)\(unit)"
        }
        return "\(ms)ms"
    }
}
