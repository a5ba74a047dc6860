import Testing
@testable import WidgetSimReports

/// `widgetsim compare` shows each number with the digits its interval allows.
@Suite struct CompareDigitsTests {
    @Test func digitsFollowTheHalfWidth() {
        #expect(PairCompare.decimals(0.0123) == 3)
        #expect(PairCompare.decimals(0.1) == 2)
        #expect(PairCompare.decimals(12.3) == 0)
        #expect(PairCompare.decimals(31.4) == 0)
        #expect(PairCompare.decimals(nil) == nil)
        #expect(PairCompare.decimals(0) == nil)
        // The mean of two points, 2227.67 ± 31: what the interval supports.
        #expect(PairCompare.shown(2227.6666666666665, PairCompare.decimals(31.4)) == "2228")
        #expect(PairCompare.shown(0.45038167938931295, PairCompare.decimals(0.0123)) == "0.450")
        #expect(PairCompare.shown(-0.0004, PairCompare.decimals(0.0123)) == "0.000")
        // Without an interval: six significant digits, a whole number as itself.
        #expect(PairCompare.shown(0.45038167938931295, nil) == "0.450382")
        #expect(PairCompare.shown(1014, nil) == "1014")
        #expect(PairCompare.shown(nil, 2) == "–")
    }
}
