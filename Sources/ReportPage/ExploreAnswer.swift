import Foundation

/// The answer of an exploring study in one sentence, from `robust.csv` and
/// `discovery.csv`: which pair is best in most sampled worlds on the answer metric, how
/// often it beats the baseline beyond noise, and where it loses to it (PRIM's first box).
/// The page opens its study section with it; `widgetsim run` prints it after a study.
public enum ExploreAnswer {
    /// The metric the sentence is about: the share of stale views, the freshness every
    /// budget and ranking trades reloads for.
    public static let metric = "stale_view_share"

    /// The sentence, or nil when the folder holds no readable robust.csv.
    public static func sentence(folder: URL) -> String? {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("robust.csv").path),
              let robust = try? CSVTable.read("robust.csv", in: folder, hint: "") else { return nil }
        func column(_ t: CSVTable, _ name: String) -> Int? { t.column([name]) }
        guard let budget = column(robust, "budget"), let ranking = column(robust, "ranking"), let metricColumn = column(robust, "metric"),
              let worlds = column(robust, "worlds"), let best = column(robust, "best_share"),
              let baseBudget = column(robust, "baseline_budget"), let baseRanking = column(robust, "baseline_ranking")
        else { return nil }
        let rows = robust.rows.filter { $0[metricColumn] == metric }
        let ranked = rows.compactMap { row in Double(row[best]).map { (row, $0) } }
        guard let (top, share) = ranked.max(by: { $0.1 < $1.1 }) else { return nil }
        let name = "\(top[budget])/\(top[ranking])"
        let baseline = "\(top[baseBudget])/\(top[baseRanking])"
        var text = "`\(name)` is best in \(percent(share)) of the \(top[worlds]) sampled worlds on \(metric)"
        if top[budget] == top[baseBudget], top[ranking] == top[baseRanking] {
            return text + " (it is the baseline)."
        }
        if let w = column(robust, "win_share"), let win = Double(top[w]) {
            text += "; it beats the baseline `\(baseline)` beyond noise in \(percent(win))"
            if let lo = column(robust, "win_share_ci95_low"), let hi = column(robust, "win_share_ci95_high"),
               let l = Double(top[lo]), let h = Double(top[hi]) {
                text += " (95%: \(percent(l))–\(percent(h)))"
            }
        }
        let losses = column(robust, "losses").flatMap { Int(top[$0]) } ?? 0
        if losses == 0 { return text + " and never loses to it beyond noise." }
        if let discovery = try? CSVTable.read("discovery.csv", in: folder, hint: ""),
           let b = column(discovery, "budget"), let r = column(discovery, "ranking"), let m = column(discovery, "metric"),
           let box = column(discovery, "box"), let ranges = column(discovery, "box_ranges"),
           let row = discovery.rows.first(where: { $0[b] == top[budget] && $0[r] == top[ranking] && $0[m] == metric && $0[box] == "1" }) {
            let where_ = row[ranges] == "everywhere" ? "across the whole explored space" : "where \(row[ranges])"
            var detail: [String] = []
            if let c = column(discovery, "coverage"), let v = Double(row[c]) { detail.append("coverage \(percent(v))") }
            if let d = column(discovery, "density"), let v = Double(row[d]) { detail.append("density \(percent(v))") }
            return text + "; it loses in \(losses) world\(losses == 1 ? "" : "s"), mostly \(where_)"
                + (detail.isEmpty ? "" : " (\(detail.joined(separator: ", ")))") + "."
        }
        return text + "; it loses in \(losses) world\(losses == 1 ? "" : "s")."
    }

    static func percent(_ share: Double) -> String {
        let p = share * 100
        return p == p.rounded() ? "\(Int(p))%" : String(format: "%.1f%%", p)
    }
}
