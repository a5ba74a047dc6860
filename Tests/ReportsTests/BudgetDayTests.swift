import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// Budget days that follow the person's day (MODEL §4; Apple: WidgetKit "tunes the
/// 24-hour window to the user's daily usage pattern").
@Suite struct BudgetDayTests {
    /// ios_like and a timeline asking every 15 minutes: the widget is viewed ~80 times a
    /// day between 07:00 and 23:00, so its budget is about 44 a day, fewer than the 64
    /// requests of the waking day. Released with the views expected, it gets charged
    /// reloads in every waking hour; with midnight days it spends them by about 11:00.
    @Test func aViewedWidgetGetsChargedReloadsInEveryWakingHour() throws {
        let s = scenario(
            people: 4, days: 5,
            widgets: [widget("news", base: 1, reload: .after(15 * Milliseconds.minute))],
            budgets: [
                PolicyChoice(name: "ios_like"),
                PolicyChoice(label: "midnight", name: "ios_like", parameters: PolicyParameters(["budget_day": .text("midnight")])),
            ]) { p in
                p.viewProfile = HourProfile.waking
                p.sessionsPerDay = PerPersonRate(mean: 0)
            }
        for person in 0 ..< 4 {
            var emptyHours = [0, 0]
            for (k, choice) in s.budgets.enumerated() {
                let spy = RecordingBudget(BudgetPolicies.named("ios_like")!.make(choice.parameters))
                _ = try simulate(s, person: person, budget: spy, ranking: StaticRanking())
                for day in 2 ..< 5 {
                    for hour in 7 ..< 23 {
                        let from = Int64(day) * Milliseconds.day + Int64(hour) * Milliseconds.hour
                        if !spy.reloads.contains(where: { $0.charged && $0.time >= from && $0.time < from + Milliseconds.hour }) {
                            emptyHours[k] += 1
                        }
                    }
                }
            }
            #expect(emptyHours[0] == 0, "person \(person): \(emptyHours[0]) waking hours without a charged reload")
            #expect(emptyHours[1] > 20, "midnight days must leave the evening without reloads")
        }
    }
}
