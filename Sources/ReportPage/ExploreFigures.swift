import Foundation

extension Figures {
    /// An exploring study's worlds: one headline metric against one explored value, a
    /// point per world and pair (the other explored values vary from world to world, so
    /// no line joins them). Numeric values only; nil when nothing can be drawn.
    static func exploreScatter(_ s: StudyTable, parameter: String, metric: String, index: Int) -> Chart? {
        let m = HeadlineMetric.headline.first { $0.names.contains(metric) }
        let scale = m?.scale ?? 1
        let pairs = unique(s.rows.map(\.pair))
        var header = ["x"]
        for p in pairs { header.append("\(p.budget)/\(p.ranking)") }
        var rows: [[ChartValue]] = []
        var pairMarks = Array(repeating: 0, count: pairs.count)
        for row in s.rows {
            guard let x = row.parameters[parameter].flatMap(Double.init), let e = row.values[metric],
                  let j = pairs.firstIndex(of: row.pair) else { continue }
            var line: [ChartValue] = [.number(x)] + Array(repeating: .number(nil), count: pairs.count)
            line[1 + j] = .number(e.mean * scale)
            pairMarks[j] += 1
            rows.append(line)
        }
        guard !rows.isEmpty else { return nil }
        let name = "study_\(index)", file = "\(name).csv"
        let plots = pairs.indices.filter { pairMarks[$0] > 0 }.map { i in
            "\(gp(file)) skip 1 using 1:\(2 + i) with points pt 7 ps 0.5 lc \(i + 1) title \(gp("\(pairs[i].budget) / \(pairs[i].ranking)"))"
        }
        let body = studyBody(parameter: parameter, metric: metric, m: m, plots: plots)
        return Chart(name: name, caption: "\(metric) against the explored value \(parameter): a point per sampled world and pair.",
                     data: [(file, ChartData.csv(header, rows))], body: body, width: 760, height: 420, marks: rows.count)
    }
}
