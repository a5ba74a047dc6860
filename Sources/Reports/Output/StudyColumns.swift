import WidgetSimExecution
import WidgetSimModel

/// The columns a parameter study adds to every row of every report file, after the
/// identity columns: `point` (the point's number) and one column per study parameter,
/// named by its path and holding the point's value as written in the study (`ios`,
/// `30`), a duration in seconds (`15m` as `900.0`). A plain run has none.
extension ReportWriter {
    public static func studyColumns(_ study: Study) -> [String] {
        studySchema(study).map(\.name)
    }

    /// The study columns with their types: a parameter whose every value is a whole
    /// number is an integer column, one whose every value is a decimal number written
    /// with a `.` a double column, any other (durations, words, mixed) a string column.
    public static func studySchema(_ study: Study) -> [Column] {
        guard study.isStudy else { return [] }
        var columns = [Column("point", .integer, "the study point's number, from 0 (`widgetsim run FILE --points` lists them)")]
        for (i, path) in study.parameters.enumerated() {
            let values = study.points.map { $0.values[i] }
            if isDuration(values) {
                columns.append(Column(path, .double, unit: "s", "the study parameter `\(path)`: its value at this point, a duration in seconds (the study writes it as `\(values[0])`, …)"))
                continue
            }
            let type: ColumnType =
                values.allSatisfy({ Int64($0) != nil }) ? .integer
                : values.allSatisfy({ Double($0) != nil && $0.contains(".") && !$0.contains("e") }) ? .double : .string
            columns.append(Column(path, type, "the study parameter `\(path)`: its value at this point, as written in the study"))
        }
        return columns
    }

    /// Point `index`'s values of the study columns (its number, then each parameter's value).
    public static func studyFields(_ study: Study, point index: Int) -> [String] {
        guard study.isStudy else { return [] }
        let values = study.points[index].values.enumerated().map { i, text in
            isDuration(study.points.map { $0.values[i] })
                ? CSV.number(Double(DurationText.parse(text)!) / 1000) : text
        }
        return [String(study.points[index].number)] + values
    }

    /// Whether a study parameter's values are durations (`30m`, `1h`, `90s`): written
    /// as seconds, so that they sort and plot as numbers.
    static func isDuration(_ values: [String]) -> Bool {
        !values.isEmpty && values.allSatisfy { DurationText.parse($0) != nil }
    }

    /// One table of a study: each point's table (`tables[k]` for `study.points[k]`) under
    /// one header, the study columns inserted at column `position` of every row. A plain
    /// run's table is returned as it is.
    public static func studyTable(_ tables: [Table], study: Study, at position: Int) -> Table {
        guard study.isStudy, var table = tables.first else { return tables[0] }
        table.columns.insert(contentsOf: studySchema(study), at: position)
        table.rows = []
        for (k, t) in tables.enumerated() {
            let fields = studyFields(study, point: k)
            for var row in t.rows {
                row.insert(contentsOf: fields, at: position)
                table.rows.append(row)
            }
        }
        return table
    }

    /// Where the study columns go in a file whose rows start with the identity columns.
    public static var studyPosition: Int { identityColumns.count }

    public static func summaryTable(_ results: [RunResult], study: Study) -> Table {
        studyTable(results.map(summaryTable), study: study, at: studyPosition)
    }

    public static func dailyTable(_ results: [RunResult], study: Study) -> Table {
        studyTable(results.map(dailyTable), study: study, at: studyPosition)
    }

    /// `batches.csv` of a study (one replication): every point's blocks.
    public static func batchesTable(_ results: [RunResult], study: Study) -> Table? {
        let tables = results.compactMap(batchesTable)
        guard tables.count == results.count else { return nil }
        return studyTable(tables, study: study, at: studyPosition)
    }

    public static func widgetDaysHeader(_ study: Study) -> String {
        CSV.row(widgetDaysSchema(study).columns.map(\.name))
    }

    /// widget_days.csv's columns: `run_id`, the identity, the study columns, the counts.
    public static func widgetDaysSchema(_ study: Study) -> FileSchema {
        var schema = widgetDaysSchema
        schema.columns.insert(contentsOf: studySchema(study), at: studyPosition)
        schema.columns.insert(Schema.runID, at: 0)
        return schema
    }
}

extension Comparison {
    /// `comparison.csv` of a study: each point's rows (its pairs against its own baseline
    /// pair), in point order, the study columns after `seed`.
    public static func table(_ results: [RunResult], study: Study) -> Table {
        guard study.isStudy else { return table(results) }
        return ReportWriter.studyTable(results.map { table([$0]) }, study: study, at: header.firstIndex(of: "seed")! + 1)
    }
}

extension ReasonsReport {
    public static func table(_ results: [RunResult], study: Study) -> Table {
        ReportWriter.studyTable(results.map(table), study: study, at: ReportWriter.studyPosition)
    }
}
