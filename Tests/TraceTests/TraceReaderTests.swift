import Foundation
import Testing
@testable import WidgetSimTrace

@Suite struct TraceReaderTests {
    /// A small hand-written log in the LSApp layout.
    static let lsapp = """
        user_id\tsession_id\ttimestamp\tapp_name\tevent_type
        1\t7\t2026-03-02 08:00:00\tGmail\tOpened
        1\t7\t2026-03-02 08:00:30\tGmail\tUser Interaction
        1\t7\t2026-03-02 08:02:00\tGmail\tClosed
        1\t7\t2026-03-02 08:03:00\tWeather\tOpened
        1\t7\t2026-03-02 08:03:10\tWeather\tClosed
        1\t7\t2026-03-02 08:01:00\tWeather\tOpened
        1\t8\t2026-03-02 21:00:00\tGoogle News\tOpened
        2\t9\t2026-03-03 12:00:00\tGmail\tClosed
        2\t9\t2026-03-03 12:00:05\tGmail\tSwiped
        2\t9\t2026-03-03 12:10:00\tGmail\tOpened
        2\t9\t2026-03-03 12:10:40\tGmail\tOpened
        2\t9\t2026-03-03 12:15:00\tGmail\tClosed

        """

    @Test func lsappSessionsAndWarnings() throws {
        let path = try temporaryFile("small.tsv", Self.lsapp)
        let (all, reader) = try events(path, .lsapp, zone: "Europe/Rome")
        #expect(reader.personNames == ["1", "2"])
        #expect(reader.appNames == ["Gmail", "Weather", "Google News"])
        let sessions = all.filter { $0.kind == .session }.sorted { ($0.person, $0.start.utcMs) < ($1.person, $1.start.utcMs) }
        // 1: Gmail 2 min, Weather 10 s, News without Closed (90 s); 2: Gmail reopened after 40 s, then 4 min 20 s.
        #expect(sessions.map { $0.end.utcMs - $0.start.utcMs } == [120_000, 10_000, 90_000, 40_000, 260_000])
        #expect(sessions.map(\.closed) == [true, true, false, false, true])
        #expect(sessions.map(\.line) == [2, 5, 8, 11, 12])
        // 08:00 in Rome on 2 March 2026 (CET, UTC+1) is 07:00 UTC; local hour 8, a Monday.
        #expect(sessions[0].start.utcMs == 1_772_434_800_000)
        #expect(sessions[0].start.hour == 8)
        #expect(sessions[0].start.weekday == 0)
        func warning(_ prefix: String) -> [Int] {
            reader.warnings.filter { $0.message.hasPrefix(prefix) }.flatMap { [$0.count, $0.firstLine] }
        }
        #expect(warning("a line earlier") == [1, 7])
        #expect(warning("an unknown event") == [1, 10])
        #expect(warning("a Closed event") == [1, 9])
        #expect(warning("an Opened event") == [1, 8])
        #expect(warning("an app opened again") == [1, 11])
        #expect(reader.warnings.first!.description.hasPrefix("\(path):7: warning: "))
        #expect(reader.lines == 13)
    }

    /// A small hand-written log in the generic CSV layout.
    static let csv = """
        person,start,end,app,kind
        ana,2026-03-02T08:00:00+01:00,2026-03-02T08:01:30+01:00,Mail,session
        ana,2026-03-02T08:00:10+01:00,,Mail,donation
        ana,2026-03-02 08:05:00,,,view
        ana,2026-03-02 09:00:00.250,,Mail,session
        ben,2026-03-02T07:00:00Z,2026-03-02T06:59:00Z,News,session
        ben,2026-03-02T07:30:00Z,,News,push
        ben,2026-03-02T07:31:00Z,,News,wave

        """

    @Test func csvKindsOffsetsAndDefaults() throws {
        let path = try temporaryFile("small.csv", Self.csv)
        let (all, reader) = try events(path, .csv, zone: "Europe/Rome")
        #expect(all.map(\.kind) == [.session, .donation, .view, .session, .push])
        #expect(all[0].end.utcMs - all[0].start.utcMs == 90_000)
        #expect(all[0].start.hour == 8)
        // A time without an offset is read in the zone; fractions of a second are kept.
        #expect(all[2].start.utcMs == all[0].start.utcMs + 300_000)
        #expect(all[3].start.localMs % 1000 == 250)
        #expect(all[3].end.utcMs - all[3].start.utcMs == TraceReader.defaultSessionMs)
        #expect(!all[3].closed)
        // 07:30 UTC is 08:30 in Rome.
        #expect(all[4].start.hour == 8)
        #expect(all[2].app == -1)
        #expect(reader.warnings.map(\.firstLine) == [8, 5, 6])
    }

    @Test(arguments: [
        ("1\t1\t2026-03-02 08:00:00\tGmail\n", TraceFormat.lsapp, 1, "4 tab-separated fields, expected 5"),
        ("1\t1\t2026-03-02 08:00:00\tGmail\tOpened\tx\n", .lsapp, 1, "6 tab-separated fields"),
        ("1\t1\t2026-02-30 08:00:00\tGmail\tOpened\n", .lsapp, 1, "timestamp `2026-02-30 08:00:00` is not a timestamp"),
        ("\t1\t2026-03-02 08:00:00\tGmail\tOpened\n", .lsapp, 1, "the person (user) field is empty"),
        ("person,start,end,app,kind\na,2026-03-02 08:00,,Mail,session\na,yesterday,,Mail,session\n", .csv, 3, "start `yesterday` is not a timestamp"),
        ("a,2026-03-02 08:00:00,,,donation\n", .csv, 1, "the app field is empty"),
    ])
    func malformedLinesAreLocated(_ text: String, _ format: TraceFormat, _ line: Int, _ message: String) throws {
        let path = try temporaryFile("bad", text)
        let error = try #require(throws: TraceError.self) { try events(path, format) }
        #expect(error.line == line)
        #expect(error.description.hasPrefix("\(path):\(line): "))
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func timestampsWithoutAZoneNeedOne() throws {
        let path = try temporaryFile("nozone.tsv", "u\t1\t2026-03-02 08:00:00\tGmail\tOpened\n")
        let error = try #require(throws: TraceError.self) { try events(path, .lsapp, zone: nil) }
        #expect(error.description == "\(path):1: timestamp `2026-03-02 08:00:00` has no zone: give the log's time zone (--time-zone, or time_zone: under trace:) to read it in")
        // With an offset, no zone is needed: the wall time is the local one.
        let csv = try temporaryFile("offset.csv", "a,2026-03-02T08:00:00+05:30,,M,push\n")
        let (all, _) = try events(csv, .csv, zone: nil)
        #expect(all[0].start.hour == 8)
        #expect(all[0].start.utcMs == all[0].start.localMs - 19_800_000)
    }

    @Test func missingFileAndBinaryFile() throws {
        let error = try #require(throws: TraceError.self) { try events("/nonexistent/log.tsv", .lsapp) }
        #expect(error.description.hasPrefix("/nonexistent/log.tsv:0: cannot open the log"))
        let path = try temporaryFile("blob", String(repeating: "x", count: LineReader.longestLine + 2_000_000))
        let long = try #require(throws: TraceError.self) { try events(path, .lsapp) }
        #expect(long.line == 1)
        #expect(long.message.contains("not a text log"))
    }

    @Test func linesAcrossTheReadBufferAndCRLF() throws {
        // Lines that straddle the 1 MiB chunks, ending in \r\n, the last without a break.
        var text = ""
        var n = 0
        while text.utf8.count < 3 << 20 {
            text += "u\(n % 7)\t1\t2026-03-02 \(String(format: "%02d", 8 + n / 100_000)):00:00\tApp\(n % 3)\tUser Interaction\r\n"
            n += 1
        }
        text += "u0\t1\t2026-03-02 23:00:00\tApp0\tOpened"
        let path = try temporaryFile("big.tsv", text)
        let (all, reader) = try events(path, .lsapp)
        #expect(reader.lines == n + 1)
        #expect(all.count == 1)
        #expect(reader.warnings.count == 1)
    }
}
