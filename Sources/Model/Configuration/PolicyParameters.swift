import Foundation
import WidgetSimKernel

/// A parameter value as a scenario gives it, already typed by the parameter's kind.
public enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    /// A number (also a count's value, which is whole).
    case number(Double)
    /// Milliseconds.
    case duration(Int64)
    /// A word: a `choice`, or `drop` for a `durationOrDrop` parameter.
    case text(String)
    /// `true` or `false`.
    case flag(Bool)

    /// The value as a scenario file writes it (`30m`, `0.5`, `drop`, `true`).
    public var description: String {
        switch self {
        case .number(let v): v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
        case .duration(let ms): DurationText.format(ms)
        case .text(let s): s
        case .flag(let b): String(b)
        }
    }
}

/// What kind of value a parameter takes, for validation where it is parsed.
public enum ParameterKind: Sendable, Hashable {
    /// A number in `range`.
    case number(ClosedRange<Double>)
    /// A whole number in `range`.
    case count(ClosedRange<Int>)
    /// A duration with a unit, at least `minimumMs`.
    case duration(minimumMs: Int64)
    /// A duration, or the word `drop`.
    case durationOrDrop
    /// One word of `choices`.
    case choice([String])
    /// `true` or `false`.
    case flag

    /// The shortest retry delay: a shorter one would ask again faster than anything a
    /// phone does, and a run would not finish.
    public static let shortestRetryMs: Int64 = Milliseconds.second

    /// Every number and count lies in its kind's range, every duration is at least its
    /// minimum (and at most about 100 000 years, as every duration a scenario gives):
    /// these are the bounds `widgetsim policies` prints.
    public var expectation: String {
        switch self {
        case .number(let r): "a number in \(r.lowerBound.trimmed)…\(r.upperBound.trimmed)"
        case .count(let r): "a whole number in \(r.lowerBound)…\(r.upperBound)"
        case .duration(let m): "a duration with a unit (ms, s, m, h, d) of at least \(DurationText.format(m))"
        case .durationOrDrop: "a duration with a unit (ms, s, m, h, d) of at least 1s, or `drop`"
        case .choice(let c): "one of \(c.joined(separator: ", "))"
        case .flag: "true or false"
        }
    }
}

extension Double {
    var trimmed: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

/// One parameter a policy accepts: its name, kind, default and meaning.
public struct ParameterSpec: Sendable {
    /// The key a scenario entry sets (a lower-case word).
    public var name: String
    /// The value's type and bounds, checked where the scenario is read.
    public var kind: ParameterKind
    /// The value when a scenario entry leaves the key out; it fits `kind`.
    public var defaultValue: ParameterValue
    /// What the parameter means, in one line (`widgetsim policies` prints it).
    public var summary: String
    /// A parameter named `name` of `kind`, with its default and one-line meaning.
    public init(_ name: String, _ kind: ParameterKind, default value: ParameterValue, _ summary: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = value
        self.summary = summary
    }

    /// Checks `value` against the kind; returns the reason it does not fit, or nil.
    public func problem(with value: ParameterValue) -> String? {
        switch (kind, value) {
        case (.number(let r), .number(let v)):
            return r.contains(v) ? nil : "\(v.trimmed) is outside \(r.lowerBound.trimmed)…\(r.upperBound.trimmed)"
        case (.count(let r), .number(let v)):
            if v != v.rounded() { return "\(v.trimmed) is not a whole number" }
            guard v >= Double(r.lowerBound) && v <= Double(r.upperBound) else {
                return "\(v.trimmed) is outside \(r.lowerBound)…\(r.upperBound)"
            }
            return nil
        case (.duration(let m), .duration(let ms)):
            return ms >= m ? nil : "\(DurationText.format(ms)) is shorter than \(DurationText.format(m))"
        case (.durationOrDrop, .duration(let ms)):
            return ms >= ParameterKind.shortestRetryMs ? nil
                : "\(DurationText.format(ms)) is shorter than 1s: a retry must be at least 1s after the refusal"
        case (.durationOrDrop, .text("drop")):
            return nil
        case (.choice(let c), .text(let s)):
            return c.contains(s) ? nil : "`\(s.count > 40 ? String(s.prefix(40)) + "…" : s)` is not one of \(c.joined(separator: ", "))"
        case (.flag, .flag):
            return nil
        default:
            return "expected \(kind.expectation)"
        }
    }
}

/// A policy's parameters by name. Policies read them through the typed accessors,
/// which fall back to the spec's default; the scenario layer has already checked
/// every given value against its spec.
public struct PolicyParameters: Sendable, Hashable {
    /// The values a scenario entry gave, by parameter name; missing ones take their default.
    public var values: [String: ParameterValue]
    /// Parameters with these values (none: every parameter at its default).
    public init(_ values: [String: ParameterValue] = [:]) { self.values = values }

    /// The value given for `name`, or nil when the entry leaves it to its default.
    public subscript(name: String) -> ParameterValue? {
        get { values[name] }
        set { values[name] = newValue }
    }

    func value(_ spec: ParameterSpec) -> ParameterValue { values[spec.name] ?? spec.defaultValue }

    /// The value of a `.number` parameter (its default when not given).
    public func number(_ spec: ParameterSpec) -> Double {
        if case .number(let v) = value(spec) { return v }
        preconditionFailure("parameter \(spec.name) is not a number")
    }
    /// The value of a `.count` parameter.
    public func count(_ spec: ParameterSpec) -> Int { Int(number(spec)) }
    /// The value of a `.duration` parameter, in milliseconds.
    public func duration(_ spec: ParameterSpec) -> Int64 {
        if case .duration(let v) = value(spec) { return v }
        preconditionFailure("parameter \(spec.name) is not a duration")
    }
    /// A retry delay, or nil for `drop`.
    public func retry(_ spec: ParameterSpec) -> Int64? {
        if case .duration(let v) = value(spec) { return v }
        return nil
    }
    /// The value of a `.choice` parameter.
    public func text(_ spec: ParameterSpec) -> String {
        if case .text(let v) = value(spec) { return v }
        preconditionFailure("parameter \(spec.name) is not text")
    }
    /// The value of a `.flag` parameter.
    public func flag(_ spec: ParameterSpec) -> Bool {
        if case .flag(let v) = value(spec) { return v }
        preconditionFailure("parameter \(spec.name) is not a flag")
    }
}

/// Durations as scenario files write them: a whole number and a unit.
public enum DurationText {
    static let units: [(String, Int64)] = [
        ("ms", 1), ("s", Milliseconds.second), ("m", Milliseconds.minute),
        ("h", Milliseconds.hour), ("d", Milliseconds.day),
    ]

    /// Parses `90s`, `30m`, `6h`, `2d`, `250ms`, `1.5h` (rounded to the ms); nil if malformed,
    /// and for a space between the number and the unit (`30 m`).
    public static func parse(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces)
        for (unit, ms) in units.sorted(by: { $0.0.count > $1.0.count }) where t.hasSuffix(unit) {
            let number = String(t.dropLast(unit.count))
            guard !number.isEmpty, number.last?.isWhitespace == false, let v = Double(number), v.isFinite, v >= 0 else { return nil }
            let total = (v * Double(ms)).rounded()
            guard total < 9.2e18 else { return nil }  // beyond Int64
            return Int64(total)
        }
        return nil
    }

    /// The largest unit that divides `ms` exactly: 1800000 → `30m`.
    public static func format(_ ms: Int64) -> String {
        if ms == 0 { return "0s" }
        for (unit, size) in units.reversed() where ms % size == 0 {
            return "\(ms / size)\(unit)"
        }
        return "\(ms)ms"
    }
}
