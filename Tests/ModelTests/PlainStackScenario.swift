import WidgetSimKernel
@testable import WidgetSimModel

/// A stack like the reference workload's, whose views are all plain
/// (`PersonEngine.plainViews`): five members with random content, half of it pushed,
/// each with an hourly timeline and an hour of peak interest; 90 views and 15 sessions
/// a day, every session donating. The person swipes and taps with the model's default
/// odds unless told; `interactive` members take taps.
func plainStackScenario(
    name: String, seed: UInt64, people: Int, swipe: Double? = nil, tap: Double? = nil, interactive: Set<Int> = []
) -> Scenario {
    var content = ContentSpec()
    content.randomPerDay = 12
    content.pushFraction = 0.5
    let widgets = (0 ..< 5).map { w in
        WidgetSpec(
            id: "w\(w)", kind: "w\(w)", app: "app\(w)", interactive: interactive.contains(w),
            interest: InterestSpec(base: 0.4 - 0.07 * Double(w), peaks: [InterestPeak(hour: 7 + 3 * w, widthHours: 1, factor: 3)]),
            timeline: TimelineSpec(horizonMs: Milliseconds.hour, reload: .after(Milliseconds.hour)),
            content: content)
    }
    var model = PersonModel()
    model.environmentChangesPerDay = 0
    model.viewsPerDay = PerPersonRate(mean: 90, cv: 0)
    model.sessionsPerDay = PerPersonRate(mean: 15, cv: 0)
    model.donationProbability = 1
    if let swipe { model.swipeProbability = swipe }
    if let tap { model.tapProbability = tap }
    return Scenario(
        name: name, seed: seed, days: 4, people: people, start: CalendarDate(year: 2026, month: 1, day: 5),
        timeZone: "UTC", person: model, widgets: widgets, stack: StackSpec(members: Array(0 ..< 5)),
        budgets: [PolicyChoice(name: "daily_quota")], rankings: [PolicyChoice(name: "time_of_day")])
}
