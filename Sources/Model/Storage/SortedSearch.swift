extension RandomAccessCollection {
    /// In a collection whose elements answer `isAfter` false, then true (sorted by what it
    /// asks), the index of the first that answers true: `endIndex` when none does. A
    /// binary search: O(log n) calls of `isAfter`.
    @inlinable
    func firstIndex(sortedBy isAfter: (Element) throws -> Bool) rethrows -> Index {
        var lo = startIndex, n = count
        while n > 0 {
            let half = n / 2
            let mid = index(lo, offsetBy: half)
            if try isAfter(self[mid]) {
                n = half
            } else {
                lo = index(after: mid)
                n -= half + 1
            }
        }
        return lo
    }
}
