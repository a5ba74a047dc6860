import Foundation
import WidgetSimKernel
import WidgetSimSampling

extension WorldBuilder {
    /// The views (MODEL §2): Poisson arrivals in the local hours and, in StandBy,
    /// glances; at each, the wanted widget (drawn in proportion to λ) and whether the
    /// person would swipe and tap.
    func buildViews(_ w: PersonWorld, end: SimTime, viewsPerDay: Double) {
        let s = scenario
        withArrivalTimes(
            w, of: StreamProcess.views, to: end,
            hourlyRate: hourlyRate(&lastViewRate, meanPerDay: viewsPerDay, hourWeights: s.person.viewProfile)
        ) { times in
            // Glances in StandBy, beside the ordinary views.
            if let standBy = s.person.standBy, standBy.viewsPerHour > 0 {
                let glances = stream(StreamProcess.standBy)
                for (a, b) in zip(w.standByStarts, w.standByEnds) {
                    glances.poissonArrivals(
                        from: a, to: b,
                        rate: DailyProfile(meanPerDay: standBy.viewsPerHour * 24, hourWeights: HourProfile.flat),
                        into: &times)
                }
                times.sort()
            }
            // When the members' λ depends on the local hour and weekday alone, one table
            // of λ serves every view, and the views are written by a loop that keeps to
            // that case (checked against the general one, `viewsByHourInOwnLoop`).
            if !stackSums.isEmpty && viewsByHourInOwnLoop {
                buildViewsByHour(w, times: times)
                w.viewInterest = stackInterest
                w.interestByHour = true
            } else {
                buildViewsOneByOne(w, times: times)
                w.interestByHour = false
            }
        }
    }

    /// The views of `times` with the members' λ worked out at each (`interest`), one row
    /// of `viewInterest` per view: the general loop.
    func buildViewsOneByOne(_ w: PersonWorld, times: [SimTime]) {
        let person = scenario.person
        let wantedDraws = stream(StreamProcess.wanted)
        let feedback = stream(StreamProcess.feedback)
        let odds = FeedbackOdds(person)
        let none = person.noInterest
        let n = stackMembers.count
        let starts = w.standByStarts, ends = w.standByEnds
        let spans = w.hours.spans
        var spanIndex = 0, standByIndex = 0
        // The λ rows go to a local array, moved out of the world and the builder and
        // back (no copy is made): an append to a class's array property checks that the
        // array is not shared every time, an append to a local one need not. Every
        // arrival is a view, written over the last person's records (moved out and back).
        var viewInterest = w.viewInterest, lambda = self.lambda, records = w.views
        w.viewInterest = []
        self.lambda = []
        w.views = []
        defer {
            w.viewInterest = viewInterest
            self.lambda = lambda
            w.views = records
        }
        viewInterest.removeAll(keepingCapacity: true)
        records.resize(to: times.count, filler: ViewRecord.blank)
        records.withUnsafeMutableBufferPointer { out in
            for (k, t) in times.enumerated() {
                while standByIndex < ends.count && ends[standByIndex] <= t { standByIndex += 1 }
                let inStandBy = standByIndex < starts.count && starts[standByIndex] <= t
                while spans[spanIndex].end <= t { spanIndex += 1 }
                let span = spans[spanIndex]
                _ = interest(w, at: t, hour: Int(span.hour), weekday: Int(span.weekday), into: &lambda)
                // The members' λ, where this view's row of `viewInterest` starts, and λ of
                // the widgets placed nowhere (`suggestable`), which people may want too.
                let first = viewInterest.count
                for m in stackMembers { viewInterest.append(lambda[m]) }
                var placedNowhere = 0.0
                for x in suggestable { placedNowhere += lambda[x] }
                let sums = StackSums(viewInterest[first...], noInterest: none + placedNowhere)
                // Draw always: the wanted member (n + j: suggestable widget j), then swipe and tap.
                let u = wantedDraws.uniform() * (none + placedNowhere + sums.total)
                var wanted = -1
                if u >= none && placedNowhere > 0 && u - none >= sums.total {
                    var v = u - none - sums.total
                    var j = 0
                    while j < suggestable.count - 1 && v >= lambda[suggestable[j]] {
                        v -= lambda[suggestable[j]]
                        j += 1
                    }
                    wanted = n + j
                } else if u >= none && sums.total > 0 {
                    wanted = viewInterest.withUnsafeBufferPointer {
                        RandomStream.inverse(u - none, weights: UnsafeBufferPointer(rebasing: $0[first ..< first + n]))
                    }
                }
                let (swipe, tap) = odds.draw(feedback)
                out[k] = ViewRecord(
                    time: t, hour: span.hour, weekday: span.weekday, wanted: Int8(wanted), wouldSwipe: swipe, wouldTap: tap,
                    bestChanceNano: sums.bestChanceNano, wantedChanceNano: sums.wantedChanceNano, standBy: inStandBy)
            }
        }
    }

    /// The views of `times` when the members' λ depends on the local hour and weekday
    /// only and no widget is placed nowhere (`stackSums` is not empty): what the general
    /// loop (`buildViewsOneByOne`) writes, in three passes that each keep their state in
    /// registers. Each stream's draws keep their order (the wanted member's stream draws
    /// once per view, the feedback stream twice, and neither draws elsewhere), so the
    /// passes draw what the general loop draws, as `viewsByHourInOwnLoop` lets tests
    /// check:
    /// 1. span by span of the local hours, the views of the span with the span's
    ///    sums and row of λ, and their wanted members: from the word a `taus2` stream
    ///    draws by `wantedSteps`, or else from the uniform by `wantedMember`;
    /// 2. unless their outcomes are certain, the swipe and tap draws;
    /// 3. the views in each StandBy period.
    @inline(never)
    func buildViewsByHour(_ w: PersonWorld, times: [SimTime]) {
        let wantedDraws = stream(StreamProcess.wanted)
        let odds = FeedbackOdds(scenario.person)
        let swipeAlways = odds.swipeAlways, tapAlways = odds.tapAlways
        let none = scenario.person.noInterest
        let n = stackMembers.count
        // A wanted member's index is below n, so it fits a record's Int8 (checked once,
        // not at every view).
        precondition(n <= Int(Int8.max) + 1, "more stack members than a view record numbers")
        let count = times.count
        // The records are written over the last person's, moved out of the world and back.
        var records = w.views
        w.views = []
        records.resize(to: count, filler: ViewRecord.blank)
        records.withUnsafeMutableBufferPointer { out in
            times.withUnsafeBufferPointer { timeBuffer in
                w.hours.spans.withUnsafeBufferPointer { spans in
                    stackInterestEnded.withUnsafeBufferPointer { table in
                        stackSums.withUnsafeBufferPointer { sumsTable in
                            let times = timeBuffer.baseAddress, views = out.baseAddress!
                            // The loop over the views; `wanted` draws a view's wanted member
                            // from the row of its hour and weekday (weekday * 24 + hour).
                            func fill(_ wanted: (_ row: Int) -> Int) {
                                var k = 0, spanIndex = 0
                                while k < count {
                                    // The span of view k, and every view before its end.
                                    while spans[spanIndex].end <= times![k] { spanIndex &+= 1 }
                                    let span = spans[spanIndex]
                                    let r = Int(span.weekday) &* 24 &+ Int(span.hour)
                                    let sums = sumsTable[r]
                                    repeat {
                                        // Draw always: the wanted member.
                                        views[k] = ViewRecord(
                                            time: times![k], hour: span.hour, weekday: span.weekday,
                                            wanted: Int8(truncatingIfNeeded: wanted(r)),
                                            wouldSwipe: swipeAlways, wouldTap: tapAlways,
                                            bestChanceNano: sums.bestChanceNano, wantedChanceNano: sums.wantedChanceNano)
                                        k &+= 1
                                    } while k < count && times![k] < span.end
                                }
                            }
                            // A copy of a `taus2` stream's state, kept in registers by the loop,
                            // and its words' steps when there are any.
                            let copied: Void? = wantedDraws.withTausUniforms { draws in
                                let stepped: Void? = wantedSteps.withRows { steps in
                                    fill { r in steps.outcome(of: draws.uniformWord(), row: r) }
                                }
                                if stepped == nil {
                                    fill { r in
                                        Self.wantedMember(
                                            uniform: draws.uniform(), none: none, total: sumsTable[r].total,
                                            row: table.baseAddress! + r &* (n &+ 1), count: n)
                                    }
                                }
                            }
                            if copied == nil {
                                fill { r in
                                    Self.wantedMember(
                                        uniform: wantedDraws.uniform(), none: none, total: sumsTable[r].total,
                                        row: table.baseAddress! + r &* (n &+ 1), count: n)
                                }
                            }
                        }
                    }
                }
            }
        }
        w.views = records
        if !odds.isFixed {
            let feedback = stream(StreamProcess.feedback)
            w.views.withUnsafeMutableBufferPointer { views in
                for k in views.indices { (views[k].wouldSwipe, views[k].wouldTap) = odds.draw(feedback) }
            }
        }
        // A view is in StandBy when a period holds it (the periods are apart, in order).
        let starts = w.standByStarts, ends = w.standByEnds
        if !starts.isEmpty {
            w.views.withUnsafeMutableBufferPointer { views in
                var k = 0
                for (start, end) in zip(starts, ends) {
                    while k < views.count && views[k].time < start { k += 1 }
                    while k < views.count && views[k].time < end {
                        views[k].standBy = true
                        k += 1
                    }
                }
            }
        }
    }
}

extension WorldBuilder {
    /// The wanted member (−1: none) of a view whose wanted stream drew `uniform`, with
    /// λ of wanting none `none` and the members' λ the `count` weights at `row`
    /// (followed by +∞) of sum `total`: what the general loop (`buildViewsOneByOne`)
    /// draws when no widget is placed nowhere. u = uniform × (none + total); none when
    /// u < none or no member has interest, else `invertEnded(u − none)`.
    ///
    /// Every step (× (none + total), the comparison with none, − none, each − λ_i and
    /// the comparison with 0, all rounded to nearest) is monotone non-decreasing in the
    /// uniform, and the inversion's first negative remainder, or past the last weight
    /// the last positive one, can only move up as they do: so the member does not
    /// decrease as the uniform grows, and `wantedSteps` draws it from the word.
    @inline(__always)
    static func wantedMember(uniform: Double, none: Double, total: Double, row: UnsafePointer<Double>, count: Int) -> Int {
        let u = uniform * (none + total)
        guard u >= none && total > 0 else { return -1 }
        return invertEnded(u - none, weights: row, count: count)
    }

    /// `RandomStream.inverse(target, weights:)` of the `count` finite weights at
    /// `weights`, which are followed by +∞: u takes the same subtractions in the same
    /// order, and the +∞ ends the loop (u − ∞ < 0) where the general loop checks its
    /// index at every step. `target` must be finite (then so is every u before the +∞).
    /// When u is still ≥ 0 past the last weight (roundings), the general loop decides.
    @inline(__always)
    static func invertEnded(_ target: Double, weights: UnsafePointer<Double>, count: Int) -> Int {
        var u = target, i = 0
        repeat {
            u -= weights[i]
            i &+= 1
        } while u >= 0
        if i <= count { return i &- 1 }
        return RandomStream.inverse(target, weights: UnsafeBufferPointer(start: weights, count: count))
    }
}

/// Whether a person would swipe and tap at a view: the feedback stream draws two
/// uniforms per view, the swipe's then the tap's. When neither probability can go
/// either way (0, or 1 and above: u < p is then false, or true, for every u in [0, 1)),
/// every draw's outcome is known, and leaving the stream undrawn changes nothing else.
struct FeedbackOdds {
    let swipe: Double, tap: Double
    let isFixed: Bool
    let swipeAlways: Bool, tapAlways: Bool

    init(_ person: PersonModel) {
        (swipe, tap) = (person.swipeProbability, person.tapProbability)
        isFixed = (swipe <= 0 || swipe >= 1) && (tap <= 0 || tap >= 1)
        (swipeAlways, tapAlways) = (swipe >= 1, tap >= 1)
    }

    /// Whether the person would swipe, and tap: drawn, unless the outcomes are known.
    @inline(__always)
    func draw(_ feedback: RandomStream) -> (swipe: Bool, tap: Bool) {
        if isFixed { return (swipeAlways, tapAlways) }
        let swipe = feedback.uniform() < self.swipe
        return (swipe, feedback.uniform() < tap)
    }
}
