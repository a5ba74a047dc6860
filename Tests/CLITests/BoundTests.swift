import Foundation
import Testing

/// `widgetsim bound`: one row per person for each `oracle` that knows only rates or
/// views, the bound no higher than its plan's expectation nor than no charged reload;
/// a scenario with no such budget is refused with the file and what was expected.
@Suite struct BoundTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// tiny.yaml with `budgets` replaced by `budgets`.
    static func scenario(budgets: String, in folder: URL) throws -> String {
        let tiny = try String(contentsOf: root.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        let head = tiny.components(separatedBy: "\nbudgets:")[0]
        let text = head + "\nbudgets:\n" + budgets + "\nrankings:\n  - static\n"
        let path = folder.appendingPathComponent("bound.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A new empty folder for one test's files.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bound-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The two bounds, one knowing the views and one only their rate.
    static let bothBounds = """
          - {policy: oracle, label: seen, knows: views, per_day: 2}
          - {policy: oracle, label: rated, knows: rates, per_day: 2}
        """

    @Test func oneRowAPersonForEachBound() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.scenario(budgets: Self.bothBounds + "\n  - unlimited", in: folder)
        let outcome = try widgetsim(["bound", path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(lines.first?.first == "budget" && lines.count == 1 + 2 * 3)
        for row in lines.dropFirst() {
            let bound = Double(row[7])!, plan = Double(row[8])!, none = Double(row[9])!
            #expect(["seen", "rated"].contains(row[0]) && row[5] == "12" && Int(row[6])! <= 12)
            #expect(bound <= plan + 1e-6 && plan <= none + 1e-6 && bound > 0, "\(row)")
        }
    }

    /// People run on worker threads, each person on its own: the rows, the prices and the
    /// plan's hours are the same bytes on one thread as on three, in person order.
    @Test func theRowsAreTheSameWhateverTheThreads() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.scenario(budgets: Self.bothBounds, in: folder)
        var outputs: [[String]] = []
        for threads in [1, 3] {
            let files = ["rows", "prices", "hours"].map { folder.appendingPathComponent("\($0)-\(threads).csv").path }
            let outcome = try widgetsim(["bound", path, "--threads", "\(threads)", "--out", files[0], "--prices", files[1],
                                         "--plan-hours", files[2]])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            outputs.append(try files.map { try String(contentsOfFile: $0, encoding: .utf8) })
        }
        #expect(outputs[0] == outputs[1])
        let persons = outputs[0][0].split(separator: "\n").dropFirst().map { $0.split(separator: ",")[3] }
        #expect(persons == ["0", "1", "2", "0", "1", "2"])
        #expect(try widgetsim(["bound", path, "--threads", "0"]).status != 0)
    }

    @Test func aScenarioWithoutTheBoundIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.scenario(budgets: "  - unlimited\n  - {policy: oracle, per_day: 2}", in: folder)
        let outcome = try widgetsim(["bound", path])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains(path) && outcome.stderr.contains("knows: rates"), "\(outcome.stderr)")
    }

    /// No output may be the scenario file, a folder, or another output of the same
    /// command: each is refused before anything runs, and the scenario is left as it was.
    @Test func outputsThatWouldLoseAFileAreRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.scenario(budgets: "  - {policy: oracle, knows: rates, per_day: 2}", in: folder)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let same = folder.appendingPathComponent("rows.csv").path
        let cases: [([String], String)] = [
            (["--out", path], "is the scenario file"),
            (["--prices", folder.appendingPathComponent("./bound.yaml").path], "is the scenario file"),
            (["--plan-hours", folder.path], "is a folder"),
            (["--out", same, "--prices", same], "is also given to --out"),
            (["--out", ""], "is empty"),
        ]
        for (options, why) in cases {
            let outcome = try widgetsim(["bound", path] + options)
            #expect(outcome.status == 2, "\(options): \(outcome.stderr)")
            #expect(outcome.stderr.contains(why), "\(options): \(outcome.stderr)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        }
        #expect(!FileManager.default.fileExists(atPath: same))
    }
}
