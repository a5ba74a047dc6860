import Testing
@testable import WidgetSimModel

/// The view counts 2520 / (position + 1) by table for the first positions.
@Suite struct ReciprocalRankTests {
    @Test func tableIsTheDivision() {
        for position in 0 ..< 40 {
            #expect(PersonEngine.reciprocalRank2520(position) == Int64(2520 / (position + 1)), "position \(position)")
        }
    }
}
