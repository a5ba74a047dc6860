import Foundation
import WidgetSimKernel
import WidgetSimSampling

// The classic hold model on the future-event list: N events pending; popping one
// schedules one new event after an exponential delay drawn from GSL, so the queue stays
// at N. Prints events/s per N.
//
//   swift run -c release widgetsim-bench [--events E] [--sizes 10,1000,...] [--generator taus2]

func option(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    print("""
    USAGE: widgetsim-bench [--events E] [--sizes N,N,...] [--generator NAME]

    Runs the hold model on the kernel's future-event list: N events pending, each
    popped event schedules one new event after an exponential delay (GSL) with mean
    1000 ms.
    Prints events/s for each N. Build in release mode: swift run -c release widgetsim-bench

      --events E      events handled per size after warm-up (default 20000000)
      --sizes LIST    pending-event counts (default 10,1000,100000,1000000)
      --generator G   GSL generator: \(GeneratorKind.allCases.map(\.rawValue).joined(separator: ", ")) (default taus2)
    """)
    exit(0)
}

let events = Int(option("--events") ?? "") ?? 20_000_000
let sizes = (option("--sizes") ?? "10,1000,100000,1000000").split(separator: ",").compactMap { Int($0) }
guard let generator = GeneratorKind(rawValue: option("--generator") ?? "taus2") else {
    FileHandle.standardError.write("unknown generator; expected one of \(GeneratorKind.allCases.map(\.rawValue))\n".data(using: .utf8)!)
    exit(2)
}

#if DEBUG
print("note: this is a debug build; measure with -c release")
#endif
print("hold model, generator \(generator.rawValue), \(events) events per size")
print("pending_events,events,seconds,events_per_second")
/// Runs `events` steps of the hold model with `n` pending events; returns seconds.
func measure(pending n: Int, events: Int, generator: GeneratorKind) -> Double {
    let stream = RandomStream(kind: generator, seed: StreamKey(seed: 1, replication: 0, person: 0, process: UInt64(n)).gslSeed)
    var queue = EventQueue<UInt32>(reservingCapacity: n + 1)
    for i in 0 ..< n {
        queue.schedule(at: Int64(stream.exponential(mean: 1000)), rank: 0, UInt32(truncatingIfNeeded: i))
    }
    /// One hold step: the next event, and its successor after an exponential delay.
    func hold() {
        guard let (time, payload) = queue.popNext(before: .max) else { return }
        queue.schedule(at: time + Int64(stream.exponential(mean: 1000)), rank: 0, payload)
    }
    // Warm-up: let the queue reach its steady shape.
    let warmup = min(events / 10, 10 * n)
    for _ in 0 ..< warmup { hold() }
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0 ..< events { hold() }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Seconds for `events` exponential draws alone: the part of each hold step that is
/// sampling, not the kernel.
func measureDraws(events: Int, generator: GeneratorKind) -> Double {
    let stream = RandomStream(kind: generator, seed: 7)
    var sum: Int64 = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0 ..< events { sum &+= Int64(stream.exponential(mean: 1000)) }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    if sum == 42 { print("") }  // keeps the loop from being optimised away
    return seconds
}

let drawSeconds = measureDraws(events: events, generator: generator)
print("draws-only,\(events),\(String(format: "%.3f", drawSeconds)),\(String(format: "%.0f", Double(events) / drawSeconds))")
for n in sizes {
    let seconds = measure(pending: n, events: events, generator: generator)
    print("\(n),\(events),\(String(format: "%.3f", seconds)),\(String(format: "%.0f", Double(events) / seconds))")
}
