extension EventQueue {
    /// Checks the 4-ary heap property over every stored entry. O(n). Tests call it;
    /// debug builds may call it after any operation.
    public func checkInvariants() -> Bool {
        let b = buffer
        let heap = UnsafeBufferPointer(start: b.entries, count: b.count)
        let first = b.topIsConsumed ? 1 : 0
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
