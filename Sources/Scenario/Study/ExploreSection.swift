import Foundation
import WidgetSimModel
import WidgetSimSampling
import Yams

/// One explored value as written: `path: LOW..HIGH`.
struct ExploreRange {
    var path: StudyPath
    var pathNode: Node
    var node: Node
    var entryPath: String
    var low: String
    var high: String
}

/// `study: explore:` as written, before its bounds are checked against the scenario.
struct ExploreSpec {
    var node: Node
    var method: ExperimentDesign.Method
    var methodNode: Node?
    var samples: Int
    var samplesNode: Node?
    var seed: UInt64?
    var ranges: [ExploreRange]
}

/// `explore: {method: lhs | sobol | halton, samples: N, seed: S, ranges: {PATH: LOW..HIGH, …}}`.
/// Only the form is checked here; each bound is checked as a value written at its path
/// by the study builder, and each sampled point as a whole.
extension ScenarioReader {
    static let exploreKeys = ["method", "samples", "seed", "ranges"]

    func explore(_ node: Node, _ path: String) -> ExploreSpec? {
        guard let f = fields(node, path, keys: Self.exploreKeys) else { return nil }
        var spec = ExploreSpec(node: node, method: .lhs, samples: 0, ranges: [])
        if let m = f.read("method", { choice($0, $1, what: "sample design", options: ExperimentDesign.Method.allCases.map { ($0.rawValue, $0) }) }) {
            spec.method = m
            spec.methodNode = f["method"]
        }
        guard let samples = required("samples", in: f).flatMap({ whole($0, f.path("samples"), in: 1 ... Study.maximumPoints) }) else {
            _ = f["ranges"].map { exploreRanges($0, f.path("ranges")) }
            return nil
        }
        spec.samples = samples
        spec.samplesNode = f["samples"]
        if let s = f.read("seed", { whole($0, $1, in: 0 ... Int.max) }) { spec.seed = UInt64(s) }
        guard let r = required("ranges", in: f).flatMap({ exploreRanges($0, f.path("ranges")) }) else { return nil }
        spec.ranges = r
        return issues.isEmpty ? spec : nil
    }

    func exploreRanges(_ node: Node, _ path: String) -> [ExploreRange]? {
        guard case .mapping(let mapping) = node else {
            report("expected a mapping of paths to ranges (`person.views_per_day.mean: 20..160`), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        nodes[path] = node
        var out: [ExploreRange] = []
        for (key, value) in pairs(of: mapping, path) {
            guard let name = Self.scalarText(key), let studyPath = StudyPath(name) else {
                report("expected a path such as `budgets.quota12.per_day`, got \(Self.found(key))", at: key, path: path)
                continue
            }
            let entry = path.appending(key: name)
            guard case .scalar = value, let t = Self.scalarText(value), let (low, high) = ExploreValues.bounds(t) else {
                report("expected a range LOW..HIGH (numbers or durations: `20..160`, `0..0.5`, `5m..1h`), got \(Self.found(value))",
                       at: value, path: entry)
                continue
            }
            out.append(ExploreRange(path: studyPath, pathNode: key, node: value, entryPath: entry, low: low, high: high))
        }
        if out.isEmpty, issues.isEmpty {
            report("must give at least one range", at: node, path: path)
        }
        return out
    }
}

/// Sampled values: a design's coordinate u in [0, 1) mapped onto a range and written as
/// the file would write it. Whole-number bounds (`4..96`) give whole numbers, each of the
/// HIGH − LOW + 1 equally likely; bounds with decimals (`0..0.5`, `20.0..160`) give
/// numbers uniform between them, with 4 decimals or the bounds' own if more; durations
/// (`5m..1h`) give whole seconds, uniform between them, in the largest unit that holds
/// them whole.
enum ExploreValues {
    /// `LOW..HIGH` split in two (trimmed), or nil.
    static func bounds(_ text: String) -> (String, String)? {
        guard let dots = text.range(of: "..") else { return nil }
        let low = text[..<dots.lowerBound].trimmingCharacters(in: .whitespaces)
        let high = text[dots.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !low.isEmpty, !high.isEmpty else { return nil }
        return (low, high)
    }

    enum Kind: Equatable {
        case whole(Int64, Int64)
        case decimal(Double, Double, decimals: Int)
        case duration(Int64, Int64)
    }

    /// The kind of a range, or a message saying what is wrong with it.
    static func kind(low: String, high: String) -> Result<Kind, StudyRange.Problem> {
        let isWhole = { (t: String) in Int64(t) != nil }
        if let a = Double(low), let b = Double(high), a.isFinite, b.isFinite {
            guard a < b else { return .failure(StudyRange.Problem(key: "", message: "HIGH (\(high)) must be above LOW (\(low))")) }
            if isWhole(low), isWhole(high) { return .success(.whole(Int64(low)!, Int64(high)!)) }
            let decimals = max(4, StudyRange.decimals(low), StudyRange.decimals(high))
            guard decimals <= 9, abs(a) < 1e9, abs(b) < 1e9 else {
                return .failure(StudyRange.Problem(key: "", message: "bounds must lie within ±1e9 with at most 9 decimals"))
            }
            return .success(.decimal(a, b, decimals: decimals))
        }
        if let a = ScenarioReader.durationMs(low), let b = ScenarioReader.durationMs(high) {
            guard a < b else { return .failure(StudyRange.Problem(key: "", message: "HIGH (\(high)) must be above LOW (\(low))")) }
            return .success(.duration(a, b))
        }
        return .failure(StudyRange.Problem(key: "", message: "expected numbers, or durations with a unit, for LOW and HIGH alike"))
    }

    /// The value at coordinate `u` as text, and as a number (durations in seconds).
    static func value(_ kind: Kind, at u: Double) -> (text: String, number: Double) {
        switch kind {
        case .whole(let a, let b):
            let span = Double(b - a + 1)
            let v = a + min(Int64((u * span).rounded(.down)), b - a)
            return (String(v), Double(v))
        case .decimal(let a, let b, let decimals):
            let text = String(format: "%.\(decimals)f", a + u * (b - a))
            return (text, Double(text)!)
        case .duration(let a, let b):
            let lowS = (a + 999) / 1000, highS = b / 1000
            let seconds = highS >= lowS ? lowS + min(Int64((u * Double(highS - lowS + 1)).rounded(.down)), highS - lowS) : lowS
            return (StudyRange.durationText(seconds * 1000), Double(seconds))
        }
    }
}
