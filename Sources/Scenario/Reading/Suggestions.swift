/// "Did you mean …?": the nearest candidate to a misspelt word by edit distance.
enum Suggestions {
    /// The largest edit distance that still counts as a likely typo.
    static let maximumDistance = 3
    /// Longer words are never compared: no name a scenario uses is this long.
    static let longestWord = 64

    /// Levenshtein distance between `a` and `b`, ignoring case.
    static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a.lowercased()), t = Array(b.lowercased())
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var previous = Array(0 ... t.count)
        var current = [Int](repeating: 0, count: t.count + 1)
        for i in 1 ... s.count {
            current[0] = i
            for j in 1 ... t.count {
                let substitution = previous[j - 1] + (s[i - 1] == t[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[t.count]
    }

    /// The candidate nearest to `word` (the first of equals, in `candidates` order), or nil
    /// when none is within `maximumDistance` edits, or when reaching it would mean
    /// rewriting the whole word.
    /// Only candidates of a similar length (within `maximumDistance`) are compared, and
    /// a word longer than `longestWord` is compared with none: the work is bounded
    /// whatever the input.
    static func nearest(to word: String, in candidates: [String]) -> String? {
        guard word.count <= longestWord else { return nil }
        var best: (name: String, distance: Int)? = nil
        for c in candidates where abs(c.count - word.count) <= maximumDistance {
            let d = distance(word, c)
            if d < (best?.distance ?? Int.max) { best = (c, d) }
        }
        guard let best, best.distance <= maximumDistance, best.distance < max(word.count, 1) else { return nil }
        return best.name
    }

    /// "; did you mean `x`?" or "", for the end of a message.
    static func didYouMean(_ word: String, in candidates: [String]) -> String {
        nearest(to: word, in: candidates).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// "unknown WHAT `word`; did you mean `x`? Valid: a, b, c", or without the guess when
    /// nothing is close.
    static func unknown(_ what: String, _ word: String, valid: [String]) -> String {
        let list = valid.joined(separator: ", ")
        if let guess = nearest(to: word, in: valid) {
            return "unknown \(what) `\(Excerpt.of(word))`; did you mean `\(guess)`? Valid: \(list)"
        }
        return "unknown \(what) `\(Excerpt.of(word))`; valid: \(list)"
    }
}
