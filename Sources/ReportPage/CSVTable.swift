import Foundation

/// Why a report folder cannot be drawn: always names the file, and the line when one is at fault.
public enum ReportInputError: Error, CustomStringConvertible, Equatable {
    /// A required file is not in the folder; `hint` says how it is made.
    case missing(file: String, hint: String)
    /// A file cannot be read as its report: the line at fault, when one is, and why.
    case damaged(file: String, line: Int?, problem: String)

    /// The message, starting with the file (and line).
    public var description: String {
        switch self {
        case .missing(let file, let hint):
            return "\(file): not found (\(hint))"
        case .damaged(let file, let line, let problem):
            return line.map { "\(file):\($0): \(problem)" } ?? "\(file): \(problem)"
        }
    }
}

/// A CSV file (RFC 4180: commas, double-quoted fields, doubled quotes) held in memory,
/// its fields found by column name. Every row must have as many fields as the header.
struct CSVTable {
    /// The file's name, for errors.
    let file: String
    let header: [String]
    let rows: [[String]]
    /// Each row's line number in the file (1 is the header).
    let lines: [Int]

    init(text: String, file: String) throws(ReportInputError) {
        self.file = file
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        // The field being read, as UTF-8 bytes: the delimiters are ASCII, so no byte of a
        // multi-byte character is ever taken for one.
        var field: [UInt8] = []
        var quoted = false
        var line = 1
        var recordLine = 1
        var fieldStarted = false
        // The first empty line, if any: fine at the end of the file, a damaged file when
        // a record follows it (our writers never write one; a row cut to nothing does).
        var emptyLine: Int?
        var text = text
        text.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                if quoted {
                    if c == 0x22 {  // "
                        if i < bytes.count && bytes[i] == 0x22 { i += 1; field.append(0x22) } else { quoted = false }
                    } else {
                        if c == 0x0A { line += 1 }
                        field.append(c)
                    }
                    continue
                }
                switch c {
                case 0x22 where field.isEmpty:
                    quoted = true
                    fieldStarted = true
                case 0x2C:  // ,
                    fields.append(String(decoding: field, as: UTF8.self))
                    field.removeAll(keepingCapacity: true)
                    fieldStarted = true
                case 0x0D:  // \r
                    continue
                case 0x0A:  // \n
                    if fieldStarted || !field.isEmpty || !fields.isEmpty {
                        fields.append(String(decoding: field, as: UTF8.self))
                        records.append((recordLine, fields))
                    } else if emptyLine == nil {
                        emptyLine = line
                    }
                    fields = []
                    field.removeAll(keepingCapacity: true)
                    fieldStarted = false
                    line += 1
                    recordLine = line
                default:
                    field.append(c)
                    fieldStarted = true
                }
            }
        }
        if quoted { throw .damaged(file: file, line: recordLine, problem: "a quoted field is never closed") }
        if fieldStarted || !field.isEmpty || !fields.isEmpty {
            fields.append(String(decoding: field, as: UTF8.self))
            records.append((recordLine, fields))
        }
        if let emptyLine, let last = records.last, last.line > emptyLine {
            throw .damaged(file: file, line: emptyLine, problem: "an empty line among the rows (a truncated or damaged row)")
        }
        guard let first = records.first else { throw .damaged(file: file, line: nil, problem: "the file is empty") }
        header = first.fields
        for r in records.dropFirst() where r.fields.count != header.count {
            throw .damaged(file: file, line: r.line,
                           problem: "\(r.fields.count) fields where the header has \(header.count) (a truncated or damaged row)")
        }
        rows = records.dropFirst().map(\.fields)
        lines = records.dropFirst().map(\.line)
    }

    private init(file: String, header: [String], rows: [[String]], lines: [Int]) {
        self.file = file
        self.header = header
        self.rows = rows
        self.lines = lines
    }

    /// The rows of one point of a parameter study (files with a `point` column): point
    /// `point`, or the first point in the file when it is nil or absent. Other files
    /// are returned whole.
    func onePoint(_ point: String?) -> CSVTable {
        guard let c = header.firstIndex(of: "point"), let first = rows.first?[c] else { return self }
        let wanted = point.flatMap { p in rows.contains { $0[c] == p } ? p : nil } ?? first
        let keep = rows.indices.filter { rows[$0][c] == wanted }
        return CSVTable(file: file, header: header, rows: keep.map { rows[$0] }, lines: keep.map { lines[$0] })
    }

    /// Reads `name` in `folder`; `hint` says what would write it when it is missing.
    static func read(_ name: String, in folder: URL, hint: String) throws(ReportInputError) -> CSVTable {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missing(file: name, hint: hint) }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .damaged(file: name, line: nil, problem: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .damaged(file: name, line: nil, problem: "is not UTF-8 text")
        }
        return try CSVTable(text: text, file: name)
    }

    /// The index of the first of `names` in the header, or nil.
    func column(_ names: [String]) -> Int? {
        for n in names { if let i = header.firstIndex(of: n) { return i } }
        return nil
    }

    /// The index of the first of `names` in the header, or an error naming the file.
    func require(_ names: String...) throws(ReportInputError) -> Int {
        guard let i = column(names) else {
            throw .damaged(file: file, line: 1, problem: "no column `\(names[0])` in the header")
        }
        return i
    }

    /// Field `column` of row `row` as a number; nil when the column is absent (the
    /// reports leave out a column empty on every row).
    func number(_ row: Int, _ column: Int?) throws(ReportInputError) -> Double? {
        guard let column else { return nil }
        return try number(row, column)
    }

    /// Field `column` of row `row` as a number; nil when empty; an error when not a number.
    func number(_ row: Int, _ column: Int) throws(ReportInputError) -> Double? {
        let text = rows[row][column]
        if text.isEmpty { return nil }
        guard let v = Double(text), v.isFinite else {
            throw .damaged(file: file, line: lines[row], problem: "`\(header[column])` is `\(text)`, not a number")
        }
        return v
    }

    /// Like `number`, but the field may not be empty.
    func requiredNumber(_ row: Int, _ column: Int) throws(ReportInputError) -> Double {
        guard let v = try number(row, column) else {
            throw .damaged(file: file, line: lines[row], problem: "`\(header[column])` is empty")
        }
        return v
    }
}
