extension Array {
    /// Makes the array `count` elements long over its own storage, when it is not shared
    /// and holds that many: the elements it keeps stay as they are, and the ones it
    /// gains are `filler`. A world's lists are built afresh for each person over the
    /// last person's: the builder makes a list as long as it may need, writes its
    /// elements through `withUnsafeMutableBufferPointer`, then drops those it did not
    /// write (`removeLast`). That costs neither a new array's allocation (which looks up
    /// the storage's type metadata each time) nor more than one write of the elements
    /// it keeps, bar those it gains over the last person's list.
    mutating func resize(to count: Int, filler: Element) {
        if count < self.count {
            removeLast(self.count - count)
        } else if count > self.count {
            append(contentsOf: repeatElement(filler, count: count - self.count))
        }
    }
}

extension Array where Element: Comparable {
    /// Sorts the array unless it is sorted already, as lists of times built in order
    /// usually are (fixed latencies and lengths): one look at each neighbouring pair
    /// costs less than the sort's own passes.
    mutating func sortUnlessSorted() {
        var i = 1
        while i < count && !(self[i] < self[i - 1]) { i += 1 }
        if i < count { sort() }
    }
}
