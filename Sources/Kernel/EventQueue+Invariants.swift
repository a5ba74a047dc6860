extension EventQueue {
    /// Checks the 4-ary heap property over every stored entry, and that each slot's
    /// recorded place holds that slot's entry while every slotted entry stands where
    /// its slot says (so no superseded or cancelled event is stored). O(n + slots).
    /// Tests call it; debug builds may call it after any operation.
    public func checkInvariants() -> Bool {
        let b = buffer
        let heap = UnsafeBufferPointer(start: b.entries, count: b.count)
        let first = b.topIsConsumed ? 1 : 0
        for i in first ..< heap.count where heap[i].slot >= 0 {
            if b.slotPosition[Int(heap[i].slot)] != i { return false }
        }
        for s in 0 ..< b.slots where b.slotPosition[s] >= 0 {
            let p = b.slotPosition[s]
            if p < first || p >= heap.count || heap[p].slot != Int32(s) { return false }
        }
        guard heap.count > first else { return true }
        if b.topIsConsumed {
            // The consumed top is about to be overwritten or removed; the rest must
            // still be ordered below their parents.
            for i in 1 ..< heap.count where (i - 1) >> 2 > 0 {
                if heap[i].precedes(heap[(i - 1) >> 2]) { return false }
            }
            return true
        }
        for i in 1 ..< heap.count where heap[i].precedes(heap[(i - 1) >> 2]) {
            return false
        }
        return true
    }
}
