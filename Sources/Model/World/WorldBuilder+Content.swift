import Foundation
import WidgetSimKernel
import WidgetSimSampling

extension WorldBuilder {
    /// Each widget's scheduled changes, random content changes and their pushes
    /// (MODEL §2): Poisson arrivals in the local hours, then per change whether a push
    /// announces it and its latency.
    func buildContent(_ w: PersonWorld, end: SimTime) {
        let s = scenario
        if w.scheduled.count != s.widgets.count {
            w.scheduled = Array(repeating: [], count: s.widgets.count)
            w.pushTimes = Array(repeating: [], count: s.widgets.count)
        }
        for (i, spec) in s.widgets.enumerated() {
            let c = spec.content
            w.scheduled[i].removeAll(keepingCapacity: true)
            if c.scheduledPerDay > 0 {
                w.hours.poissonArrivals(
                    stream(StreamProcess.scheduled(i)), from: 0, to: end, hourlyRate: contentRates[i].scheduled,
                    into: &w.scheduled[i])
            }
            changeTimes[i].removeAll(keepingCapacity: true)
            if c.randomPerDay <= 0 {
                w.pushTimes[i].removeAll(keepingCapacity: true)
            } else {
                w.hours.poissonArrivals(
                    stream(StreamProcess.randomChanges(i)), from: 0, to: end, hourlyRate: contentRates[i].random,
                    into: &changeTimes[i])
                let pushDraws = stream(StreamProcess.pushes(i))
                let fixedLatency = SimTime(Double(c.pushLatencyMedianMs).rounded())
                let changes = changeTimes[i]
                let p = c.pushFraction
                // At most one push per change: written over the last person's list, made
                // that long, then cut to what was written.
                var filled = 0
                w.pushTimes[i].resize(to: changes.count, filler: 0)
                w.pushTimes[i].withUnsafeMutableBufferPointer { pushTimes in
                    // The loop over the changes, for the stream itself or for a copy of its
                    // `taus2` state (which the loop keeps in registers); `latency` draws a
                    // push's latency from the stream, or gives the fixed one.
                    func fill(_ draws: inout some UniformSource, latency: () -> SimTime) {
                        var n = 0
                        for t in changes {
                            // Draw always: whether announced (`bernoulli`), and the latency.
                            let announced = draws.uniform() < p
                            let arrival = t + latency()
                            if announced && arrival < end {
                                pushTimes[n] = arrival
                                n += 1
                            }
                        }
                        filled = n
                    }
                    let copied = c.pushLatencySigma > 0 ? false
                        : pushDraws.withTausUniforms { fill(&$0) { fixedLatency } } != nil
                    if !copied {
                        var draws = pushDraws
                        fill(&draws) {
                            c.pushLatencySigma > 0
                                ? CheckedTime.milliseconds(
                                    pushDraws.logNormal(median: Double(c.pushLatencyMedianMs), sigma: c.pushLatencySigma).rounded())
                                : fixedLatency
                        }
                    }
                }
                w.pushTimes[i].removeLast(changes.count - filled)
                // With a fixed latency the pushes keep the changes' order.
                if c.pushLatencySigma > 0 { w.pushTimes[i].sortUnlessSorted() }
            }
        }
    }
}
