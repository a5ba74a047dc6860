import Foundation
import WidgetSimKernel
import WidgetSimSampling

extension WorldBuilder {
    /// App sessions (MODEL §2): widget w's sessions are a Poisson process of rate
    /// r(t) · λ_w(t) / Σ_v λ̄_v(t), where r is `sessions_per_day` spread by
    /// `session_profile`, λ_w(t) is w's interest with its bursts and λ̄_v(t) is v's
    /// interest without bursts. Without bursts the rates sum to r(t), so
    /// `sessions_per_day` is the day's mean; a burst of one widget adds sessions of
    /// that widget and takes none from the others.
    ///
    /// The widgets' processes are generated together, as their superposition: one
    /// Poisson stream of candidates at rate F · r(t), F ≥ every burst factor, each kept
    /// with probability Σλ(t) / (F · Σλ̄(t)) (thinning) and given to widget w with
    /// probability λ_w(t) / Σλ(t). By the colouring theorem of Poisson processes this is
    /// exactly the law of independent per-widget processes. When no widget bursts, F = 1
    /// and every candidate is kept with no draw.
    func buildSessions(_ w: PersonWorld, end: SimTime, sessionsPerDay: Double) {
        let s = scenario
        withArrivalTimes(
            w, of: StreamProcess.sessions, to: end,
            hourlyRate: hourlyRate(
                &lastSessionRate, meanPerDay: sessionsPerDay * sessionBurstBound, hourWeights: s.person.sessionProfile)
        ) { times in
            var lambda = self.lambda
            self.lambda = []
            defer { self.lambda = lambda }
            let details = stream(StreamProcess.sessionDetails)
            let thinning = stream(StreamProcess.sessionThinning)
            let configurations = stream(StreamProcess.donatedConfigurations)
            let thin = bursts.contains(true)
            // A session's length in whole ms (at least 1), when it is not drawn.
            let fixedDuration = max(1, CheckedTime.milliseconds(Double(s.person.sessionMedianMs).rounded()))
            if !thin && sessionsByHourInOwnLoop {
                buildSessionsByHour(w, times: times, end: end, fixedDuration: fixedDuration)
                return
            }
            // The local hour and weekday of each candidate: its span of `LocalHours` (span
            // `spanIndex`). At most one session and one session end per candidate: written
            // over the last person's lists (moved out of the world and back), made that
            // long, then cut to what was written.
            let spans = w.hours.spans
            var spanIndex = 0, sessionsFilled = 0, endsFilled = 0
            var records = w.sessions, sessionEnds = w.sessionEnds
            w.sessions = []
            w.sessionEnds = []
            records.resize(to: times.count, filler: SessionRecord.blank)
            sessionEnds.resize(to: times.count, filler: WidgetMoment(time: 0, widget: 0))
            records.withUnsafeMutableBufferPointer { sessions in
                sessionEnds.withUnsafeMutableBufferPointer { ends in
                    for t in times {
                        while spans[spanIndex].end <= t { spanIndex += 1 }
                        let span = spans[spanIndex]
                        let total = interest(w, at: t, hour: Int(span.hour), weekday: Int(span.weekday), into: &lambda)
                        // Draw always: acceptance (when widgets burst), the widget, the donation,
                        // the length, the donated configuration.
                        var keep = total > 0
                        if thin {
                            let calm = hourWeekdayTotals[Int(span.weekday) * 24 + Int(span.hour)]
                            keep = keep && thinning.uniform() * sessionBurstBound * calm < total
                        }
                        let u = details.uniform() * total
                        let donates = details.uniform() < s.person.donationProbability
                        let duration = s.person.sessionSigma > 0
                            ? max(1, CheckedTime.milliseconds(
                                details.logNormal(median: Double(s.person.sessionMedianMs), sigma: s.person.sessionSigma).rounded()))
                            : fixedDuration
                        let c = configurations.uniform()
                        guard keep else { continue }  // no widget of interest at this hour, or thinned out
                        let widget = lambda.withUnsafeBufferPointer { RandomStream.inverse(u, weights: $0) }
                        let stop = t + duration
                        sessions[sessionsFilled] = SessionRecord(
                            start: t, end: stop, widget: Int32(widget), donates: donates,
                            donatedInstance: Int32(donations.target(of: widget, uniform: c)),
                            hour: span.hour, weekday: span.weekday)
                        sessionsFilled += 1
                        if stop < end {
                            ends[endsFilled] = WidgetMoment(time: stop, widget: Int32(widget))
                            endsFilled += 1
                        }
                    }
                }
            }
            records.removeLast(times.count - sessionsFilled)
            sessionEnds.removeLast(times.count - endsFilled)
            w.sessions = records
            sessionEnds.sortUnlessSorted()
            w.sessionEnds = sessionEnds
        }
    }

    /// The sessions of the candidate times `times` when no widget's interest bursts: the
    /// general loop of `buildSessions` without thinning, span by span of the local hours
    /// (λ is the span's row of `hourWeekdayInterest`), so that its state fits in
    /// registers. The same draws in the same order and the same records, as
    /// `sessionsByHourInOwnLoop` lets tests check. With a fixed length and `taus2`
    /// streams, a session's widget and donation come from the details stream's words
    /// (`sessionSteps`, `donationWords`).
    @inline(never)
    func buildSessionsByHour(_ w: PersonWorld, times: [SimTime], end: SimTime, fixedDuration: SimTime) {
        let person = scenario.person
        let details = stream(StreamProcess.sessionDetails)
        let configurations = stream(StreamProcess.donatedConfigurations)
        let donationProbability = person.donationProbability
        let sigma = person.sessionSigma, median = Double(person.sessionMedianMs)
        let count = times.count, widgets = widgetCount
        precondition(widgets <= Int(Int32.max), "more widgets than a session record numbers")
        // At most one session and one session end per candidate: each written once, over
        // the last person's lists (moved out of the world and back), made that long, then
        // cut to what was written.
        var records = w.sessions, sessionEnds = w.sessionEnds
        w.sessions = []
        w.sessionEnds = []
        records.resize(to: count, filler: SessionRecord.blank)
        sessionEnds.resize(to: count, filler: WidgetMoment(time: 0, widget: 0))
        var sessionsFilled = 0, endsFilled = 0
        records.withUnsafeMutableBufferPointer { sessions in
            sessionEnds.withUnsafeMutableBufferPointer { ends in
                times.withUnsafeBufferPointer { times in
                    w.hours.spans.withUnsafeBufferPointer { spans in
                        hourWeekdayInterest.withUnsafeBufferPointer { table in
                            hourWeekdayTotals.withUnsafeBufferPointer { totals in
                                // The loop over the candidates, for the configurations stream itself or
                                // for a copy of its `taus2` state (which the loop keeps in registers);
                                // `widgetAndDonation` draws a candidate's widget (of the row of its hour
                                // and weekday, when it has interest) and whether it donates from the
                                // details stream, `duration` its length, or gives the fixed one.
                                func fill(
                                    _ configurations: inout some UniformSource,
                                    widgetAndDonation: (_ row: Int, _ total: Double) -> (widget: Int, donates: Bool),
                                    duration: () -> SimTime
                                ) {
                                    var k = 0, spanIndex = 0, filled = 0, endCount = 0
                                    while k < count {
                                        // The span of candidate k, and every candidate before its end.
                                        while spans[spanIndex].end <= times[k] { spanIndex &+= 1 }
                                        let span = spans[spanIndex]
                                        let row = Int(span.weekday) &* 24 &+ Int(span.hour)
                                        let total = totals[row]
                                        repeat {
                                            let t = times[k]
                                            k &+= 1
                                            // Draw always: the widget, the donation, the length, the
                                            // donated configuration.
                                            let (widget, donates) = widgetAndDonation(row, total)
                                            let duration = duration()
                                            let c = configurations.uniform()
                                            guard total > 0 else { continue }  // no widget of interest at this hour
                                            let stop = t + duration
                                            // A widget's index, and an instance's or −1: each fits 32 bits
                                            // (at most `widgets`, which the precondition above bounds).
                                            let widget32 = Int32(truncatingIfNeeded: widget)
                                            sessions[filled] = SessionRecord(
                                                start: t, end: stop, widget: widget32, donates: donates,
                                                donatedInstance: Int32(truncatingIfNeeded: donations.target(of: widget, uniform: c)),
                                                hour: span.hour, weekday: span.weekday)
                                            filled &+= 1
                                            if stop < end {
                                                ends[endCount] = WidgetMoment(time: stop, widget: widget32)
                                                endCount &+= 1
                                            }
                                        } while k < count && times[k] < span.end
                                    }
                                    sessionsFilled = filled
                                    endsFilled = endCount
                                }
                                // The widget by inversion of u × Σλ over the row's λ, and the donation
                                // by u < its probability (the row's widget only when Σλ > 0).
                                func drawn(_ details: inout some UniformSource, row: Int, total: Double) -> (widget: Int, donates: Bool) {
                                    let u = details.uniform() * total
                                    let donates = details.uniform() < donationProbability
                                    let weights = UnsafeBufferPointer(rebasing: table[row &* widgets ..< (row &+ 1) &* widgets])
                                    return (total > 0 ? RandomStream.inverse(u, weights: weights) : -1, donates)
                                }
                                let copied = sigma > 0 ? false : details.withTausUniforms { details in
                                    configurations.withTausUniforms { (configurations: inout TausUniforms) -> Void in
                                        let stepped: Void? = sessionSteps.withRows { steps in
                                            fill(&configurations, widgetAndDonation: { row, _ in
                                                let widget = steps.outcome(of: details.uniformWord(), row: row)
                                                return (widget, UInt64(details.uniformWord()) < donationWords)
                                            }) { fixedDuration }
                                        }
                                        if stepped == nil {
                                            fill(&configurations, widgetAndDonation: { drawn(&details, row: $0, total: $1) }) { fixedDuration }
                                        }
                                    } != nil
                                } ?? false
                                if !copied {
                                    var detailDraws = details, configurationDraws = configurations
                                    fill(&configurationDraws, widgetAndDonation: { drawn(&detailDraws, row: $0, total: $1) }) {
                                        sigma > 0
                                            ? max(1, CheckedTime.milliseconds(details.logNormal(median: median, sigma: sigma).rounded()))
                                            : fixedDuration
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        records.removeLast(count - sessionsFilled)
        sessionEnds.removeLast(count - endsFilled)
        w.sessions = records
        sessionEnds.sortUnlessSorted()
        w.sessionEnds = sessionEnds
    }
}
