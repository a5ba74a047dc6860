import WidgetSimKernel
import WidgetSimModel
import Yams

/// `person:` — the exogenous behaviour of the people (MODEL §2) that is not per widget.
/// Every key is optional; an absent key keeps `PersonModel`'s default.
extension ScenarioReader {
    static let personKeys = [
        "views_per_day", "view_profile", "sessions_per_day", "session_profile", "session_length",
        "donation_probability", "no_interest", "swipe_probability", "tap_probability",
        "push_while_foreground_is_free", "background_pushes_per_hour", "environment_changes_per_day", "travel",
        "standby",
    ]

    func person(_ node: Node, _ path: String) -> PersonModel {
        var model = PersonModel()
        guard let f = fields(node, path, keys: Self.personKeys, nullIsEmpty: true) else { return model }
        if let v = f.read("views_per_day", { perPersonRate($0, $1, Bounds.viewsPerDay) }) { model.viewsPerDay = v }
        if let v = f.read("view_profile", profile) { model.viewProfile = v }
        if let v = f.read("sessions_per_day", { perPersonRate($0, $1, Bounds.sessionsPerDay) }) { model.sessionsPerDay = v }
        if let v = f.read("session_profile", profile) { model.sessionProfile = v }
        if let node = f["session_length"] {
            let (median, sigma) = logNormal(node, f.path("session_length"),
                                            defaults: (model.sessionMedianMs, model.sessionSigma))
            model.sessionMedianMs = median
            model.sessionSigma = sigma
        }
        if let v = f.read("donation_probability", { number($0, $1, .probability) }) { model.donationProbability = v }
        if let v = f.read("no_interest", { number($0, $1, Bounds.noInterest) }) { model.noInterest = v }
        if let v = f.read("swipe_probability", { number($0, $1, .probability) }) { model.swipeProbability = v }
        if let v = f.read("tap_probability", { number($0, $1, .probability) }) { model.tapProbability = v }
        if let v = f.read("push_while_foreground_is_free", flag) { model.pushWhileForegroundIsFree = v }
        if let node = f["background_pushes_per_hour"] {
            let path = f.path("background_pushes_per_hour")
            if Self.scalarText(node) == "none" {
                model.backgroundPushesPerHour = nil
            } else if case .number(let v)? = parameterValue(node, path, spec: PushThrottle.parameter) {
                model.backgroundPushesPerHour = Int(v)
            }
        }
        if let v = f.read("environment_changes_per_day", { number($0, $1, Bounds.environmentChangesPerDay) }) {
            model.environmentChangesPerDay = v
        }
        if let v = f.read("travel", travel) { model.travel = v }
        if let v = f.read("standby", standBy) { model.standBy = v }
        return model
    }

    /// `standby: {start_hour, spread, length, views_per_hour, refresh_interval}`, every
    /// key optional (`standby: {}` is StandBy with the defaults).
    func standBy(_ node: Node, _ path: String) -> StandByModel? {
        var model = StandByModel()
        guard let f = fields(node, path, keys: ["start_hour", "spread", "length", "views_per_hour", "refresh_interval"],
                             what: "{start_hour, spread, length, views_per_hour, refresh_interval}",
                             nullIsEmpty: true) else { return nil }
        let before = issues.count
        if let node = f["start_hour"], let v = number(node, f.path("start_hour"), .nonNegative) {
            if v >= 24 {
                report("must be less than 24, got \(Self.scalarText(node) ?? "")", at: node, path: f.path("start_hour"))
            } else {
                model.startHour = v
            }
        }
        if let node = f["spread"], let v = duration(node, f.path("spread"), positive: false) {
            if v > Milliseconds.day {
                report("must be at most 24h", at: node, path: f.path("spread"))
            } else {
                model.spreadMs = v
            }
        }
        if let node = f["length"] {
            (model.medianMs, model.sigma) = logNormal(node, f.path("length"), defaults: (model.medianMs, model.sigma))
        }
        if let v = f.read("views_per_hour", { number($0, $1, Bounds.standByViewsPerHour) }) { model.viewsPerHour = v }
        if let node = f["refresh_interval"], let v = duration(node, f.path("refresh_interval"), positive: true) {
            if v < Bounds.standByRefreshMinimumMs {
                report("must be at least 1m (each refresh reloads every widget), got \(Self.scalarText(node) ?? "")",
                       at: node, path: f.path("refresh_interval"))
            } else {
                model.refreshIntervalMs = v
            }
        }
        return issues.count == before ? model : nil
    }

    /// A per-person rate: a plain number (everyone the same), or `{mean, cv}` where `cv`
    /// defaults to 0. The mean must be positive, the cv not negative.
    func perPersonRate(_ node: Node, _ path: String, _ rule: NumberRule) -> PerPersonRate? {
        if case .scalar = node {
            return number(node, path, rule).map { PerPersonRate(mean: $0) }
        }
        guard let f = fields(node, path, keys: ["mean", "cv"], what: "a number or {mean, cv}") else { return nil }
        let mean = required("mean", in: f).flatMap { number($0, f.path("mean"), rule) }
        let cv = f.read("cv") { number($0, $1, Bounds.coefficientOfVariation) }
        guard let mean else { return nil }
        return PerPersonRate(mean: mean, cv: cv ?? PerPersonRate(mean: mean).cv)
    }

    /// A log-normal length `{median, sigma}`: median a positive duration, sigma (the
    /// log-scale spread, 0 for a constant) not negative. Absent keys keep `defaults`.
    func logNormal(_ node: Node, _ path: String, defaults: (Int64, Double)) -> (Int64, Double) {
        guard let f = fields(node, path, keys: ["median", "sigma"], what: "{median, sigma}") else { return defaults }
        let median = f.read("median") { duration($0, $1, positive: true) }
        let sigma = f.read("sigma") { number($0, $1, Bounds.sigma) }
        return (median ?? defaults.0, sigma ?? defaults.1)
    }

    /// `travel: {trips_per_day, zones, mean_stay}`, all required.
    func travel(_ node: Node, _ path: String) -> TravelModel? {
        guard let f = fields(node, path, keys: ["trips_per_day", "zones", "mean_stay"],
                             what: "{trips_per_day, zones, mean_stay}") else { return nil }
        let trips = required("trips_per_day", in: f).flatMap { number($0, f.path("trips_per_day"), Bounds.tripsPerDay) }
        var zones: [String]? = nil
        if let node = required("zones", in: f), let items = list(node, f.path("zones"), what: "a list of time zones") {
            if items.isEmpty {
                report("must name at least one time zone", at: node, path: f.path("zones"))
            } else if items.count > Bounds.travelZones {
                report("must name at most \(Bounds.travelZones) time zones, got \(items.count)", at: node, path: f.path("zones"))
            } else {
                let read = items.enumerated().compactMap { timeZone($1, f.path("zones").appending(index: $0)) }
                if read.count == items.count { zones = read }
            }
        }
        let stay = required("mean_stay", in: f).flatMap { duration($0, f.path("mean_stay"), positive: true, withinRun: true) }
        guard let trips, let zones, let stay else { return nil }
        return TravelModel(tripsPerDay: trips, zones: zones, meanStayMs: stay)
    }
}
