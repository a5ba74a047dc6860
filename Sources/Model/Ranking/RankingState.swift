/// Helpers for the per-person state of ranking policies: arrays sized once per person
/// in `begin(members:stream:)`, reusing the capacity of the previous person's.
extension Array {
    /// Makes the array `count` copies of `value`, keeping its capacity (no allocation
    /// once the capacity suffices).
    @inlinable
    mutating func resetRankingState(count: Int, to value: Element) {
        removeAll(keepingCapacity: true)
        append(contentsOf: repeatElement(value, count: count))
    }
}

extension Array where Element == Int {
    /// Moves member `m` to the front, keeping the relative order of the others. O(count).
    @inlinable
    mutating func moveToFront(_ m: Int) {
        guard let i = firstIndex(of: m), i > 0 else { return }
        var j = i
        while j > 0 {
            self[j] = self[j - 1]
            j -= 1
        }
        self[0] = m
    }
}
