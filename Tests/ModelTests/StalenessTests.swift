import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// `Staleness` against the direct count: at every view of the stack, each stale
/// member's day counter goes up by one, whether the member is counted by spans
/// (`spanned`) or checked at the view.
@Suite struct StalenessTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func membersCountWhatEachViewWouldCount(seed: UInt64) {
        var random = BudgetSplitMix64(seed: seed)
        let days = 6, widgets = 4
        // Members 0–2 are counted by spans, member 3 at each view.
        let facts = FlatBuffer((0 ..< widgets).map { w in
            InstanceFacts(
                horizon: Milliseconds.hour, entrySpacing: 0, periodic: 0, cost: 1000, reloadPolicy: .never,
                hasRelevance: false, hasPredictable: false, spanned: w < 3)
        })
        let instances = FlatBuffer(count: widgets, repeating: InstanceState())
        let counts = RunningCounts(days: days, widgets: widgets)
        let staleness = Staleness(days: days, counts: counts, instances: instances, facts: facts, members: Array(0 ..< widgets))
        #expect(staleness.checkedMembers == [3])
        var expected = Array(repeating: 0 as Int64, count: days * widgets)
        var stale = Array(repeating: false, count: widgets)
        staleness.begin(scheduled: Array(repeating: [], count: widgets))
        // Events in time order over the days, some days with no view at all.
        var t: SimTime = 0
        for day in 0 ..< days where day != 2 {
            t = SimTime(day) * Milliseconds.day
            staleness.startDay(day)
            for _ in 0 ..< 20 + Int(random.next() % 40) {
                t += 1
                let w = Int(random.next() % UInt64(widgets))
                switch random.next() % 4 {
                case 0:
                    staleness.contentChanged(w, at: t, day: day)
                    stale[w] = true
                case 1:
                    #expect(staleness.reloaded(w, day: day, row: counts.day(day).row(widget: w)) == stale[w])
                    stale[w] = false
                default:
                    staleness.countMembers(at: t, day: day, plain: false)
                    for x in 0 ..< widgets where stale[x] { expected[day * widgets + x] += 1 }
                }
                #expect((0 ..< widgets).allSatisfy { (staleness.staleSince($0, at: t) != nil) == stale[$0] })
            }
        }
        staleness.finish(lastDay: days - 1)
        let got = (0 ..< days * widgets).map { counts[$0 / widgets, widget: $0 % widgets, .staleMemberViews] }
        #expect(got == expected)
        #expect(expected.enumerated().filter { $0.offset % widgets < 3 }.map(\.element).reduce(0, +) > 20)
        #expect(expected.enumerated().filter { $0.offset % widgets == 3 }.map(\.element).reduce(0, +) > 5)
    }

    /// A view of an instance shown on screen: counted stale from the first change it
    /// does not show, with the time since; a reload makes it fresh.
    @Test func shownViewsCountStaleViewsAndTheirAge() {
        let facts = FlatBuffer([InstanceFacts(
            horizon: Milliseconds.hour, entrySpacing: 0, periodic: 0, cost: 1000, reloadPolicy: .never,
            hasRelevance: false, hasPredictable: false, spanned: false)])
        let counts = RunningCounts(days: 1, widgets: 1)
        let staleness = Staleness(
            days: 1, counts: counts, instances: FlatBuffer(count: 1, repeating: InstanceState()), facts: facts, members: [])
        staleness.begin(scheduled: [[]])
        #expect(!staleness.countShown(0, at: 5, today: counts.day(0)))
        staleness.contentChanged(0, at: 10, day: 0)
        staleness.contentChanged(0, at: 20, day: 0)
        #expect(staleness.countShown(0, at: 30, today: counts.day(0)))
        #expect(staleness.countShown(0, at: 40, today: counts.day(0)))
        #expect(staleness.reloaded(0, day: 0, row: counts.day(0).row(widget: 0)))
        #expect(!staleness.countShown(0, at: 50, today: counts.day(0)))
        staleness.finish(lastDay: 0)
        #expect(counts[0, widget: 0, .staleViews] == 2)
        #expect(counts[0, widget: 0, .stalenessMs] == 20 + 30)
    }
}
