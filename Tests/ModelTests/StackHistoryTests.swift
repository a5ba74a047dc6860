import Testing
import WidgetSimKernel
@testable import WidgetSimModel

// The donation counts and times of `StackHistory`: written in place by the engine and
// read by policies as arrays, which must always hold what was recorded so far, and keep
// what they held once read.

@Suite struct StackHistoryTests {
    /// Donations at members, hours and weekdays from a fixed sequence, tallied beside the
    /// history: every array read after each donation equals the tally.
    @Test func donationArraysFollowEveryDonation() {
        let members = 4
        let history = stackHistory(members: members)
        var donations = Array(repeating: 0, count: members)
        var byHour = Array(repeating: 0, count: members * 24)
        var byWeekdayHour = Array(repeating: 0, count: members * 168)
        var last = [SimTime?](repeating: nil, count: members)
        var state: UInt64 = 12345
        for k in 0 ..< 300 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let m = Int(state >> 33) % members
            let hour = Int(state >> 40) % 24
            let weekday = Int(state >> 50) % 7
            let t = SimTime(k) * rkMinute
            history.recordDonation(member: m, at: t, hour: hour, weekday: weekday)
            donations[m] += 1
            byHour[m * 24 + hour] += 1
            byWeekdayHour[m * 168 + weekday * 24 + hour] += 1
            last[m] = t
            #expect(history.donations == donations)
            #expect(history.donationsByHour == byHour)
            #expect(history.donationsByWeekdayHour == byWeekdayHour)
            #expect(history.lastDonation == last)
        }
        #expect(donations.reduce(0, +) == 300)
        #expect(donations.allSatisfy { $0 > 0 })
        // The engine's own readers see the same counts.
        #expect((0 ..< members).map { history.donationsFlat[$0] } == donations)
        #expect((0 ..< members * 24).map { history.donationsByHourFlat[$0] } == byHour)
    }

    /// An array read before a donation keeps its values; the next read has the donation.
    @Test func anArrayReadKeepsItsValues() {
        let history = stackHistory(members: 3)
        history.recordDonation(member: 1, at: 10, hour: 8, weekday: 2)
        let before = history.donations
        let beforeByHour = history.donationsByHour
        let beforeLast = history.lastDonation
        history.recordDonation(member: 1, at: 20, hour: 8, weekday: 2)
        history.recordDonation(member: 2, at: 30, hour: 9, weekday: 2)
        #expect(before == [0, 1, 0])
        #expect(beforeByHour[1 * 24 + 8] == 1 && beforeByHour.reduce(0, +) == 1)
        #expect(beforeLast == [nil, 10, nil])
        #expect(history.donations == [0, 2, 1])
        #expect(history.donationsByHour[1 * 24 + 8] == 2 && history.donationsByHour[2 * 24 + 9] == 1)
        #expect(history.lastDonation == [nil, 20, 30])
        #expect(history.donationsByWeekdayHour[1 * 168 + 2 * 24 + 8] == 2)
    }

    /// A reset for the next person clears the counts, sized for its members.
    @Test func resetClearsTheCounts() {
        let history = stackHistory(members: 2)
        history.recordDonation(member: 0, at: 5, hour: 3, weekday: 0)
        #expect(history.donations == [1, 0])
        history.reset(members: 3)
        #expect(history.donations == [0, 0, 0])
        #expect(history.donationsByHour == Array(repeating: 0, count: 72))
        #expect(history.donationsByWeekdayHour.count == 3 * 168)
        #expect(history.lastDonation == [nil, nil, nil])
        history.recordDonation(member: 2, at: 7, hour: 23, weekday: 6)
        #expect(history.donations == [0, 0, 1])
        #expect(history.donationsByWeekdayHour[2 * 168 + 6 * 24 + 23] == 1)
    }

    /// Swipes and taps are set back to 0 by the reset after a run that counted any (a
    /// run without them leaves nothing to clear), and sized for the next person's members.
    @Test func resetClearsSwipesAndTaps() {
        let history = stackHistory(members: 2)
        for (swiped, tapped) in [(1, nil), (nil, 0)] as [(Int?, Int?)] {
            history.reset(members: 2)
            history.recordView(top: 0, swipedTo: swiped, tapped: tapped, hour: 5, weekday: 2)
            #expect(history.swipesToByHour.reduce(0, +) + history.taps.reduce(0, +) == 1)
            history.reset(members: 2)
            #expect(history.swipesToByHour == Array(repeating: 0, count: 48))
            #expect(history.swipesToByWeekdayHour == Array(repeating: 0, count: 2 * 168))
            #expect(history.taps == [0, 0])
        }
        history.reset(members: 3)
        #expect(history.swipesToByHour.count == 72 && history.swipesToByWeekdayHour.count == 3 * 168)
        #expect(history.taps == [0, 0, 0])
        history.recordView(top: 0, swipedTo: 2, tapped: 2, hour: 23, weekday: 6)
        #expect(history.swipesToByWeekdayHour[2 * 168 + 6 * 24 + 23] == 1 && history.taps == [0, 0, 1])
    }
}
