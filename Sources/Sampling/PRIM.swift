import Foundation

/// Scenario discovery: boxes of input ranges where an outcome of interest concentrates,
/// by the Patient Rule Induction Method (Friedman & Fisher, "Bump hunting in
/// high-dimensional data", Statistics and Computing 9 (1999) 123–143), peeling only.
///
/// Given n rows of d inputs and a flag per row (the outcome of interest, such as "the
/// policy loses here"), **peeling** starts from the box holding every row and, at each
/// step, removes the rows below the α-quantile or above the (1 − α)-quantile of one
/// input (at least one row): of the 2d candidates, the one leaving the highest share of
/// flagged rows (ties: the one keeping more rows, then the lower input, then the lower
/// side). It stops when the next box would hold fewer than `minimumMass` · n rows, or
/// when every row left is flagged. Pasting (Friedman & Fisher §6) is not done.
///
/// Of the boxes along the way, the one with the largest **coverage × density** is kept
/// (coverage: flagged rows inside ÷ flagged rows in all; density: flagged rows inside ÷
/// rows inside); the first box (no restriction) is kept when nothing beats it. Further
/// boxes (**covering**, Friedman & Fisher §7) repeat this on the rows outside the boxes
/// found so far, while flagged rows remain and the new box is denser than the rows it
/// came from; coverage stays relative to every flagged row.
public enum PRIM {
    public struct Box: Sendable, Equatable {
        /// Per input: the smallest and largest value of the rows inside, or nil where the
        /// box does not restrict the input (it holds the input's whole range).
        public var bounds: [ClosedRange<Double>?]
        /// Rows inside the box, and of them the flagged ones.
        public var rows: Int
        public var flagged: Int
        /// Flagged rows inside ÷ every flagged row of the data.
        public var coverage: Double
        /// Flagged rows inside ÷ rows inside.
        public var density: Double
    }

    /// Up to `maximumBoxes` boxes for `flags` over `inputs` (n rows of d values).
    public static func boxes(_ inputs: [[Double]], flags: [Bool], alpha: Double = 0.05, minimumMass: Double = 0.05,
                             maximumBoxes: Int = 3) -> [Box] {
        let total = flags.filter { $0 }.count
        guard total > 0, !inputs.isEmpty else { return [] }
        let d = inputs[0].count
        let minimumRows = max(1, Int((minimumMass * Double(inputs.count)).rounded(.up)))
        var remaining = Array(inputs.indices)
        var found: [Box] = []
        while found.count < maximumBoxes {
            let flaggedLeft = remaining.filter { flags[$0] }.count
            guard flaggedLeft > 0 else { break }
            let baseDensity = Double(flaggedLeft) / Double(remaining.count)
            let (inside, restricted) = peel(remaining, inputs, flags, d: d, alpha: alpha, minimumRows: minimumRows, total: total)
            let hits = inside.filter { flags[$0] }.count
            let density = Double(hits) / Double(inside.count)
            if !found.isEmpty, density <= baseDensity { break }
            let bounds: [ClosedRange<Double>?] = (0 ..< d).map { j in
                guard restricted[j] else { return nil }
                let values = inside.map { inputs[$0][j] }
                return values.min()! ... values.max()!
            }
            found.append(Box(bounds: bounds, rows: inside.count, flagged: hits,
                             coverage: Double(hits) / Double(total), density: density))
            guard restricted.contains(true) else { break }
            let set = Set(inside)
            remaining = remaining.filter { !set.contains($0) }
            guard !remaining.isEmpty else { break }
        }
        return found
    }

    /// One peeling trajectory over `rows`: the kept box's rows and which inputs it restricts.
    static func peel(_ rows: [Int], _ x: [[Double]], _ flags: [Bool], d: Int, alpha: Double, minimumRows: Int, total: Int)
        -> (rows: [Int], restricted: [Bool])
    {
        var box = rows
        var restricted = Array(repeating: false, count: d)
        func score(_ r: [Int]) -> Double {
            let hits = Double(r.filter { flags[$0] }.count)
            return (hits / Double(total)) * (hits / Double(r.count))
        }
        var best = (rows: box, restricted: restricted, score: score(box))
        while box.count > minimumRows, box.contains(where: { !flags[$0] }) {
            var candidate: (rows: [Int], input: Int, density: Double)? = nil
            for j in 0 ..< d {
                let sorted = box.map { x[$0][j] }.sorted()
                let k = max(1, Int((alpha * Double(box.count)).rounded(.down)))
                let low = sorted[k - 1], high = sorted[sorted.count - k]
                for side in 0 ..< 2 {
                    let kept = box.filter { side == 0 ? x[$0][j] > low : x[$0][j] < high }
                    guard kept.count >= minimumRows, kept.count < box.count else { continue }
                    let density = Double(kept.filter { flags[$0] }.count) / Double(kept.count)
                    if let c = candidate, density < c.density || (density == c.density && kept.count <= c.rows.count) { continue }
                    candidate = (kept, j, density)
                }
            }
            guard let c = candidate else { break }
            box = c.rows
            restricted[c.input] = true
            let s = score(box)
            if s > best.score { best = (box, restricted, s) }
        }
        return (best.rows, best.restricted)
    }
}
