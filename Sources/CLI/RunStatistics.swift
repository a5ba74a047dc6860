import Dispatch
import Foundation
import WidgetSimReports

/// The run's cost, as one line: events, the whole run's wall time (from the start of
/// the command to its last report, plus the compute time recorded by blocks that
/// earlier runs finished), rates and peak memory; and a line before it when some
/// blocks came from earlier runs.
struct RunStatistics {
    let events: Int64
    let personDays: Int
    let seconds: Double
    let peakMB: Double
    let resumedBlocks: Int
    let recordedSeconds: Double

    init(_ r: StudyResult, since start: UInt64) {
        events = r.events
        personDays = r.personDays
        resumedBlocks = r.results.first?.resumedBlocks ?? 0
        recordedSeconds = r.results.first?.recordedSeconds ?? 0
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 + recordedSeconds
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        peakMB = Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }

    var resumedLine: String? {
        guard resumedBlocks > 0 else { return nil }
        return String(format: "resumed: %d blocks were finished by earlier runs, which recorded %.3f s of compute for them (included below)",
                      resumedBlocks, recordedSeconds)
    }

    var line: String {
        String(format: "simulated %lld events, %d person-days in %.3f s: %.0f events/s, %.0f person-days/s; peak memory %.1f MB",
               events, personDays, seconds, Double(events) / max(seconds, 1e-9), Double(personDays) / max(seconds, 1e-9), peakMB)
    }

    func print(to say: (String) -> Void = { Swift.print($0) }) {
        if let resumedLine { say(resumedLine) }
        say(line)
    }
}
