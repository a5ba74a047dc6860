import Foundation
import Testing
@testable import WidgetSimReportPage

/// gnuplot started before its scripts exist, fed them through standard input, and the
/// page rendered while it draws (`Gnuplot`, `SVGSlots`).
@Suite("gnuplot started early")
struct GnuplotTests {
    /// A chart of two points, or (with `broken`) one that names a plot style gnuplot has not.
    func chart(_ name: String, broken: Bool = false) -> Chart {
        Chart(name: name, caption: "A test chart.", data: [(file: "\(name).csv", text: "x,y\n1,2\n3,4\n")],
              body: "plot '\(name).csv' using 1:2 with \(broken ? "crayons" : "lines") title 'y'", marks: 2)
    }

    /// The message of the `gnuplotFailed` error `body` throws; nil when it throws none.
    func failure(_ body: () throws(ReportPage.BuildError) -> Void) -> String? {
        do { try body() } catch { if case .gnuplotFailed(let text) = error { return text } }
        return nil
    }

    @Test("a failing script: the message gnuplot NAME.gp prints, naming the script and its line; nothing written")
    func failingScript() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let charts = [chart("first"), chart("broken", broken: true), chart("third")]
        let drawer = try #require(Gnuplot.start())
        let text = try #require(failure { () throws(ReportPage.BuildError) in _ = try ReportPage.write(charts, in: folder, gnuplot: drawer) { _ in "page" } })
        #expect(text.contains("\"broken.gp\" line 9: unrecognized plot type"), "\(text)")

        // The same message as gnuplot given the script's file.
        let alone = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: alone) }
        let broken = charts[1]
        try broken.data[0].text.write(to: alone.appendingPathComponent(broken.data[0].file), atomically: false, encoding: .utf8)
        try broken.script.write(to: alone.appendingPathComponent("broken.gp"), atomically: false, encoding: .utf8)
        let direct = try runProgram(try #require(ReportPage.findExecutable("gnuplot")), ["broken.gp"], in: alone)
        #expect(direct.status != 0)
        #expect(text == direct.err.trimmingCharacters(in: .whitespacesAndNewlines))

        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a folder whose name holds a space, quotes, a backslash and a newline: every SVG drawn")
    func awkwardFolder() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("a b'c\"d\\e\nf")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let charts = [chart("one"), chart("two")]
        let page = try ReportPage.write(charts, in: folder, gnuplot: try #require(Gnuplot.start())) { svgs in
            svgs.keys.sorted().map { svgs[$0]! }.joined(separator: "\n")
        }
        var drawn: [String] = []
        for name in ["one", "two"] {
            let bytes = try Data(contentsOf: folder.appendingPathComponent("report/\(name).svg"))
            drawn.append(try #require(ReportPage.inlineSVG(Array(bytes))))
        }
        #expect(try String(contentsOf: page, encoding: .utf8) == drawn.joined(separator: "\n"))
    }

    @Test("gnuplot's input closed before its scripts are sent: an error, not the end of the program")
    func inputClosed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A program that closes its standard input and waits: the scripts are written into a pipe without a reader.
        let program = folder.appendingPathComponent("closes-input")
        try "#!/bin/sh\nexec 0<&-\nsleep 1\n".write(to: program, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        let drawer = try #require(Gnuplot.start(program.path))
        Thread.sleep(forTimeInterval: 0.2)
        let pages = folder.appendingPathComponent("pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        #expect(failure { () throws(ReportPage.BuildError) in _ = try ReportPage.write([chart("one")], in: pages, gnuplot: drawer) { _ in "page" } } == "one.gp drew no SVG")
    }

    @Test("a gnuplot ended while it waited (killed) is started again")
    func endedWhileWaiting() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let drawer = try #require(Gnuplot.start())
        let first = drawer.processIdentifier
        kill(first, SIGKILL)
        for _ in 0 ..< 200 where kill(first, 0) == 0 { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        _ = try ReportPage.write([chart("one")], in: folder, gnuplot: drawer) { svgs in svgs["one"] ?? "" }
        #expect(drawer.processIdentifier != first)
        #expect(try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8).hasPrefix("<svg"))
    }

    @Test("one gnuplot given two pages: the second is drawn by a gnuplot started again")
    func twoPages() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let drawer = try #require(Gnuplot.start())
        for name in ["first", "second"] {
            let page = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
            _ = try ReportPage.write([chart(name)], in: page, gnuplot: drawer) { svgs in svgs[name] ?? "" }
            #expect(try String(contentsOf: page.appendingPathComponent("report.html"), encoding: .utf8).hasPrefix("<svg"))
        }
    }

    @Test("a gnuplot that cannot start: its path in the message")
    func cannotStart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let drawer = try #require(Gnuplot.start(folder.appendingPathComponent("no-such-gnuplot").path))
        let message = failure { () throws(ReportPage.BuildError) in _ = try ReportPage.write([chart("one")], in: folder, gnuplot: drawer) { _ in "page" } }
        #expect(message?.hasPrefix("cannot start \(folder.path)/no-such-gnuplot") == true, "\(message ?? "")")
    }

    @Test("the page rendered with markers and filled is the page rendered from the SVGs, byte for byte")
    func slotsFill() throws {
        let folder = try tinyRunFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let written = try ReportPage.build(in: folder)
        let inputs = try Inputs.read(folder)
        let sections = Sections.make(inputs)
        var svgs: [String: String] = [:]
        for name in written.charts {
            let bytes = try Data(contentsOf: folder.appendingPathComponent("report/\(name).svg"))
            svgs[name] = ReportPage.inlineSVG(Array(bytes))
        }
        #expect(svgs.count == written.charts.count)
        let page = Page(inputs, sections, svgs).render()
        let slots = SVGSlots(written.charts)
        let filled = try #require(slots.fill(Page(inputs, sections, slots.markers).render(), with: svgs))
        #expect(filled == page)
        #expect(Array(filled.utf8) == Array(try String(contentsOf: written.page, encoding: .utf8).utf8))
        // A draft whose markers are not whole is refused, for the page to be rendered from the SVGs.
        let edge = try #require(slots.markers[written.charts[0]]).prefix { $0 != "\u{E001}" } + "\u{E001}"
        #expect(slots.fill("a" + edge + "b", with: svgs) == nil)
        #expect(slots.fill("a" + edge + "not-a-chart" + edge + "b", with: svgs) == nil)
    }

    @Test("inlineSVG: from the first <svg on; nil without one or for bytes that are not UTF-8")
    func inline() {
        #expect(ReportPage.inlineSVG(Array("<?xml version=\"1.0\"?>\n<!-- <sv -->\n<svg width=\"1\">é</svg>\n".utf8))
                == "<svg width=\"1\">é</svg>\n")
        #expect(ReportPage.inlineSVG(Array("<sv<svg>".utf8)) == "<svg>")
        #expect(ReportPage.inlineSVG(Array("<?xml?><sv".utf8)) == nil)
        #expect(ReportPage.inlineSVG([0x3c, 0x73, 0x76, 0x67, 0xff]) == nil)
    }

    @Test("gnuplotQuoted: a double-quoted gnuplot string of any text")
    func quoting() {
        #expect(gnuplotQuoted("a b") == "\"a b\"")
        #expect(gnuplotQuoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(gnuplotQuoted("a\nb\u{7f}") == "\"a\\012b\\177\"")
        #expect(gnuplotQuoted("é'") == "\"é'\"")
    }
}
