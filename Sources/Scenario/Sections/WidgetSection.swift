import Foundation
import WidgetSimModel
import Yams

/// One item of `widgets:`, with what the stack and duplicate checks need even when the
/// widget itself has errors.
struct WidgetEntry {
    /// The mapping of the item.
    var node: Node
    var path: String
    var id: String?
    var idNode: Node?
    /// The family, given or default; nil when the given one is wrong.
    var family: WidgetFamily?
    var familyNode: Node?
    /// The whole widget; nil when any part of it is wrong.
    var spec: WidgetSpec?
}

/// `widgets:` — the widget instances (MODEL §3): identity, interest, timeline, content
/// changes and relevance.
extension ScenarioReader {
    static let widgetKeys = [
        "id", "kind", "app", "family", "configuration", "interactive", "reload_cost",
        "interest", "timeline", "content", "relevance", "donated_configurations", "added_after", "audio_sessions",
    ]

    /// A widget built from required parts only: the source of every default.
    static let widgetDefaults = WidgetSpec(
        id: "", kind: "", app: "", interest: InterestSpec(base: 1),
        timeline: TimelineSpec(horizonMs: 1, reload: .atEnd), content: ContentSpec())

    /// Reads every widget; a duplicate id is reported with the line of its first use.
    func widgets(_ node: Node, _ path: String) -> [WidgetEntry] {
        guard let items = list(node, path, what: "a list of widgets") else { return [] }
        if items.isEmpty { report("must list at least one widget", at: node, path: path) }
        if items.count > Bounds.widgets {
            report("must list at most \(Bounds.widgets) widgets, got \(items.count)", at: node, path: path)
            return []
        }
        var entries: [WidgetEntry] = []
        var firstUse: [String: Node] = [:]
        for (i, item) in items.enumerated() {
            var entry = widget(item, path.appending(index: i))
            if let id = entry.id, let idNode = entry.idNode {
                if let first = firstUse[id] {
                    report("duplicate widget id `\(id)`; the first is at line \(first.mark?.line ?? 0)",
                           at: idNode, path: entry.path.appending(key: "id"))
                    entry.spec = nil
                } else {
                    firstUse[id] = idNode
                }
            }
            entries.append(entry)
        }
        return entries
    }

    func widget(_ node: Node, _ path: String) -> WidgetEntry {
        var entry = WidgetEntry(node: node, path: path, family: Self.widgetDefaults.family)
        guard let f = fields(node, path, keys: Self.widgetKeys, what: "a widget mapping") else {
            entry.family = nil
            return entry
        }
        let before = issues.count
        if let idNode = required("id", in: f) {
            entry.idNode = idNode
            entry.id = word(idNode, f.path("id"), allowing: ["."], role: " (it names the widget in reports)")
        }
        let kind = f.read("kind") { word($0, $1, allowing: ["."]) }
        let app = f.read("app") { word($0, $1, allowing: ["."]) }
        if let node = f["family"] {
            entry.familyNode = node
            entry.family = choice(node, f.path("family"), what: "family",
                                  options: WidgetFamily.allCases.map { ($0.rawValue, $0) })
        }
        let configuration = f.read("configuration", self.configuration)
        let interactive = f.read("interactive", flag)
        let cost = f.read("reload_cost", reloadCost)
        let interest = required("interest", in: f).flatMap { self.interest($0, f.path("interest")) }
        let timeline = required("timeline", in: f).flatMap { self.timeline($0, f.path("timeline")) }
        let content = f.read("content", self.content) ?? ContentSpec()
        let relevance = f.read("relevance", self.relevance)
        let donated = f.read("donated_configurations", donatedConfigurations)
        let added = f.read("added_after") { duration($0, $1, positive: true) }
        let audio = f.read("audio_sessions", audioSessions)

        guard issues.count == before, let id = entry.id, let interest, let timeline else { return entry }
        let kindName = kind ?? id
        var spec = WidgetSpec(id: id, kind: kindName, app: app ?? kindName,
                              interest: interest, timeline: timeline, content: content,
                              relevance: relevance?.spec ?? Self.widgetDefaults.relevance)
        spec.relevanceLevels = relevance?.levels ?? []
        if let family = entry.family { spec.family = family }
        if let configuration { spec.configuration = configuration }
        if let interactive { spec.interactive = interactive }
        if let donated { spec.donatedConfigurations = donated }
        spec.addedAfterMs = added
        spec.audioSessions = audio
        if let cost {
            if let milli = cost.milli { spec.reloadCostMilli = milli }
            if let network = cost.network { spec.usesNetwork = network }
        }
        entry.spec = spec
        return entry
    }

    /// Intent parameters: text keys to text values (numbers and flags taken as written).
    func configuration(_ node: Node, _ path: String) -> [String: String]? {
        guard case .mapping(let mapping) = node else {
            if Self.isNull(node) { return [:] }
            report("expected a mapping of intent parameters, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        var result: [String: String] = [:]
        if mapping.count > Bounds.configurationEntries {
            report("must have at most \(Bounds.configurationEntries) parameters, got \(mapping.count)", at: node, path: path)
            return nil
        }
        let before = issues.count
        for (key, value) in mapping {
            guard let name = Self.scalarText(key), plainText(key, path, limit: Bounds.nameLength) else {
                if Self.scalarText(key) == nil { report("expected a key name, got \(Self.found(key))", at: key, path: path) }
                continue
            }
            let valuePath = path.appending(key: name)
            if let v = text(value, valuePath), plainText(value, valuePath, limit: Bounds.configurationTextLength) {
                result[name] = v
            }
        }
        return issues.count == before ? result : nil
    }

    /// `donated_configurations: [{configuration: {…}, weight: W}, …]`: at least one,
    /// each weight above 0 (default 1).
    func donatedConfigurations(_ node: Node, _ path: String) -> [DonatedConfiguration]? {
        guard let items = list(node, path, what: "a list of {configuration, weight}",
                               noun: "configuration", most: Bounds.donatedConfigurations) else { return nil }
        let read: [DonatedConfiguration] = items.enumerated().compactMap { i, item in
            let itemPath = path.appending(index: i)
            guard let f = fields(item, itemPath, keys: ["configuration", "weight"], what: "{configuration, weight}")
            else { return nil }
            let configuration = required("configuration", in: f).flatMap { self.configuration($0, f.path("configuration")) }
            let weight = f.read("weight") { number($0, $1, Bounds.donationWeight) }
            guard let configuration, weight != nil || f["weight"] == nil else { return nil }
            return DonatedConfiguration(configuration, weight: weight ?? 1)
        }
        return read.count == items.count ? read : nil
    }

    /// `audio_sessions: {per_day, profile, length}`: `per_day` required, above 0.
    func audioSessions(_ node: Node, _ path: String) -> AudioSessionModel? {
        guard let f = fields(node, path, keys: ["per_day", "profile", "length"], what: "{per_day, profile, length}")
        else { return nil }
        guard let perDay = required("per_day", in: f).flatMap({ number($0, f.path("per_day"), Bounds.audioSessionsPerDay) }) else {
            return nil
        }
        var model = AudioSessionModel(perDay: perDay)
        if let v = f.read("profile", profile) { model.profile = v }
        if let node = f["length"] {
            (model.medianMs, model.sigma) = logNormal(node, f.path("length"), defaults: (model.medianMs, model.sigma))
        }
        return model
    }

    /// `reload_cost: {energy, network}`: energy units per reload (kept in thousandths).
    func reloadCost(_ node: Node, _ path: String) -> (milli: Int64?, network: Bool?)? {
        guard let f = fields(node, path, keys: ["energy", "network"], what: "{energy, network}") else { return nil }
        var milli: Int64? = nil
        if let node = f["energy"], let energy = number(node, f.path("energy"), Bounds.energy) {
            milli = Int64((energy * 1000).rounded())
        }
        return (milli, f.read("network", flag))
    }

    // MARK: - Interest

    static let interestKeys = ["base", "hourly", "peaks", "weekday", "after_push", "around_scheduled"]

    func interest(_ node: Node, _ path: String) -> InterestSpec? {
        guard let f = fields(node, path, keys: Self.interestKeys, what: "an interest mapping") else { return nil }
        let base = required("base", in: f).flatMap { number($0, f.path("base"), Bounds.interestLevel) }
        var spec = InterestSpec(base: base ?? 1)
        if let v = f.read("hourly", profile) { spec.hourly = v }
        if let node = f["peaks"], let items = list(node, f.path("peaks"), what: "a list of peaks") {
            if items.count > Bounds.peaks {
                report("must list at most \(Bounds.peaks) peaks, got \(items.count)", at: node, path: f.path("peaks"))
                return nil
            }
            let peaks = items.enumerated().compactMap { peak($1, f.path("peaks").appending(index: $0)) }
            if peaks.count == items.count { spec.peaks = peaks }
        }
        if let v = f.read("weekday", { numbers($0, $1, count: 7, note: ", Monday first") }) { spec.weekday = v }
        if let node = f["after_push"] {
            spec.afterPush = burst(node, f.path("after_push"), before: false)
        }
        if let node = f["around_scheduled"] {
            spec.aroundScheduled = burst(node, f.path("around_scheduled"), before: true)
        }
        guard base != nil else { return nil }
        // The product of the factors, at its largest, must stay finite and in bounds.
        var largest = 0.0
        for weekday in 0 ..< 7 {
            for hour in 0 ..< 24 { largest = max(largest, spec.base * spec.factor(hour: hour, weekday: weekday)) }
        }
        largest *= max(1, spec.afterPush?.factor ?? 1, spec.aroundScheduled?.factor ?? 1)
        if !(largest <= Bounds.largestInterest) {
            report("""
                interest reaches \(largest.isFinite ? String(format: "%.3g", largest) : "infinity") at its largest \
                (base × hourly × peaks × weekday × burst), above the bound \(Bounds.largestInterest.trimmedText); \
                lower `base` or the factors
                """, at: node, path: path)
            return nil
        }
        return spec
    }

    /// `{hour, width_hours, factor}`: hour 0…23 and factor > 0 required.
    func peak(_ node: Node, _ path: String) -> InterestPeak? {
        guard let f = fields(node, path, keys: ["hour", "width_hours", "factor"],
                             what: "{hour, width_hours, factor}") else { return nil }
        let hour = required("hour", in: f).flatMap { whole($0, f.path("hour"), in: 0 ... 23) }
        let width = f.read("width_hours") { whole($0, $1, in: 0 ... 12) }
        let factor = required("factor", in: f).flatMap { number($0, f.path("factor"), Bounds.factor) }
        guard let hour, let factor, width != nil || f["width_hours"] == nil else { return nil }
        var peak = InterestPeak(hour: hour, factor: factor)
        if let width { peak.widthHours = width }
        return peak
    }

    /// `after_push: {factor, after}` or `around_scheduled: {factor, before, after}`.
    func burst(_ node: Node, _ path: String, before hasBefore: Bool) -> Burst? {
        let keys = hasBefore ? ["factor", "before", "after"] : ["factor", "after"]
        guard let f = fields(node, path, keys: keys, what: "{\(keys.joined(separator: ", "))}") else { return nil }
        let factor = required("factor", in: f).flatMap { number($0, f.path("factor"), Bounds.factor) }
        var beforeMs: Int64? = 0
        if hasBefore { beforeMs = required("before", in: f).flatMap { duration($0, f.path("before"), positive: false) } }
        let afterMs = required("after", in: f).flatMap {
            duration($0, f.path("after"), positive: !hasBefore, minimum: hasBefore ? 0 : Bounds.shortestInterval)
        }
        guard let factor, let beforeMs, let afterMs else { return nil }
        if beforeMs == 0, afterMs == 0 {
            report("`before` and `after` cannot both be 0", at: node, path: path)
            return nil
        }
        return Burst(factor: factor, beforeMs: beforeMs, afterMs: afterMs)
    }

    // MARK: - Timeline

    func timeline(_ node: Node, _ path: String) -> TimelineSpec? {
        guard let f = fields(node, path, keys: ["horizon", "entry_spacing", "reload"],
                             what: "a timeline mapping") else { return nil }
        let horizon = required("horizon", in: f).flatMap { duration($0, f.path("horizon"), positive: true, withinRun: true) }
        let spacing = f.read("entry_spacing") { duration($0, $1, positive: true, minimum: Bounds.shortestInterval) }
        let reload = f.read("reload", reloadPolicy)
        guard let horizon, spacing != nil || f["entry_spacing"] == nil, reload != nil || f["reload"] == nil
        else { return nil }
        var spec = TimelineSpec(horizonMs: horizon, reload: reload ?? .atEnd)
        if let spacing { spec.entrySpacingMs = spacing }
        return spec
    }

    /// `at_end`, `never`, or `{after: DURATION}`.
    func reloadPolicy(_ node: Node, _ path: String) -> ReloadPolicy? {
        if case .mapping = node {
            guard let f = fields(node, path, keys: ["after"]) else { return nil }
            return required("after", in: f).flatMap {
                duration($0, f.path("after"), positive: true, minimum: Bounds.shortestInterval)
            }.map { .after($0) }
        }
        switch Self.scalarText(node) {
        case "at_end": return .atEnd
        case "never": return .never
        case let t? where !Self.isNull(node):
            report(Suggestions.unknown("reload policy", t, valid: ["at_end", "never", "{after: DURATION}"]),
                   at: node, path: path)
        default:
            report("expected at_end, never or {after: DURATION}, got \(Self.found(node))", at: node, path: path)
        }
        return nil
    }

    // MARK: - Content

    static let contentKeys = [
        "periodic", "scheduled_per_day", "scheduled_profile", "scheduled_length", "random_per_day", "random_profile",
        "push_fraction", "push_latency",
    ]

    func content(_ node: Node, _ path: String) -> ContentSpec? {
        var spec = ContentSpec()
        guard let f = fields(node, path, keys: Self.contentKeys, what: "a content mapping", nullIsEmpty: true)
        else { return nil }
        if let v = f.read("periodic", { duration($0, $1, positive: true, minimum: Bounds.shortestInterval) }) { spec.periodicMs = v }
        if let v = f.read("scheduled_per_day", { number($0, $1, Bounds.scheduledPerDay) }) { spec.scheduledPerDay = v }
        if let v = f.read("scheduled_profile", profile) { spec.scheduledProfile = v }
        if let v = f.read("scheduled_length", { duration($0, $1, positive: false) }) { spec.scheduledLengthMs = v }
        if let v = f.read("random_per_day", { number($0, $1, Bounds.randomPerDay) }) { spec.randomPerDay = v }
        if let v = f.read("random_profile", profile) { spec.randomProfile = v }
        if let v = f.read("push_fraction", { number($0, $1, .probability) }) { spec.pushFraction = v }
        if let node = f["push_latency"] {
            (spec.pushLatencyMedianMs, spec.pushLatencySigma) = logNormal(
                node, f.path("push_latency"), defaults: (spec.pushLatencyMedianMs, spec.pushLatencySigma))
        }
        return spec
    }

    // MARK: - Relevance

    static let relevanceModels: [(name: String, keys: [String])] = [
        ("constant", ["model", "score"]),
        ("scheduled", ["model", "score", "levels", "baseline", "lead", "duration"]),
        ("breaking", ["model", "score", "levels", "baseline", "duration"]),
    ]

    /// `none`, or `{model: constant | scheduled | breaking, …}`. `score` is required,
    /// except that `scheduled` and `breaking` may give `levels` instead; `baseline` and
    /// `lead` default to 0; `duration` is required for `scheduled` (0 allowed) and
    /// `breaking` (positive).
    func relevance(_ node: Node, _ path: String) -> (spec: RelevanceSpec, levels: [RelevanceLevel])? {
        guard case .mapping(let mapping) = node else {
            if Self.scalarText(node) == "none" { return (RelevanceSpec.none, []) }
            report("expected `none` or {model: constant | scheduled | breaking, score: …}, got \(Self.found(node))",
                   at: node, path: path)
            return nil
        }
        // The model decides which keys are valid, so look it up before checking keys.
        let modelName = pairs(of: mapping, path, reporting: false)
            .first { Self.scalarText($0.key) == "model" }.flatMap { Self.scalarText($0.value) }
        let model = Self.relevanceModels.first { $0.name == modelName }
        let allKeys = ["model", "score", "baseline", "lead", "duration"]
        guard let f = fields(node, path, keys: model?.keys ?? allKeys) else { return nil }
        guard let modelNode = required("model", in: f) else { return nil }
        guard let model else {
            _ = choice(modelNode, f.path("model"), what: "relevance model",
                       options: Self.relevanceModels.map { ($0.name, ()) })
            return nil
        }
        var levels: [RelevanceLevel]? = []
        var score: Double? = nil
        if let node = f["levels"] {
            levels = relevanceLevels(node, f.path("levels"))
            if f["score"] != nil {
                report("give `score` or `levels`, not both", at: node, path: f.path("levels"))
                return nil
            }
            score = levels?.map(\.score).max()
        } else {
            score = required("score", in: f).flatMap { number($0, f.path("score"), Bounds.score) }
        }
        guard let levels else { return nil }
        let baseline = f.read("baseline") { number($0, $1, Bounds.score) }
        let lead = f.read("lead") { duration($0, $1, positive: false) }
        var span: Int64? = nil
        if model.name != "constant" {
            span = required("duration", in: f).flatMap {
                duration($0, f.path("duration"), positive: model.name == "breaking")
            }
        }
        guard let score, baseline != nil || f["baseline"] == nil, lead != nil || f["lead"] == nil else { return nil }
        switch model.name {
        case "constant":
            return (.constant(score: score), levels)
        case "scheduled":
            guard let span else { return nil }
            return (.scheduled(score: score, baseline: baseline ?? 0, leadMs: lead ?? 0, durationMs: span), levels)
        default:
            guard let span else { return nil }
            return (.breaking(score: score, baseline: baseline ?? 0, durationMs: span), levels)
        }
    }

    /// `levels: [{score, share}, …]`: at least one level; each share above 0 and at
    /// most 1, the shares summing to 1 (within 1e-6).
    func relevanceLevels(_ node: Node, _ path: String) -> [RelevanceLevel]? {
        guard let items = list(node, path, what: "a list of {score, share}",
                               noun: "level", most: Bounds.relevanceLevels) else { return nil }
        var levels: [RelevanceLevel] = []
        for (i, item) in items.enumerated() {
            let p = path.appending(index: i)
            guard let f = fields(item, p, keys: ["score", "share"], what: "{score, share}") else { continue }
            let score = required("score", in: f).flatMap { number($0, f.path("score"), Bounds.score) }
            let shareNode = required("share", in: f)
            var share = shareNode.flatMap { number($0, f.path("share"), .probability) }
            if let v = share, v <= 0, let shareNode {
                report("must be above 0, got \(Self.scalarText(shareNode) ?? "")", at: shareNode, path: f.path("share"))
                share = nil
            }
            if let score, let share { levels.append(RelevanceLevel(score: score, share: share)) }
        }
        guard levels.count == items.count else { return nil }
        let sum = levels.reduce(0) { $0 + $1.share }
        if abs(sum - 1) > 1e-6 {
            report("the shares must sum to 1, got \(sum)", at: node, path: path)
            return nil
        }
        return levels
    }
}
