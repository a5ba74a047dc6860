import Foundation

/// RFC 4180 rows: fields separated by commas, quoted when they hold a comma, a quote
/// or a line break (quotes doubled). Lines end with LF, which RFC 4180 readers accept
/// and every Unix tool expects. Numbers use `.` decimals whatever the locale.
public enum CSV {
    public static func field(_ s: String) -> String {
        guard needsQuotes(s) else { return s }
        var out: [UInt8] = []
        appendField(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `s` holds a comma, a quote or a line break. Bytes, not characters:
    /// "\r\n" is one character, equal to neither "\r" nor "\n".
    static func needsQuotes(_ s: String) -> Bool {
        s.utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    }

    public static func row(_ fields: [String]) -> String {
        var out: [UInt8] = []
        append(fields, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a field (quoted as `field` quotes it) to `out`, as UTF-8.
    public static func appendField(_ s: String, to out: inout [UInt8]) {
        guard needsQuotes(s) else {
            out.append(contentsOf: s.utf8)
            return
        }
        out.append(0x22)
        for b in s.utf8 {
            out.append(b)
            if b == 0x22 { out.append(0x22) }
        }
        out.append(0x22)
    }

    /// Appends the row of `fields` to `out`, as UTF-8.
    public static func append(_ fields: some Sequence<String>, to out: inout [UInt8]) {
        var first = true
        for f in fields {
            if !first { out.append(0x2C) }
            first = false
            appendField(f, to: &out)
        }
        out.append(0x0A)
    }

    /// A number as reports print it: an integer column as a whole number; a double in
    /// the shortest form that reads back to the same double, always with a `.` or an
    /// exponent (`2.0`, `2.6e-05`), so readers never take it for an integer; nil
    /// (undefined) and non-finite values as an empty field. −0 prints as `0.0`.
    public static func number(_ v: Double?, type: ColumnType = .double) -> String {
        guard let v, v.isFinite else { return "" }
        if type == .integer { return String(Int64(v.rounded())) }
        return v == 0 ? "0.0" : v.description
    }

    /// The rows of an RFC 4180 text (quoted fields may hold commas, quotes and line breaks).
    public static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { field.unicodeScalars.append("\""); chars.removeFirst() } else { quoted = false }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else if c != "\r" {
                field.unicodeScalars.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
