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

    /// Memory per thread as measured on release builds: one person of tiny.yaml over 3000
    /// days peaks at 182 MB, one of default.yaml over 1000 days at 1304 MB.
    @Test func memoryMatchesMeasuredPeaks() throws {
        for (file, days, measured) in [("tiny.yaml", 3000, 182.0), ("default.yaml", 1000, 1304.0)] {
            var s = try loadScenario(file)
            s.people = 1
            s.days = days
            s.warmupDays = 0
            let mb = RunEstimate([s], threads: 1).bytes / 1_048_576
            #expect(mb <= 1.5 * measured && measured <= 1.5 * mb, "\(file): estimated \(mb) MB, measured \(measured) MB")
        }
    }

    @Test func aRunBeyondTheMachineOrADayIsRefused() throws {
        var s = try loadScenario("tiny.yaml")
        s.people = 10_000_000
        s.days = 100_000
        s.replications = 10_000
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
