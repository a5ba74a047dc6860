import Foundation
import WidgetSimSampling
@testable import WidgetSimTrace

/// A file in a fresh temporary folder holding `text`.
func temporaryFile(_ name: String, _ text: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trace-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// Every event of a log, and the reader after it.
func events(_ path: String, _ format: TraceFormat, zone: String? = "UTC") throws -> ([TraceEvent], TraceReader) {
    var reader = TraceReader(path: path, format: format, zone: zone.flatMap(TimeZone.init(identifier:)))
    var all: [TraceEvent] = []
    try reader.read { (e: TraceEvent) throws(TraceError) in all.append(e) }
    return (all, reader)
}

/// A seeded generator for the logs the tests make (SplitMix64, through the seed
/// derivation's own finaliser `StreamKey.mix`), with the draws they need.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        defer { state &+= 0x9E37_79B9_7F4A_7C15 }
        return StreamKey.mix(state)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func normal() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    /// Poisson by counting exponential gaps (small means only).
    mutating func poisson(_ mean: Double) -> Int {
        var k = 0, t = -log(max(uniform(), 1e-300))
        while t < mean {
            k += 1
            t += -log(max(uniform(), 1e-300))
        }
        return k
    }
    /// Gamma with this mean and coefficient of variation (Marsaglia–Tsang; cv < 1).
    mutating func gamma(mean: Double, cv: Double) -> Double {
        guard cv > 0 else { return mean }
        let shape = 1 / (cv * cv), scale = mean / shape
        let d = shape - 1.0 / 3, c = 1 / (9 * d).squareRoot()
        while true {
            let x = normal(), v0 = 1 + c * x
            guard v0 > 0 else { continue }
            let v = v0 * v0 * v0, u = uniform()
            if log(u) < 0.5 * x * x + d - d * v + d * log(v) { return d * v * scale }
        }
    }
    mutating func pick(_ weights: [Double]) -> Int {
        var u = uniform() * weights.reduce(0, +)
        for (i, w) in weights.enumerated() {
            u -= w
            if u < 0 { return i }
        }
        return weights.count - 1
    }
}

/// The person model's parameters, as a test log is made from them.
struct TrueModel {
    var people = 300
    var days = 28
    /// 2026-04-06, a Monday, in days since 1970-01-01.
    var firstDay: Int64 = 20549
    var sessionsPerDay = 12.0
    var cv = 0.3
    var profile: [Double] = [0.2, 0.1, 0.1, 0.1, 0.2, 0.4, 0.8, 1.4, 1.6, 1.4, 1.2, 1.2,
                             1.4, 1.3, 1.2, 1.2, 1.3, 1.5, 1.7, 1.8, 1.7, 1.4, 1.0, 0.5]
    var apps = ["Gmail", "Weather", "Google News"]
    var base = [0.5, 0.3, 0.2]
    var hourly: [[Double]] = [
        (0 ..< 24).map { $0 >= 8 && $0 < 18 ? 2 : 1 },
        (0 ..< 24).map { $0 == 7 ? 3 : 1 },
        (0 ..< 24).map { $0 >= 19 ? 2 : 1 },
    ]
    var weekday: [[Double]] = [[1, 1, 1, 1, 1, 0.4, 0.4], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1.5, 1.5]]
    var medianSeconds = 60.0
    var sigma = 0.8
    /// With this probability a session is followed within 20 s by another (a burst).
    var burst = 0.0

    /// The log, as LSApp lines (header first), sorted by person then time.
    func lsapp(seed: UInt64) -> String {
        var r = TestRandom(seed: seed)
        var out = "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n"
        let profileTotal = profile.reduce(0, +)
        for person in 0 ..< people {
            let rate = r.gamma(mean: sessionsPerDay, cv: cv)
            var sessions: [(start: Double, end: Double, app: Int)] = []
            var lastEnd = [Double](repeating: -.infinity, count: apps.count)
            for day in 0 ..< days {
                let weekdayIndex = day % 7
                for h in 0 ..< 24 {
                    let n = r.poisson(rate * profile[h] / profileTotal)
                    var starts = (0 ..< n).map { _ in Double(day * 86400 + h * 3600) + r.uniform() * 3600 }
                    starts.sort()
                    for s in starts {
                        let weights = apps.indices.map { base[$0] * hourly[$0][h] * weekday[$0][weekdayIndex] }
                        var app = r.pick(weights)
                        var start = s
                        let length = medianSeconds * exp(sigma * r.normal())
                        var bursts = 0
                        while true {
                            // A start inside the same app's previous session is left out (the log
                            // could not tell the two apart).
                            if start > lastEnd[app] + 1 {
                                sessions.append((start, start + length, app))
                                lastEnd[app] = start + length
                            }
                            guard burst > 0, bursts < 1, r.uniform() < burst else { break }
                            bursts += 1
                            start += r.uniform() * 20
                            app = (app + 1) % apps.count
                        }
                    }
                }
            }
            var lines: [(Double, Int, String)] = []
            for (k, s) in sessions.enumerated() {
                lines.append((s.start, 2 * k, "\(apps[s.app])\tOpened"))
                lines.append((s.end, 2 * k + 1, "\(apps[s.app])\tClosed"))
            }
            lines.sort { ($0.0.rounded(.down), $0.1) < ($1.0.rounded(.down), $1.1) }
            for (t, _, text) in lines {
                out += "u\(person)\t1\t\(timestamp(t))\t\(text)\n"
            }
        }
        return out
    }

    func timestamp(_ seconds: Double) -> String {
        let s = Int64(seconds.rounded(.down))
        let (y, m, d) = civilFromDays(firstDay + s / 86400)
        let rest = s % 86400
        return String(format: "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", y, m, d, rest / 3600, rest / 60 % 60, rest % 60)
    }
}
