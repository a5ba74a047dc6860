import Foundation

/// Where each chart's SVG goes in a page rendered before gnuplot has drawn them: the page
/// is rendered with a marker in place of each SVG, and the SVGs are put in the markers'
/// places once drawn. The template inserts an SVG as it is (`{{{svg}}}`), so the filled
/// page is, byte for byte, the page rendered from the SVGs.
///
/// A marker holds a number drawn for this page, which no text read from a run's files
/// holds: the page is cut only where a marker stands.
struct SVGSlots {
    /// Chart name → its marker, for the page's renderer in place of the SVGs.
    let markers: [String: String]
    private let edge: String

    init(_ names: [String]) {
        let edge = "\u{E000}\(UInt64.random(in: 0 ... .max))\u{E001}"
        self.edge = edge
        markers = Dictionary(names.map { ($0, edge + $0 + edge) }, uniquingKeysWith: { a, _ in a })
    }

    /// `draft` (rendered from `markers`) with each marker replaced by its chart's entry of
    /// `svgs`; nil when the draft's markers are not whole (the caller then renders the
    /// page from the SVGs).
    func fill(_ draft: String, with svgs: [String: String]) -> String? {
        let pieces = draft.components(separatedBy: edge)
        guard pieces.count % 2 == 1 else { return nil }
        var page = ""
        page.reserveCapacity(draft.utf8.count + svgs.values.reduce(0) { $0 + $1.utf8.count })
        for (k, piece) in pieces.enumerated() {
            if k % 2 == 0 {
                page += piece
            } else {
                guard markers[piece] != nil else { return nil }
                page += svgs[piece] ?? ""
            }
        }
        return page
    }
}
