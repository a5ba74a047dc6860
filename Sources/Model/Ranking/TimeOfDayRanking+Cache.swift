import WidgetSimSampling

extension TimeOfDayRanking {
    /// The person's latest rankings, best first, each `members` values in memory the
    /// policy owns and reuses from person to person (the person's order before they
    /// are first computed). With weekday weight 0 there is one per local hour: row
    /// `hour` at `best + hour * members`; otherwise one, row 0. `scores` holds the
    /// scores the latest was sorted by.
    struct Cache {
        /// Rows kept: 24 with weekday weight 0, else 1.
        let rows: Int
        /// The stack's size, from `begin`.
        var members = 0
        var best: UnsafeMutablePointer<Int>
        var scores: UnsafeMutablePointer<Double>
        var capacity = 0
        /// What the rankings were computed from: the history (held, so no other can take
        /// its place); with weekday weight 0, its `hourVersions` entry for each row;
        /// otherwise its `countsVersion`, the hour and the weekday of row 0. `Int.min`:
        /// nothing yet.
        var rankedHistory: StackHistory?
        var rankedVersions: UnsafeMutablePointer<Int>
        var rankedHour = 0
        var rankedWeekday = 0
        /// Changes whenever a ranking may change (its memory or its order): a caller that
        /// keeps the pointer `ranked` gave and what it asked may reuse them while this,
        /// the history, its `countsVersion`, the hour and the weekday stay the same.
        var generation = 0

        init(rows: Int) {
            self.rows = rows
            best = .allocate(capacity: 1)
            scores = .allocate(capacity: 1)
            rankedVersions = .allocate(capacity: 24)
        }

        /// Frees the memory (the policy's `deinit`).
        func deallocate() {
            best.deallocate()
            scores.deallocate()
            rankedVersions.deallocate()
        }

        /// A new person's stack of `members`: each ranking is the person's order, and
        /// none is known to hold.
        mutating func begin(members: Int) {
            if members > capacity {
                best.deallocate()
                scores.deallocate()
                capacity = members
                best = .allocate(capacity: rows * members)
                scores = .allocate(capacity: members)
            }
            self.members = members
            generation += 1
            // Through local copies: a store through a pointer could otherwise be taken to
            // change the cache's fields, and each read again after it.
            let best = best, rankedVersions = rankedVersions
            for row in 0 ..< rows {
                let order = best + row &* members
                for k in 0 ..< members { order[k] = k }
                rankedVersions[row] = .min
            }
            rankedHistory = nil
        }
    }

    /// See `Cache.generation`.
    var generation: Int { cache.generation }

    /// The order `rank` gives at local `hour` of `weekday`, in memory the policy owns:
    /// the `members` of `begin`, valid until the next call. The engine reads it there
    /// rather than through `rank`'s array.
    @inline(__always)
    func ranked(hour: Int, weekday: Int, history: StackHistory) -> UnsafePointer<Int> {
        if history !== cache.rankedHistory {
            for row in 0 ..< cache.rows { cache.rankedVersions[row] = .min }
            cache.rankedHistory = history
        }
        if weekdayWeight == 0 {
            // The scores at an hour depend on that hour's counts only: its ranking is
            // kept while they do not change (often: donations are rarer than views, and
            // the hour's ranking of the day before still holds when the hour comes back).
            let version = history.hourVersions[hour]
            let order = cache.best + hour * cache.members
            if version != cache.rankedVersions[hour] {
                if history.lastChangeHour == hour && history.lastChangeSince == cache.rankedVersions[hour] {
                    // One count of one member went up since: only that member's score
                    // changed, and it did not go down (a swipe weighs feedback_weight).
                    // A swipe with feedback weight 0 changes no score; a negative weight
                    // (only for a policy made in code: the parameter is 0 … 1000) lowers
                    // it, and the hour is sorted again.
                    if !history.lastChangeIsSwipe || feedbackWeight > 0 {
                        promote(history.lastChangeMember, in: order, hour: hour, weekday: weekday, history: history)
                    } else if feedbackWeight != 0 {
                        rerank(order, hour: hour, weekday: weekday, history: history)
                    }
                } else {
                    rerank(order, hour: hour, weekday: weekday, history: history)
                }
                cache.rankedVersions[hour] = version
            }
            return UnsafePointer(order)
        }
        // The scores depend on the counts, the hour and the weekday only: unchanged since
        // the previous view, so is the ranking.
        let version = history.countsVersion
        if version != cache.rankedVersions[0] || hour != cache.rankedHour || weekday != cache.rankedWeekday {
            rerank(cache.best, hour: hour, weekday: weekday, history: history)
            cache.rankedVersions[0] = version
            cache.rankedHour = hour
            cache.rankedWeekday = weekday
        }
        return UnsafePointer(cache.best)
    }

    /// Moves member `m` ahead in `order`, sorted by the scores at `hour` of `weekday` as
    /// they were before `m`'s score alone went up, past every member it now goes before:
    /// the order `rerank` gives for the scores now (the others keep their order).
    private func promote(
        _ m: Int, in order: UnsafeMutablePointer<Int>, hour: Int, weekday: Int, history: StackHistory
    ) {
        cache.generation += 1
        var i = 0
        while order[i] != m { i += 1 }
        let sm = score(m, hour: hour, weekday: weekday, history: history)
        while i > 0 {
            let b = order[i - 1]
            let sb = score(b, hour: hour, weekday: weekday, history: history)
            if !(sm != sb ? sm > sb : m < b) { break }
            order[i] = b
            order[i - 1] = m
            i -= 1
        }
    }

    /// Sorts `order` by the scores at `hour` of `weekday`, highest first, equal scores to
    /// the lower member index: the order of `Array.rankDescending(by:scratch:)`.
    /// Scores change little from one ranking of an hour to the next, so the insertion
    /// sort starts from the previous ranking and usually has nothing to move. The start
    /// cannot change the result: scores are never NaN and ties go to the lower index, a
    /// total order.
    private func rerank(_ order: UnsafeMutablePointer<Int>, hour: Int, weekday: Int, history: StackHistory) {
        let n = cache.members
        cache.generation += 1
        let s = cache.scores
        if weekdayWeight == 0 && feedbackWeight == 0 {
            history.donationsByHourFlat.withUnsafeBufferPointer { d in
                for m in 0 ..< n { s[m] = smoothing + Double(d[m * 24 + hour]) }
            }
        } else {
            for m in 0 ..< n { s[m] = score(m, hour: hour, weekday: weekday, history: history) }
        }
        insertionRankDescending(order, count: n, scores: s)
    }
}
