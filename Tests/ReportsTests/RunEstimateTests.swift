import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimReports
import WidgetSimScenario

/// The size of a run estimated before it starts, against the run itself.
@Suite struct RunEstimateTests {
    @Test(arguments: [("tiny.yaml", 30, 10), ("default.yaml", 4, 7), ("study-budget.yaml", 4, 3)])
    func eventsAreEstimatedWithinAFactorOfOneAndAHalf(_ file: String, _ people: Int, _ days: Int) throws {
        var s = try loadScenario(file)
        s.people = people
        s.days = days
        s.warmupDays = 0
        s.replications = 1
        let estimate = RunEstimate([s], threads: 1)
        let events = Double(try run(s).events)
        #expect(estimate.events <= 1.5 * events && events <= 1.5 * estimate.events,
                "\(file): estimated \(estimate.events) events, ran \(events)")
        #expect(estimate.personDays == Double(people * days * s.policyPairs.count))
    }

    /// Peak memory as measured on release builds (`widgetsim run … --replications 1
    /// --warmup-days 0 --threads 1`): one person of tiny.yaml over 8000 days peaks at
    /// 452.8 MB without widget_days.csv, one of default.yaml over 600 days at 572.7 MB with it.
    @Test func memoryMatchesMeasuredPeaks() throws {
        for (file, days, measured, widgetDays) in [("tiny.yaml", 8000, 452.8, false), ("default.yaml", 600, 572.7, true)] {
            var s = try loadScenario(file)
            s.people = 1
            s.days = days
            s.warmupDays = 0
            s.replications = 1
            let mb = RunEstimate([s], threads: 1, widgetDays: widgetDays).bytes / 1_048_576
            #expect(mb <= 1.5 * measured && measured <= 1.5 * mb, "\(file): estimated \(mb) MB, measured \(measured) MB")
        }
    }

    /// The CPU time grows with each size as its parts do: twice the people or
    /// replications is twice the work of the views and widget-days; more days per person
    /// cost more per day (the person outgrows the caches); a policy pair fewer is a share
    /// less; threads share the work's wall time but not its CPU time, and each thread's
    /// memory holds a person.
    @Test func theCostsScaleWithTheRun() throws {
        var s = try tiny(people: 640, days: 30, replications: 1)
        let base = RunEstimate([s], threads: 1)
        func part(_ e: RunEstimate, _ name: String) throws -> Double { try #require(e.cpuParts.first { $0.name == name }).seconds }
        for (name, change) in [("people", { (s: inout Scenario) in s.people *= 2 }),
                               ("replications", { (s: inout Scenario) in s.replications *= 2 })] {
            var bigger = s
            change(&bigger)
            let e = RunEstimate([bigger], threads: 1)
            for p in ["worlds", "views", "widget-days", "outgrown caches"] {
                #expect(try abs(part(e, p) - 2 * part(base, p)) < 1e-9 * part(e, p), "\(name): \(p)")
            }
            #expect(e.events == 2 * base.events && e.personDays == 2 * base.personDays, "\(name)")
        }
        var longer = s
        longer.days *= 8
        let long = RunEstimate([longer], threads: 1)
        #expect(try part(long, "views") == 8 * part(base, "views"))
        #expect(try part(long, "worlds") == 8 * part(base, "worlds"))
        #expect(try part(long, "widget-days") == 8 * part(base, "widget-days"))
        #expect(try part(long, "outgrown caches") > 8 * part(base, "outgrown caches") + 0.5 * part(base, "widget-days"))
        #expect(long.bytes > 3 * base.bytes)

        var onePair = s
        onePair.budgets.removeLast()
        let fewer = RunEstimate([onePair], threads: 1)
        #expect(fewer.personDays == base.personDays / 2)
        #expect(try abs(part(fewer, "views") - part(base, "views") / 2) < 1e-12)
        #expect(fewer.bytes < base.bytes && fewer.cpuSeconds < base.cpuSeconds)
        // A person's world is drawn once, whatever the pairs that run on it.
        #expect(try part(fewer, "worlds") == part(base, "worlds"))

        let two = RunEstimate([s], threads: 2)
        #expect(two.cpuSeconds == base.cpuSeconds)
        #expect(abs(two.seconds - RunEstimate.Cost.startSeconds - (base.cpuSeconds - RunEstimate.Cost.startSeconds) / 2) < 1e-9)
        // Each thread holds a person: more memory, but not twice the totals and the program.
        #expect(two.bytes > base.bytes && two.bytes < 2 * base.bytes)
        // No more threads run than there are blocks.
        s.people = 1
        #expect(RunEstimate([s], threads: 8).threads == 1)

        // widget_days.csv's rows are held for the person until written.
        s.days = 3000
        #expect(RunEstimate([s], threads: 1, widgetDays: false).bytes < RunEstimate([s], threads: 1).bytes)
        // A shard is its share of the people.
        s.people = 640
        s.days = 30
        #expect(RunEstimate([s], threads: 1, shards: 4).events == base.events / 4)
    }

    /// A person's world is priced by its candidate sessions, drawn once per person-day
    /// whatever the pairs: tiny.yaml's 8 sessions a day are drawn 4 times as often (the
    /// calendar's interest bursts 4-fold around its changes) and thinned; without bursts,
    /// once.
    @Test func worldsCostPerCandidateSessionOncePerPerson() throws {
        var s = try tiny(people: 10, days: 3, replications: 2)
        func worlds(_ s: Scenario) throws -> Double { try #require(RunEstimate([s], threads: 1).cpuParts.first { $0.name == "worlds" }).seconds }
        let personDays: Double = 10 * 3 * 2
        let cost = RunEstimate.Cost.worldSessionSeconds
        #expect(try abs(worlds(s) - personDays * 8 * 4 * cost) < 1e-12)
        s.budgets.removeLast()
        s.rankings.removeLast()
        #expect(try abs(worlds(s) - personDays * 8 * 4 * cost) < 1e-12)
        for i in s.widgets.indices {
            s.widgets[i].interest.afterPush = nil
            s.widgets[i].interest.aroundScheduled = nil
        }
        #expect(try abs(worlds(s) - personDays * 8 * cost) < 1e-12)
    }

    /// Views cost per member of the stack ranked at them.
    @Test func viewsCostPerStackMember() throws {
        var s = try loadScenario("tiny.yaml")
        let three = RunEstimate([s], threads: 1).cpuParts.first { $0.name == "views" }!.seconds
        s.stack.members.removeLast()
        let two = RunEstimate([s], threads: 1).cpuParts.first { $0.name == "views" }!.seconds
        #expect(abs(two - three * 2 / 3) < 1e-12 * three, "\(two) \(three)")
    }

    /// tiny.yaml at another size.
    func tiny(people: Int, days: Int, replications: Int) throws -> Scenario {
        var s = try loadScenario("tiny.yaml")
        s.people = people
        s.days = days
        s.replications = replications
        return s
    }

    @Test func aRunBeyondTheMachineOrADayIsRefused() throws {
        var s = try tiny(people: 10_000_000, days: 100_000, replications: 10_000)
        let estimate = RunEstimate([s], threads: 2)
        let why = try #require(estimate.refusal(machineBytes: 1e15))
        #expect(why.hasPrefix("it would run for about "), "\(why)")
        #expect(why.hasSuffix("on 2 threads, more than a day"))
        #expect(estimate.refusal(machineBytes: 1e6)?.contains("of memory on 2 threads, more than this machine's") == true)
        s.people = 3
        s.days = 2
        s.replications = 1
        #expect(RunEstimate([s], threads: 2).refusal() == nil)
    }
}
