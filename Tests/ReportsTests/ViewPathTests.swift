import EngineTestSupport
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// The engine reads the built-in `time_of_day` ranking's order in place, without its
/// `rank`; any other policy, even one forwarding to it, goes through `rank`. Both ways
/// must count every view the same.
@Suite struct ViewPathTests {
    static let parameters: [(smoothing: Double, weekday: Double, feedback: Double)] = [
        (1, 0, 0), (1, 0.5, 1), (0.5, 2, 0), (2, 0, 3),
    ]

    @Test(arguments: 0 ..< 3)
    func timeOfDayInPlaceCountsAsThroughRank(stack: Int) throws {
        var s = RotationGovernorTests.stacks()[stack]
        s.person.swipeProbability = 0.5
        s.person.tapProbability = 0.5
        var withAdded = s
        withAdded.widgets[withAdded.stack.members[2]].addedAfterMs = 30 * Milliseconds.hour
        var withoutLimits = s
        withoutLimits.stack.rotationLimits = .none
        var views: Int64 = 0, missedByGovernor: Int64 = 0
        for scenario in [s, withAdded, withoutLimits] {
            for (smoothing, weekday, feedback) in Self.parameters {
                for person in 0 ..< scenario.people {
                    func make() -> TimeOfDayRanking {
                        TimeOfDayRanking(smoothing: smoothing, weekdayWeight: weekday, feedbackWeight: feedback)
                    }
                    let inPlace = try simulate(scenario, person: person, budget: UnlimitedBudget(), ranking: make())
                    let forwarded = RecordingRanking(make())
                    let throughRank = try simulate(scenario, person: person, budget: UnlimitedBudget(), ranking: forwarded)
                    #expect(!forwarded.tops.isEmpty)
                    #expect(inPlace.person == throughRank.person, "stack \(stack), person \(person), \(smoothing) \(weekday) \(feedback)")
                    #expect(inPlace.widget == throughRank.widget)
                    #expect(inPlace.missedViews == throughRank.missedViews)
                    for day in 0 ..< inPlace.days {
                        views += inPlace[day, .views]
                        for reason in [MissedViewReason.held, .coolingDown, .rotationQuota] {
                            missedByGovernor += inPlace[day, missed: reason]
                        }
                    }
                }
            }
        }
        #expect(views > 1000)
        #expect(missedByGovernor > 0, "the governor's reasons must be exercised")
    }
}
