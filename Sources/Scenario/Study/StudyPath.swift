import Yams

/// A path to one value of a scenario file, as studies and `--set` name it: mapping keys
/// joined by dots, list entries by their `id` or `label` (a policy without a label by its
/// policy name; a list without names by position from 0):
/// `widgets.news.content.push_fraction`, `budgets.quota12.per_day`, `person.no_interest`.
struct StudyPath: CustomStringConvertible {
    let text: String
    let segments: [String]

    /// Nil when the text is not a path (empty, or with an empty segment).
    init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        let segments = t.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !t.isEmpty, segments.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) }) else { return nil }
        self.text = t
        self.segments = segments
    }

    var description: String { text }
}

/// Why a path cannot take a value in a given file.
enum PathProblem: Error {
    /// No such entry in a list; the names it has.
    case noEntry(at: String, name: String, names: [String])
    /// The path goes on past a single value (at the first path, with the second next).
    case throughValue(String, next: String)
    /// The path names a list or a list entry, not a value.
    case notAValue(String, what: String)
}

/// Puts a value into a composed scenario file at a `StudyPath`, the way writing it there
/// by hand would: existing keys are replaced, missing keys (and the mappings leading to
/// them) are added, and a policy written as a bare name becomes `{policy: NAME}`.
enum TreeEdit {
    /// The result of an edit: the new tree and, for each mapping key the path went
    /// through, the reader's path of that mapping and the key (to check the keys against
    /// those the reader accepts there).
    struct Edited {
        var root: Node
        var steps: [(mapping: String, key: String, named: String)]
    }

    static func set(_ value: Node, at path: StudyPath, in root: Node) throws(PathProblem) -> Edited {
        var steps: [(mapping: String, key: String, named: String)] = []
        let tree = try set(value, path.segments[...], in: root, readerPath: "", named: "", steps: &steps)
        return Edited(root: tree, steps: steps)
    }

    private static func set(
        _ value: Node, _ segments: ArraySlice<String>, in node: Node, readerPath: String, named: String,
        steps: inout [(mapping: String, key: String, named: String)]
    ) throws(PathProblem) -> Node {
        guard let segment = segments.first else { return value }
        let rest = segments.dropFirst()
        let here = named.isEmpty ? segment : named + "." + segment
        switch node {
        case .sequence(let sequence):
            var items = Array(sequence)
            let names = items.enumerated().map { entryName($1, index: $0) }
            // A name may hold dots itself (widget ids may): the longest name that fits wins.
            var found: (index: Int, length: Int)? = nil
            for length in stride(from: segments.count, through: 1, by: -1) {
                let name = segments.prefix(length).joined(separator: ".")
                if let i = names.firstIndex(of: name) {
                    found = (i, length)
                    break
                }
            }
            if found == nil, let i = Int(segment), items.indices.contains(i) { found = (i, 1) }
            guard let (index, length) = found else { throw .noEntry(at: named, name: segment, names: names) }
            let rest = segments.dropFirst(length)
            let here = (named.isEmpty ? "" : named + ".") + segments.prefix(length).joined(separator: ".")
            guard !rest.isEmpty else { throw .notAValue(here, what: "an entry of a list") }
            var item = items[index]
            if case .scalar(let s) = item, readerPath == "budgets" || readerPath == "rankings" {
                item = .mapping(Node.Mapping([(Node("policy"), item)], .implicit, .any, s.mark))
            }
            items[index] = try set(value, rest, in: item, readerPath: readerPath.appending(index: index), named: here,
                                   steps: &steps)
            return .sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark))
        case .mapping(let mapping):
            steps.append((readerPath, segment, here))
            var pairs = mapping.map { ($0.key, $0.value) }
            let own = pairs.firstIndex { ScenarioReader.scalarText($0.0) == segment && !isMergeKey($0.0) }
            let existing = own.map { pairs[$0].1 } ?? merged(segment, in: mapping)
            let child: Node
            if rest.isEmpty {
                if case .sequence = existing { throw .notAValue(here, what: "a list") }
                child = value
            } else {
                child = try set(value, rest, in: existing ?? .mapping(Node.Mapping([])),
                                readerPath: readerPath.appending(key: segment), named: here, steps: &steps)
            }
            if let own { pairs[own].1 = child } else { pairs.append((Node(segment), child)) }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .scalar(let s) where ScenarioReader.isNull(node):
            // An empty value (`person:` and nothing) reads as an empty mapping.
            return try set(value, segments, in: .mapping(Node.Mapping([], .implicit, .any, s.mark)),
                           readerPath: readerPath, named: named, steps: &steps)
        default:
            throw .throughValue(named, next: segment)
        }
    }

    static func isMergeKey(_ key: Node) -> Bool {
        if case .scalar(let k) = key, k.style == .plain, k.string == "<<" { return true }
        return false
    }

    /// The value of `key` merged into `mapping` with `<<`, if any.
    static func merged(_ key: String, in mapping: Node.Mapping, depth: Int = 0) -> Node? {
        guard depth < 16 else { return nil }
        for (k, v) in mapping where isMergeKey(k) {
            let sources: [Node] = if case .sequence(let list) = v { Array(list) } else { [v] }
            for case .mapping(let m) in sources {
                if let hit = m.first(where: { ScenarioReader.scalarText($0.key) == key && !isMergeKey($0.key) }) {
                    return hit.value
                }
                if let deeper = merged(key, in: m, depth: depth + 1) { return deeper }
            }
        }
        return nil
    }

    /// How a path names a list entry: its `id`, its `label`, the `policy` of an entry
    /// without a label, a bare word itself; otherwise its position.
    static func entryName(_ item: Node, index: Int) -> String {
        switch item {
        case .mapping(let m):
            func value(_ key: String) -> String? {
                (m.first { ScenarioReader.scalarText($0.key) == key }?.value ?? merged(key, in: m))
                    .flatMap(ScenarioReader.scalarText)
            }
            return value("id") ?? value("label") ?? value("policy") ?? String(index)
        case .scalar:
            return ScenarioReader.scalarText(item) ?? String(index)
        default:
            return String(index)
        }
    }

    /// Every path a study could name in this file: the keys each mapping accepts (as the
    /// reader recorded them) and every key written, through list entries by name.
    static func candidates(_ root: Node, accepted: [String: [String]]) -> [String] {
        var out: [String] = []
        func walk(_ node: Node, _ readerPath: String, _ named: String) {
            switch node {
            case .mapping(let m):
                var keys = accepted[readerPath] ?? []
                var children: [(String, Node)] = []
                for (k, v) in m where !isMergeKey(k) {
                    guard let name = ScenarioReader.scalarText(k) else { continue }
                    if !keys.contains(name) { keys.append(name) }
                    children.append((name, v))
                }
                for key in keys where !(readerPath.isEmpty && key == "study") {
                    out.append(named.isEmpty ? key : named + "." + key)
                }
                for (name, v) in children where !(readerPath.isEmpty && name == "study") {
                    walk(v, readerPath.appending(key: name), named.isEmpty ? name : named + "." + name)
                }
            case .sequence(let s):
                for (i, item) in s.enumerated() {
                    walk(item, readerPath.appending(index: i), named + "." + entryName(item, index: i))
                }
            default:
                break
            }
        }
        walk(root, "", "")
        return out
    }
}
