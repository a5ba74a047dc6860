import WidgetSimSampling

/// A draw from one uniform of a `taus2` stream whose outcome, an index from −1 to
/// `count` − 1 in each of a few rows (a view's wanted member in each hour and weekday,
/// a session's widget), is a non-decreasing function of the uniform and so of the
/// stream's 32-bit word (`TausUniforms.uniform(ofWord:)` is exact and monotone): the
/// outcome of a word is one less than the number of the row's thresholds at or below
/// it, where threshold j is the least word whose outcome is j or above.
///
/// The thresholds are found once, by a binary search over words with the draw itself
/// (33 draws each), so each is the draw's own step: with the monotony, the outcomes of
/// the words on both sides of every threshold decide the outcome of every word, which
/// is what tests compare. A word's count starts from its row's guide: per bucket of
/// words (the same top `guideBits` bits), the number of thresholds at or below the
/// bucket's first word, which every word of the bucket has at or below it too.
struct WordSteps {
    /// Per row, `count` thresholds in order, then 2^32 (which no word reaches).
    let thresholds: [UInt64]
    /// Per row, 2^`guideBits` counts of thresholds.
    let guides: [UInt8]
    /// The outcomes of a row are −1 to `count` − 1.
    let count: Int

    /// A guide's buckets are the words of the same top `guideBits` bits.
    static let guideBits = 8

    /// Whether steps can be made for outcomes −1 to `count` − 1: a guide's counts are bytes.
    static func numbers(_ count: Int) -> Bool { count <= Int(UInt8.max) }

    /// No rows: where the outcomes are drawn from the uniforms instead.
    init() {
        (thresholds, guides, count) = ([], [], 0)
    }

    /// The steps of `rows` rows of outcomes −1 to `count` − 1, `outcome(row, u)` being the
    /// outcome of a uniform u in row `row`: a draw whose outcome does not decrease as u
    /// grows (each of its steps rounded to nearest, as those of an inversion are).
    init(rows: Int, count n: Int, outcome: (_ row: Int, _ uniform: Double) -> Int) {
        precondition(Self.numbers(n), "more outcomes than a guide numbers")
        let end: UInt64 = 1 << 32, buckets = 1 << Self.guideBits
        var thresholds: [UInt64] = [], guides: [UInt8] = []
        thresholds.reserveCapacity(rows * (n + 1))
        guides.reserveCapacity(rows * buckets)
        for r in 0 ..< rows {
            var lo: UInt64 = 0
            for j in 0 ..< n {
                // The least word whose outcome is j or above, searched from the last
                // threshold (below it the outcome is below j − 1).
                var hi = end
                while lo < hi {
                    let mid = lo + (hi - lo) / 2
                    if outcome(r, TausUniforms.uniform(ofWord: UInt32(mid))) >= j { hi = mid } else { lo = mid + 1 }
                }
                thresholds.append(lo)
            }
            thresholds.append(end)
            let row = thresholds[r * (n + 1) ..< r * (n + 1) + n]
            for b in 0 ..< buckets {
                let first = UInt64(b) << (32 - Self.guideBits)
                guides.append(UInt8(row.count(where: { $0 <= first })))
            }
        }
        (self.thresholds, self.guides, count) = (thresholds, guides, n)
    }

    /// Whether there are no rows.
    var isEmpty: Bool { thresholds.isEmpty }

    /// The number of words whose uniform is below `p`: `uniform(ofWord: word) < p` exactly
    /// when the word is below it (2^32: every word's is).
    static func wordsBelow(_ p: Double) -> UInt64 {
        WordSteps(rows: 1, count: 1) { _, u in u < p ? -1 : 0 }.thresholds[0]
    }

    /// Calls `body` with the rows in place, unless there are none (then nil).
    func withRows<R>(_ body: (Rows) -> R) -> R? {
        guard !isEmpty else { return nil }
        return thresholds.withUnsafeBufferPointer { thresholds in
            guides.withUnsafeBufferPointer { guides in
                body(Rows(thresholds: thresholds.baseAddress!, guides: guides.baseAddress!, count: count))
            }
        }
    }

    /// The rows in place, for a loop.
    struct Rows {
        let thresholds: UnsafePointer<UInt64>
        let guides: UnsafePointer<UInt8>
        let count: Int

        /// The outcome of `word` in row `row`.
        @inline(__always)
        func outcome(of word: UInt32, row r: Int) -> Int {
            WordSteps.outcome(
                of: word, thresholds: thresholds + r &* (count &+ 1), guide: guides + r &<< WordSteps.guideBits)
        }
    }

    /// The outcome of `word` from its row's `thresholds` and `guide`.
    @inline(__always)
    static func outcome(of word: UInt32, thresholds: UnsafePointer<UInt64>, guide: UnsafePointer<UInt8>) -> Int {
        var j = Int(guide[Int(truncatingIfNeeded: word &>> (32 &- UInt32(guideBits)))])
        let word = UInt64(word)
        while word >= thresholds[j] { j &+= 1 }
        return j &- 1
    }
}
