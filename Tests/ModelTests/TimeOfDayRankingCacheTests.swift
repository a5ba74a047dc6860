import Testing
@testable import WidgetSimModel
import WidgetSimSampling

/// `time_of_day` keeps its rankings (one per hour with weekday weight 0) while the counts
/// they come from stay the same; every ranking it gives must still be the one its scores
/// give now, whatever happened in between: donations and swipes at other hours, other
/// weekdays, another history, a history reset, a new person.
@Suite struct TimeOfDayRankingCacheTests {
    @Test(arguments: [(1.0, 0.0, 0.0), (1, 0.5, 1), (2, 0, 3), (0.5, 2, 0), (0, 0, 1), (3, 0, -1)])
    func keptRankingsAreTheScoresOrder(smoothing: Double, weekdayWeight: Double, feedbackWeight: Double) {
        let members = 4
        let p = TimeOfDayRanking(smoothing: smoothing, weekdayWeight: weekdayWeight, feedbackWeight: feedbackWeight)
        p.begin(members: members, stream: RandomStream(kind: .taus2, seed: 1))
        let histories = [stackHistory(members: members), stackHistory(members: members)]
        let events = RandomStream(kind: .taus2, seed: 5)
        var checked = 0, kept = 0
        for step in 0 ..< 4000 {
            let h = histories[events.bernoulli(0.1) ? 1 : 0]
            // Few hours and weekdays, so that kept rankings come back often.
            let hour = 6 + events.uniformInt(4), weekday = events.uniformInt(2)
            switch events.uniformInt(10) {
            case 0, 1:
                donateTo(h, p, member: events.uniformInt(members), at: Int64(step), hour: hour, weekday: weekday)
            case 2:
                h.recordView(top: 0, swipedTo: events.uniformInt(members), tapped: nil, hour: hour, weekday: weekday)
            case 3 where step % 500 == 3:
                h.reset(members: members)
            case 4 where step % 700 == 4:
                p.begin(members: members, stream: RandomStream(kind: .taus2, seed: 1))
            default:
                let generation = p.generation
                let scores = (0 ..< members).map { p.score($0, hour: hour, weekday: weekday, history: h) }
                let inPlace = p.ranked(hour: hour, weekday: weekday, history: h)
                let order = Array(UnsafeBufferPointer(start: inPlace, count: members))
                #expect(order == referenceOrder(scores), "step \(step)")
                #expect(rankOnce(p, h, time: Int64(step), hour: hour, weekday: weekday) == order)
                if p.generation == generation { kept += 1 }
                checked += 1
            }
        }
        #expect(checked > 2000)
        #expect(kept > checked / 20, "kept rankings must be exercised")
    }

    /// A new person keeps the memory of the last one's rankings: each hour's first ranking
    /// is the scores' order whatever the last person left there, with the same stack or
    /// one of another size.
    @Test(arguments: [5, 3, 6])
    func aNewPersonRanksAfresh(nextMembers: Int) {
        let p = TimeOfDayRanking(smoothing: 1, weekdayWeight: 0, feedbackWeight: 0)
        p.begin(members: 5, stream: RandomStream(kind: .taus2, seed: 1))
        let first = stackHistory(members: 5)
        // The last person ranks member 4 first at every hour it ranks.
        for hour in 7 ..< 12 {
            for _ in 0 ..< 3 { donateTo(first, p, member: 4, at: Int64(hour), hour: hour, weekday: 0) }
            _ = p.ranked(hour: hour, weekday: 0, history: first)
        }
        p.begin(members: nextMembers, stream: RandomStream(kind: .taus2, seed: 1))
        let next = stackHistory(members: nextMembers)
        donateTo(next, p, member: 1, at: 100, hour: 9, weekday: 0)
        for hour in 7 ..< 12 {
            let scores = (0 ..< nextMembers).map { p.score($0, hour: hour, weekday: 0, history: next) }
            let order = Array(UnsafeBufferPointer(start: p.ranked(hour: hour, weekday: 0, history: next), count: nextMembers))
            #expect(order == referenceOrder(scores), "hour \(hour)")
        }
    }
}
