import Foundation
import WidgetSimKernel
import WidgetSimModel

/// The check made before a run starts: from the scenario alone, an estimate of the
/// events one simulated person-day costs and of the memory one person's world takes,
/// each against a documented limit (scenarios/README.md, "Bounds"). A scenario beyond
/// either is refused before any work, with the values that make up most of the estimate.
///
/// The estimates are upper bounds of the likely cost, not predictions: per-person rates
/// are taken at mean × (1 + 3 cv), every retry is assumed refused again.
public enum RunGuard {
    /// Events per person-day under one policy pair.
    public static let eventLimit = 2_000_000.0
    /// Bytes one person's world (the whole run's arrivals) and counters may take.
    public static let memoryLimit = 1_073_741_824.0

    /// One estimate beyond its limit: what is wrong, and the field paths of the values
    /// responsible, the largest share first.
    public struct Finding: Sendable, CustomStringConvertible {
        public var message: String
        public var paths: [String]
        public var description: String { message }
    }

    /// A part of an estimate: how much, and which value causes it.
    struct Share {
        var amount: Double
        var path: String
        var what: String
    }

    static let dayMs = Double(Milliseconds.day)

    /// Findings for `s` (empty when it may run). Budget policies' retry parameters are
    /// looked up in the scenario's registry.
    public static func check(_ s: Scenario) -> [Finding] {
        check(s, budgetParameters: { s.policies.budget(named: $0)?.parameters })
    }

    /// Findings for `s`, with each budget policy's parameters looked up by
    /// `budgetParameters` (the registry the scenario is being read against).
    static func check(_ s: Scenario, budgetParameters: (String) -> [ParameterSpec]?) -> [Finding] {
        var findings: [Finding] = []
        let events = eventShares(s, budgetParameters: budgetParameters)
        let totalEvents = events.reduce(0) { $0 + $1.amount }
        if !(totalEvents <= eventLimit) {
            findings.append(finding(
                "the scenario would simulate about \(format(totalEvents)) events per person-day (limit \(format(eventLimit)))",
                events))
        }
        let memory = memoryShares(s)
        let totalMemory = memory.reduce(0) { $0 + $1.amount }
        if !(totalMemory <= memoryLimit) {
            findings.append(finding(
                "one simulated person would need about \(bytes(totalMemory)) of memory over \(s.days) days (limit \(bytes(memoryLimit)))",
                memory))
        }
        return findings
    }

    static func finding(_ head: String, _ shares: [Share]) -> Finding {
        let top = shares.sorted { $0.amount > $1.amount }.prefix(3)
        let named = top.map { "\($0.path) (\($0.what))" }.joined(separator: ", ")
        return Finding(message: "\(head); most of it comes from \(named)", paths: top.map(\.path))
    }

    /// A per-person rate at the high end of its spread.
    static func high(_ r: PerPersonRate) -> Double { r.mean * (1 + 3 * r.cv) }

    static func eventShares(_ s: Scenario, budgetParameters: (String) -> [ParameterSpec]?) -> [Share] {
        let p = s.person
        let w = Double(s.widgets.count)
        var shares: [Share] = [
            Share(amount: high(p.viewsPerDay), path: "person.views_per_day", what: "\(format(high(p.viewsPerDay))) views a day"),
            Share(amount: 2 * high(p.sessionsPerDay), path: "person.sessions_per_day",
                  what: "\(format(high(p.sessionsPerDay))) sessions a day, each a start and an end"),
            Share(amount: (1 + p.environmentChangesPerDay) * (1 + w), path: "person.environment_changes_per_day",
                  what: "midnights and environment changes, each reloading \(s.widgets.count) widgets"),
        ]
        if let t = p.travel {
            shares.append(Share(amount: 2 * t.tripsPerDay * (1 + w), path: "person.travel.trips_per_day",
                                what: "\(format(t.tripsPerDay)) trips a day, each reloading every widget twice"))
        }
        if let standBy = p.standBy {
            let hours = Double(standBy.medianMs) * exp(standBy.sigma * standBy.sigma / 2) / Double(Milliseconds.hour)
            shares.append(Share(amount: standBy.viewsPerHour * min(24, hours) + 2, path: "person.standby.views_per_hour",
                                what: "\(format(standBy.viewsPerHour)) StandBy views an hour"))
            let refreshes = min(24, hours) * Double(Milliseconds.hour) / Double(standBy.refreshIntervalMs)
            shares.append(Share(amount: refreshes * (1 + w), path: "person.standby.refresh_interval",
                                what: "\(format(refreshes)) StandBy display refreshes a night, each reloading \(s.widgets.count) widgets"))
        }
        for (i, spec) in s.widgets.enumerated() {
            let path = "widgets[\(i)]"
            let c = spec.content
            if let audio = spec.audioSessions {
                shares.append(Share(amount: 2 * audio.perDay, path: path + ".audio_sessions.per_day",
                                    what: "\(format(audio.perDay)) audio sessions a day"))
            }
            if let period = c.periodicMs, period > 0 {
                // Entries are walked one by one as views ask: one per change, at most
                // one per entry spacing.
                let ms = max(period, spec.timeline.entrySpacingMs)
                shares.append(Share(amount: dayMs / Double(ms), path: path + ".content.periodic",
                                    what: "a timeline entry every \(DurationText.format(ms))"))
            }
            if c.randomPerDay > 0 {
                shares.append(Share(amount: c.randomPerDay * (1 + 2 * c.pushFraction), path: path + ".content.random_per_day",
                                    what: "\(format(c.randomPerDay)) changes a day"))
            }
            switch spec.timeline.reload {
            case .after(let ms):
                shares.append(Share(amount: dayMs / Double(max(ms, 1)), path: path + ".timeline.reload.after",
                                    what: "a reload every \(DurationText.format(ms))"))
            case .atEnd:
                // Asked again at the last entry, but no sooner than the spacing: a
                // timeline of one entry asks again every spacing.
                let ms = spec.timeline.entrySpacingMs
                shares.append(Share(amount: dayMs / Double(max(ms, 1)), path: path + ".timeline.entry_spacing",
                                    what: "a timeline request every \(DurationText.format(ms)) at the timeline's end"))
            case .never:
                break
            }
        }
        // Retries: every refused request of every widget asked again at each delay.
        var worstRetry: Share?
        for (b, choice) in s.budgets.enumerated() {
            guard let specs = budgetParameters(choice.name) else { continue }
            var amount = 0.0
            var named: [String] = []
            for spec in specs where spec.kind == .durationOrDrop {
                guard case .duration(let ms) = choice.parameters[spec.name] ?? spec.defaultValue, ms > 0 else { continue }
                amount += w * dayMs / Double(ms)
                named.append("\(spec.name) \(DurationText.format(ms))")
            }
            if amount > (worstRetry?.amount ?? 0) {
                worstRetry = Share(amount: amount, path: "budgets[\(b)]",
                                   what: "\(named.joined(separator: ", ")) for \(s.widgets.count) widgets")
            }
        }
        if let worstRetry { shares.append(worstRetry) }
        return shares
    }

    static func memoryShares(_ s: Scenario) -> [Share] {
        let p = s.person
        let days = Double(s.days)
        let members = Double(s.stack.members.count)
        let bursts = s.widgets.contains { $0.interest.afterPush != nil || $0.interest.aroundScheduled != nil }
        let view = Double(MemoryLayout<ViewRecord>.stride) + (bursts ? 8 * members : 0)
        let session = Double(MemoryLayout<SessionRecord>.stride + MemoryLayout<WidgetMoment>.stride)
        let moment = Double(MemoryLayout<WidgetMoment>.stride)
        var shares: [Share] = [
            Share(amount: days * high(p.viewsPerDay) * view, path: "person.views_per_day",
                  what: "\(format(high(p.viewsPerDay))) views a day × \(s.days) days"),
            Share(amount: days * high(p.sessionsPerDay) * session, path: "person.sessions_per_day",
                  what: "\(format(high(p.sessionsPerDay))) sessions a day × \(s.days) days"),
            Share(amount: days * Double(s.policyPairs.count)
                    * (Double(s.widgets.count * WidgetCounter.count + PersonCounter.count) * 8),
                  path: "days", what: "counters of \(s.widgets.count) widgets × \(s.days) days × \(s.policyPairs.count) policy pairs"),
        ]
        if let standBy = p.standBy {
            shares.append(Share(amount: days * standBy.viewsPerHour * 24 * view, path: "person.standby.views_per_hour",
                                what: "\(format(standBy.viewsPerHour)) StandBy views an hour × \(s.days) days"))
        }
        for (i, spec) in s.widgets.enumerated() {
            let c = spec.content
            if let audio = spec.audioSessions {
                shares.append(Share(amount: days * audio.perDay * 2 * moment, path: "widgets[\(i)].audio_sessions.per_day",
                                    what: "\(format(audio.perDay)) audio sessions a day × \(s.days) days"))
            }
            if c.randomPerDay > 0 {
                shares.append(Share(amount: days * c.randomPerDay * (2 * moment + 16), path: "widgets[\(i)].content.random_per_day",
                                    what: "\(format(c.randomPerDay)) changes a day × \(s.days) days"))
            }
            if c.scheduledPerDay > 0 {
                shares.append(Share(amount: days * c.scheduledPerDay * 8, path: "widgets[\(i)].content.scheduled_per_day",
                                    what: "\(format(c.scheduledPerDay)) changes a day × \(s.days) days"))
            }
        }
        return shares
    }

    /// 1234567 → `1,234,567`; large or small values in a short form.
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "∞" }
        if v >= 1e12 { return String(format: "%.2g", v) }
        let whole = Int64(v.rounded())
        if whole == 0, v > 0 { return String(format: "%.2g", v) }
        var digits = String(whole)
        var out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out
    }

    static func bytes(_ v: Double) -> String {
        guard v.isFinite else { return "∞ bytes" }
        if v >= 1_073_741_824 { return String(format: "%.1f GB", v / 1_073_741_824) }
        return String(format: "%.0f MB", v / 1_048_576)
    }
}
