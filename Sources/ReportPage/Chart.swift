import Foundation

/// One figure of the page: its data (CSV, with a header row) and the gnuplot script that
/// draws it into `<name>.svg`. Both are kept in `report/` beside the page, so that
/// `cd report && gnuplot <name>.gp` redraws the figure after a restyle.
struct Chart {
    /// An identifier: the files' base name, the SVG's `<title>` and the figure's anchor.
    var name: String
    /// What the figure shows, in a sentence or two (the figure's caption).
    var caption: String
    /// File name → CSV text.
    var data: [(file: String, text: String)]
    /// The plotting commands, after the common preamble.
    var body: String
    var width = 760
    var height = 460
    /// How many marks (points, bars) the figure must show: the browser test counts them.
    var marks: Int

    var script: String {
        """
        # \(caption.replacingOccurrences(of: "\n", with: " "))
        # Data: \(data.map(\.file).joined(separator: ", ")). Redraw with: gnuplot \(name).gp
        reset
        set terminal svg size \(width),\(height) dynamic noenhanced name '\(name)' font 'sans,11' background rgb 'white'
        set output '\(name).svg'
        set datafile separator ','
        set grid lc rgb '#dddddd'
        set border lc rgb '#555555'
        \(body)

        """
    }
}

/// CSV text from rows of fields: labels quoted, numbers as the shortest text that reads back
/// exactly, NaN where undefined (gnuplot skips it).
enum ChartData {
    static func csv(_ header: [String], _ rows: [[ChartValue]]) -> String {
        var out = header.map(quote).joined(separator: ",") + "\n"
        for r in rows { out += r.map(\.text).joined(separator: ",") + "\n" }
        return out
    }

    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\"", with: "'") + "\""
    }
}

enum ChartValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case number(Double?)
    case label(String)

    init(stringLiteral s: String) { self = .label(s) }
    init(integerLiteral n: Int) { self = .number(Double(n)) }

    var text: String {
        switch self {
        case .number(let v?): return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
        case .number(nil): return "NaN"
        case .label(let s): return ChartData.quote(s)
        }
    }
}

/// A string as a gnuplot single-quoted string.
func gp(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
