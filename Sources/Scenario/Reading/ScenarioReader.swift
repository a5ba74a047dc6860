import Foundation
import WidgetSimKernel
import WidgetSimModel
import Yams

/// Walks a composed YAML tree, turning nodes into values and collecting every problem it
/// meets as a located `ScenarioIssue`. Each reading function returns nil after reporting
/// what was wrong, so a section can go on reading its other keys and the user sees all
/// independent problems at once.
///
/// Paths are field paths in the scenario (`widgets[2].timeline.horizon`); the empty path
/// is the top level and prints as `(file)`.
final class ScenarioReader {
    let file: String
    private(set) var issues: [ScenarioIssue] = []
    /// The keys each mapping read accepts, by its path (study paths are checked against them).
    private(set) var acceptedKeys: [String: [String]] = [:]

    init(file: String) { self.file = file }

    // MARK: - Reporting

    /// The most problems reported for one file; the rest are counted.
    static let mostIssues = 100
    var unreported = 0

    func report(_ message: String, line: Int, column: Int, path: String) {
        if issues.count >= Self.mostIssues {
            unreported += 1
            return
        }
        // One line each, whatever a value quoted in it holds.
        issues.append(ScenarioIssue(
            file: file, line: line, column: column,
            path: path.isEmpty ? ScenarioIssue.wholeFile : Excerpt.line(path, limit: 200), message: Excerpt.line(message)))
    }

    /// The node each value was read from, by path: where `RunGuard` findings are reported.
    var nodes: [String: Node] = [:]

    /// Durations that must fit within the run (checked once `days` is known).
    var withinRun: [(node: Node, path: String, ms: Int64)] = []

    /// Reports `message` at `node`'s position (1:1 when the node carries none).
    func report(_ message: String, at node: Node?, path: String) {
        let mark = node?.mark
        report(message, line: mark?.line ?? 1, column: mark?.column ?? 1, path: path)
    }

    // MARK: - Describing what was found

    /// The node as an error message quotes it: `` `text` ``, "nothing", "a list", "a mapping".
    static func found(_ node: Node) -> String {
        switch node {
        case .scalar(let s): isNull(node) ? "nothing" : "`\(Excerpt.of(s.string))`"
        case .sequence: "a list"
        case .mapping: "a mapping"
        case .alias: "an alias"
        }
    }

    /// An empty value, `~` or `null` written without quotes.
    static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let s) = node, s.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(s.string)
    }

    /// The text of a scalar, trimmed; nil for lists and mappings. Nearly every scalar has
    /// nothing to trim, and is returned as it is without Foundation's trimming, which
    /// copies the text (most of the time a study of many points spends reading them).
    static func scalarText(_ node: Node) -> String? {
        guard case .scalar(let s) = node else { return nil }
        let text = s.string, spaces = CharacterSet.whitespacesAndNewlines
        if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
           !spaces.contains(first), !spaces.contains(last) {
            return text
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Mappings and lists

    /// The mapping at `node`, its keys checked against `keys` (the keys this mapping
    /// accepts, in the order the manual lists them). Unknown keys are reported with the
    /// nearest valid one; they do not stop the others being read. With `nullIsEmpty`, an
    /// empty value (`person:` followed by nothing) reads as an empty mapping.
    /// `unknown` words the message for a key not in `keys` (by default "unknown key …").
    func fields(_ node: Node, _ path: String, keys: [String], what: String = "a mapping",
                nullIsEmpty: Bool = false, unknown: ((String) -> String)? = nil) -> Fields? {
        acceptedKeys[path] = keys
        if nullIsEmpty, Self.isNull(node) { return Fields(node: node, path: path, entries: [:]) }
        guard case .mapping(let mapping) = node else {
            report("expected \(what), got \(Self.found(node))" + Hints.forMapping(path, found: node), at: node, path: path)
            return nil
        }
        nodes[path] = node
        var suggested: Set<String> = []
        var entries: [String: (key: Node, value: Node)] = [:]
        for (key, value) in pairs(of: mapping, path) {
            // A key given here wins over the same key merged in with `<<`.
            if let name = Self.scalarText(key), entries[name] != nil { continue }
            guard let name = Self.scalarText(key) else {
                report("expected a key name, got \(Self.found(key))", at: key, path: path)
                continue
            }
            guard keys.contains(name) else {
                if issues.count >= Self.mostIssues {
                    unreported += 1
                    continue
                }
                report(unknown?(name) ?? Self.unknownKey(name, valid: keys), at: key, path: path.appending(key: name))
                if let guess = Hints.nearestKey(name, in: keys) { suggested.insert(guess) }
                continue
            }
            entries[name] = (key, value)
        }
        return Fields(node: node, path: path, entries: entries, suggested: suggested)
    }

    /// The pairs of a mapping with YAML merge keys (`<<: *anchor`, or a list of anchors)
    /// expanded: its own pairs first, then those of each merged mapping in order. With
    /// `reporting` false, a merge of something other than a mapping is skipped silently
    /// (for a first look at a mapping whose keys are checked later).
    func pairs(of mapping: Node.Mapping, _ path: String, reporting: Bool = true, depth: Int = 0)
        -> [(key: Node, value: Node)]
    {
        var own: [(key: Node, value: Node)] = [], merged: [(key: Node, value: Node)] = []
        for (key, value) in mapping {
            guard case .scalar(let k) = key, k.style == .plain, k.string == "<<", depth < 16 else {
                own.append((key, value))
                continue
            }
            let sources: [Node] = if case .sequence(let list) = value { Array(list) } else { [value] }
            for source in sources {
                guard case .mapping(let m) = source else {
                    guard reporting else { continue }
                    report("expected a mapping to merge (as `<<: *name`), got \(Self.found(source))",
                           at: source, path: path.appending(key: "<<"))
                    continue
                }
                merged += pairs(of: m, path, reporting: reporting, depth: depth + 1)
            }
        }
        return own + merged
    }

    static func unknownKey(_ name: String, valid: [String]) -> String {
        if let guess = Hints.nearestKey(name, in: valid) {
            return "unknown key `\(Excerpt.of(name))`; did you mean `\(guess)`?"
        }
        return "unknown key `\(Excerpt.of(name))`; valid keys: \(valid.joined(separator: ", "))"
    }

    /// The value of a key the mapping must have; reports a missing one at the mapping,
    /// unless an unknown key of the mapping was taken for it (reported at its own line).
    func required(_ key: String, in fields: Fields) -> Node? {
        if let node = fields[key] { return node }
        if fields.suggested.contains(key) { return nil }
        report("missing required key `\(key)`", at: fields.node, path: fields.path)
        return nil
    }

    /// The items of a list; `what` names them ("a list of widgets").
    func list(_ node: Node, _ path: String, what: String) -> [Node]? {
        guard case .sequence(let sequence) = node else {
            report("expected \(what), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        nodes[path] = node
        return Array(sequence)
    }

    /// The items of a list of 1…`most` `noun`s ("level"); an empty or longer list is reported.
    func list(_ node: Node, _ path: String, what: String, noun: String, most: Int) -> [Node]? {
        guard let items = list(node, path, what: what) else { return nil }
        if items.isEmpty {
            report("must list at least one \(noun)", at: node, path: path)
            return nil
        }
        if items.count > most {
            report("must list at most \(most) \(noun)s, got \(items.count)", at: node, path: path)
            return nil
        }
        return items
    }

    // MARK: - Scalars

    /// Any scalar as text (numbers and words alike); an empty value is "".
    func text(_ node: Node, _ path: String, what: String = "text") -> String? {
        if Self.isNull(node) { return "" }
        guard let t = Self.scalarText(node) else {
            report("expected \(what), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        return t
    }

    /// Whether a scalar's text is at most `limit` characters and free of control
    /// characters (reported otherwise).
    func plainText(_ node: Node, _ path: String, limit: Int) -> Bool {
        guard case .scalar(let s) = node else { return true }
        if s.string.unicodeScalars.count > limit {
            report("must be at most \(limit) characters, got \(s.string.unicodeScalars.count): \(Self.found(node))", at: node, path: path)
            return false
        }
        if Excerpt.hasControl(s.string) {
            report("must not hold control characters (line breaks, tabs, …), got \(Self.found(node))", at: node, path: path)
            return false
        }
        return true
    }

    /// Words: letters, digits, `-` and `_`, not empty (names that become folder names or
    /// CSV fields). `role` says why, for the message.
    func word(_ node: Node, _ path: String, allowing extra: Set<Character> = [], role: String = "") -> String? {
        guard let t = text(node, path) else { return nil }
        if t.unicodeScalars.count > Bounds.nameLength {
            report("must be at most \(Bounds.nameLength) characters\(role), got \(t.unicodeScalars.count): \(Self.found(node))",
                   at: node, path: path)
            return nil
        }
        let allowed = t.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" || extra.contains($0) }
        if t.isEmpty || !allowed {
            let others = (["-", "_"] + extra.sorted().map(String.init)).map { "`\($0)`" }
            let list = others.dropLast().joined(separator: ", ") + " and " + (others.last ?? "")
            report("must be letters, digits, \(list) only\(role), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        return t
    }

    /// A finite number within `rule` (see `Bounds`).
    func number(_ node: Node, _ path: String, _ rule: NumberRule = .any) -> Double? {
        guard let t = Self.scalarText(node), !Self.isNull(node), let v = Double(t), v.isFinite else {
            report("expected a number, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        nodes[path] = node
        if let problem = rule.problem(v, text: t) {
            report(problem, at: node, path: path)
            return nil
        }
        return v
    }

    /// A whole number in `range`.
    func whole(_ node: Node, _ path: String, in range: ClosedRange<Int>) -> Int? {
        let t = Self.scalarText(node) ?? ""
        var value = Self.isNull(node) ? nil : Int(t)
        if value == nil, !Self.isNull(node), let v = Double(t), v.isFinite, v == v.rounded(), abs(v) <= 9e15 {
            value = Int(v)
        }
        // A whole number too large for `Int` is still a whole number, just out of range.
        let tooLarge = value == nil && !Self.isNull(node) && Double(t).map { $0.isFinite && $0 == $0.rounded() } == true
        guard let value, range.contains(value) else {
            if value == nil && !tooLarge {
                report("expected a whole number, got \(Self.found(node))", at: node, path: path)
                return nil
            }
            let above = value.map { $0 > range.upperBound } ?? !t.hasPrefix("-")
            let bounds = range.upperBound != Int.max ? "in \(range.lowerBound)…\(range.upperBound)"
                : above ? "at most \(Int.max)" : "at least \(range.lowerBound)"
            report("must be \(bounds), got \(Excerpt.of(t))", at: node, path: path)
            return nil
        }
        nodes[path] = node
        return value
    }

    /// `true` or `false`.
    func flag(_ node: Node, _ path: String) -> Bool? {
        switch Self.scalarText(node)?.lowercased() {
        case "true": return true
        case "false": return false
        default:
            report("expected true or false, got \(Self.found(node))", at: node, path: path)
            return nil
        }
    }

    static let durationExpectation = "a duration with a unit (ms, s, m, h, d)"

    /// A duration with a unit, in milliseconds; `positive` refuses 0, `minimum` shorter
    /// ones. With `withinRun` it must also be at most the run's length (checked when the
    /// scenario's `days` is known, see `checkWithinRun`).
    func duration(_ node: Node, _ path: String, positive: Bool, minimum: Int64 = 0, withinRun: Bool = false) -> Int64? {
        guard let t = Self.scalarText(node), !Self.isNull(node), let ms = Self.durationMs(t) else {
            report("expected \(Self.durationExpectation), got \(Self.found(node))" + Hints.forDuration(Self.scalarText(node) ?? ""),
                   at: node, path: path)
            return nil
        }
        if positive, ms <= 0 {
            report("must be positive, got \(Excerpt.of(t))", at: node, path: path)
            return nil
        }
        if ms < minimum {
            report("must be at least \(DurationText.format(minimum)), got \(Excerpt.of(t))", at: node, path: path)
            return nil
        }
        nodes[path] = node
        if withinRun { self.withinRun.append((node, path, ms)) }
        return ms
    }

    /// Reports every duration read with `withinRun` that is longer than `days` days.
    func checkWithinRun(days: Int) {
        let span = Int64(days) * Milliseconds.day
        for (node, path, ms) in withinRun where ms > span {
            report("must be at most the run's length (\(DurationText.format(span)), from `days: \(days)`), got \(DurationText.format(ms))",
                   at: node, path: path)
        }
    }

    /// The longest duration a file may give: about 100 000 years, far inside `Int64` ms.
    static let maximumDurationMs = 3.2e15

    /// `DurationText.parse`, after refusing lengths too long to hold in milliseconds.
    static func durationMs(_ text: String) -> Int64? {
        let number = text.trimmingCharacters(in: .whitespaces).reversed().drop { $0.isLetter }.reversed()
        if let v = Double(String(number).trimmingCharacters(in: .whitespaces)), v.isFinite,
           v * Double(Milliseconds.day) > maximumDurationMs { return nil }
        return DurationText.parse(text)
    }

    /// One of `options` by name; an unknown name is reported with the nearest and the
    /// list of valid ones. `what` names the option ("generator", "family").
    func choice<T>(_ node: Node, _ path: String, what: String, options: [(name: String, value: T)]) -> T? {
        let names = options.map(\.name)
        guard let t = Self.scalarText(node), !Self.isNull(node) else {
            report("expected one of \(names.joined(separator: ", ")), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        if let hit = options.first(where: { $0.name == t }) { return hit.value }
        report(Suggestions.unknown(what, t, valid: names), at: node, path: path)
        return nil
    }

    // MARK: - Lists of numbers and profiles

    /// Exactly `count` numbers, each at least 0; `note` follows the count in the
    /// expectation (", Monday first").
    func numbers(_ node: Node, _ path: String, count: Int, note: String = "") -> [Double]? {
        let expected = "a list of \(count) numbers\(note)"
        guard case .sequence(let sequence) = node else {
            report("expected \(expected), got \(Self.found(node))", at: node, path: path)
            return nil
        }
        guard sequence.count == count else {
            report("expected \(expected), got \(sequence.count)", at: node, path: path)
            return nil
        }
        var values: [Double] = []
        for (i, item) in sequence.enumerated() {
            if let v = number(item, path.appending(index: i), Bounds.weight) { values.append(v) }
        }
        return values.count == count ? values : nil
    }

    /// A 24-hour profile: a name from `HourProfile.named`, or 24 numbers ≥ 0, not all 0.
    func profile(_ node: Node, _ path: String) -> [Double]? {
        let names = HourProfile.named.keys.sorted()
        switch node {
        case .scalar where !Self.isNull(node):
            let t = Self.scalarText(node) ?? ""
            if let p = HourProfile.named[t] { return p }
            report(Suggestions.unknown("profile", t, valid: names), at: node, path: path)
            return nil
        case .sequence:
            guard let values = numbers(node, path, count: 24) else { return nil }
            if values.allSatisfy({ $0 == 0 }) {
                report("must not be all 0", at: node, path: path)
                return nil
            }
            return values
        default:
            report("expected a profile name (\(names.joined(separator: ", "))) or a list of 24 numbers, got \(Self.found(node))",
                   at: node, path: path)
            return nil
        }
    }
}

/// The keys of one mapping, already checked against the keys it accepts.
struct Fields {
    /// The mapping itself (missing keys are reported here).
    let node: Node
    let path: String
    let entries: [String: (key: Node, value: Node)]
    /// Valid keys an unknown key of this mapping was taken for (`peeple` → `people`).
    var suggested: Set<String> = []

    subscript(key: String) -> Node? { entries[key]?.value }

    /// The path of `key`'s value.
    func path(_ key: String) -> String { path.appending(key: key) }

    /// `key`'s value read by `read` (given the node and its path); nil when the key is
    /// absent or its value was wrong (and reported).
    func read<T>(_ key: String, _ read: (Node, String) -> T?) -> T? {
        self[key].flatMap { read($0, path(key)) }
    }
}

extension String {
    /// A field path one key deeper: `widgets[0]` + `timeline` → `widgets[0].timeline`.
    func appending(key: String) -> String { isEmpty ? key : self + "." + key }
    /// A field path one list item deeper: `widgets` + 2 → `widgets[2]`.
    func appending(index: Int) -> String { self + "[\(index)]" }
}
