import Testing
@testable import WidgetSimModel

/// `firstIndex(sortedBy:)` against a linear scan, on arrays and on slices that start
/// past 0 (whose indices are the array's).
@Suite struct SortedSearchTests {
    @Test func theFirstIndexIsALinearScans() {
        var seed: UInt64 = 20261127
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 59)
        }
        for n in 0 ..< 40 {
            let values = (0 ..< n).map { _ in next() }.sorted()
            for from in 0 ... n {
                let slice = values[from...]
                for t in -1 ... 33 {
                    let linear = slice.firstIndex { $0 >= t } ?? slice.endIndex
                    #expect(slice.firstIndex(sortedBy: { $0 >= t }) == linear, "n \(n) from \(from) t \(t)")
                }
            }
        }
    }
}
