import Foundation
import WidgetSimKernel
import WidgetSimSampling

extension WorldBuilder {
    /// StandBy periods (see `StandByModel`): for every local night, the one before the
    /// start included (the person may be asleep at the start), always the same draws
    /// (start offset, length) whether or not the period falls in the run.
    func buildStandBy(_ w: PersonWorld, end: SimTime) {
        w.standByStarts.removeAll(keepingCapacity: true)
        w.standByEnds.removeAll(keepingCapacity: true)
        guard let model = scenario.person.standBy else { return }
        let draws = stream(StreamProcess.standBy)
        let clock = w.clock
        var previousEnd: SimTime = 0
        for day in -1 ..< scenario.days {
            // The local midnight nearest the run's day start (they differ after a DST
            // change or during a trip).
            let dayStart = SimTime(day) * Milliseconds.day
            let local = clock.localMs(dayStart)
            var sinceMidnight = local - LocalClock.floorDiv(local, Milliseconds.day) * Milliseconds.day
            if sinceMidnight > Milliseconds.day / 2 { sinceMidnight -= Milliseconds.day }
            let midnight = dayStart - sinceMidnight
            let shift = draws.uniform()
            let length = model.sigma > 0
                ? draws.logNormal(median: Double(model.medianMs), sigma: model.sigma)
                : Double(model.medianMs)
            let nominal = midnight + SimTime((model.startHour * Double(Milliseconds.hour)).rounded())
                - model.spreadMs / 2 + SimTime((shift * Double(model.spreadMs)).rounded(.down))
            let start = max(previousEnd, nominal)
            let stop = min(end, nominal + max(1, CheckedTime.milliseconds(length.rounded())))
            guard start < stop else { continue }
            if let last = w.standByEnds.last, last >= start {
                w.standByEnds[w.standByEnds.count - 1] = stop  // runs into the next night's: one period
            } else {
                w.standByStarts.append(start)
                w.standByEnds.append(stop)
            }
            previousEnd = stop
        }
    }

    /// Audio or navigation sessions of every app that has them (`AudioSessionModel`):
    /// Poisson starts from the declaring widget's own stream, then one length draw each.
    func buildAudioSessions(_ w: PersonWorld, end: SimTime) {
        w.audioStarts.removeAll(keepingCapacity: true)
        w.audioEnds.removeAll(keepingCapacity: true)
        var starts: [SimTime] = []
        for (i, spec) in scenario.widgets.enumerated() {
            guard let model = spec.audioSessions, model.perDay > 0 else { continue }
            let r = stream(StreamProcess.audioSessions(i))
            starts.removeAll(keepingCapacity: true)
            w.hours.poissonArrivals(
                r, from: 0, to: end, hourlyRate: LocalHourRate.hourlyRate(meanPerDay: model.perDay, hourWeights: model.profile),
                into: &starts)
            for t in starts {
                let length = model.sigma > 0
                    ? r.logNormal(median: Double(model.medianMs), sigma: model.sigma)
                    : Double(model.medianMs)
                let stop = t + max(1, CheckedTime.milliseconds(length.rounded()))
                w.audioStarts.append(WidgetMoment(time: t, widget: Int32(i)))
                if stop < end { w.audioEnds.append(WidgetMoment(time: stop, widget: Int32(i))) }
            }
        }
        w.audioStarts.sort()
        w.audioEnds.sort()
    }
}
