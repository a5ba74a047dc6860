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
                let changes = changeTimes[i]
                // At most one push per change: written over the last person's list, made
                // that long, then cut to what was written.
                var filled = 0
                w.pushTimes[i].resize(to: changes.count, filler: 0)
                w.pushTimes[i].withUnsafeMutableBufferPointer { pushTimes in
                    Self.drawPushes(
                        of: changes, content: c, draws: stream(StreamProcess.pushes(i)), announcedWords: pushWords[i]
                    ) { _, arrival in
                        if arrival < end {
                            pushTimes[filled] = arrival
                            filled &+= 1
                        }
                    }
                }
                w.pushTimes[i].removeLast(changes.count - filled)
                // With a fixed latency the pushes keep the changes' order.
                if c.pushLatencySigma > 0 { w.pushTimes[i].sortUnlessSorted() }
            }
        }
    }

    /// The pushes of one widget's random changes `changes` (in time order), drawn from
    /// `pushDraws` as the world draws them (MODEL §2): per change, whether a push announces
    /// it (one uniform, below `push_fraction`), then its latency (always drawn). `body`
    /// gets each announced change and its push's arrival, in the changes' order.
    ///
    /// With a fixed latency the loop runs on a copy of a `taus2` stream's state, which it
    /// keeps in registers: the same uniforms in the same order. There, given
    /// `announcedWords` (`WordSteps.wordsBelow` of `push_fraction`), a push is announced
    /// when the uniform's word is below it, which is when the uniform is below the
    /// fraction.
    @inline(__always)
    static func drawPushes(
        of changes: [SimTime], content c: ContentSpec, draws pushDraws: RandomStream, announcedWords: UInt64? = nil,
        _ body: (_ change: SimTime, _ arrival: SimTime) -> Void
    ) {
        let fixedLatency = SimTime(Double(c.pushLatencyMedianMs).rounded())
        let p = c.pushFraction
        @inline(__always) func run(_ announced: () -> Bool, latency: () -> SimTime) {
            for t in changes {
                let announced = announced()
                let arrival = t + latency()
                if announced { body(t, arrival) }
            }
        }
        let copied = c.pushLatencySigma > 0 ? false : pushDraws.withTausUniforms { draws in
            if let words = announcedWords {
                run({ UInt64(draws.uniformWord()) < words }) { fixedLatency }
            } else {
                run({ draws.uniform() < p }) { fixedLatency }
            }
        } != nil
        if !copied {
            run({ pushDraws.uniform() < p }) {
                c.pushLatencySigma > 0
                    ? CheckedTime.milliseconds(
                        pushDraws.logNormal(median: Double(c.pushLatencyMedianMs), sigma: c.pushLatencySigma).rounded())
                    : fixedLatency
            }
        }
    }
}
