import Foundation
import Testing
@testable import WidgetSimExecution

@Suite struct AtomicFileTests {
    /// A file linked into place holds its source's bytes under the new name, the same
    /// file on the disk (no copy); abandoned before its commit, it leaves the source and
    /// no temporary name behind.
    @Test func aLinkedFileIsItsSourceAndAbandoningItKeepsTheSource() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("rows-0.log")
        let bytes = (0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: source)
        let url = folder.appendingPathComponent("widget_days.csv")
        let abandoned = try #require(AtomicFile.linking(source, to: url))
        abandoned.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["rows-0.log"])
        let linked = try #require(AtomicFile.linking(source, to: url))
        try AtomicFile.finishWriting([linked])
        try linked.commit()
        #expect(try [UInt8](Data(contentsOf: url)) == bytes)
        func inode(_ u: URL) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: u.path)[.systemFileNumber] as? Int)
        }
        #expect(try inode(url) == inode(source))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["rows-0.log", "widget_days.csv"])
    }

    /// Pieces of bytes on either side of the size written without the buffer, between
    /// buffered text and arrays: the committed file holds them all, in order.
    @Test func piecesWrittenAroundTheBufferKeepTheirOrder() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SystemRandomNumberGenerator()
        let out = try AtomicFile(folder.appendingPathComponent("out.csv"))
        var expected: [UInt8] = []
        for n in [0, 1, 4095, 4096, 4097, 70_000, 10, (1 << 20) + 3, 5, 300_000] {
            let piece = (0 ..< n).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            try piece.withUnsafeBytes { try out.write($0) }
            expected += piece
            try out.write("line \(n)\n")
            expected += Array("line \(n)\n".utf8)
            let small = (0 ..< n % 97).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            try out.write(small)
            expected += small
        }
        try out.commit()
        let written = try [UInt8](Data(contentsOf: folder.appendingPathComponent("out.csv")))
        #expect(written == expected)
    }

    /// Files finished together: each holds its own bytes under its own name once
    /// committed, durable or not, whether its bytes were buffered or already written; a
    /// file finished alone before is left as it was.
    @Test func filesFinishedTogetherKeepTheirOwnBytes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [AtomicFile] = []
        var expected: [String: [UInt8]] = [:]
        for (k, n) in [0, 10, 5000, (1 << 20) + 7, 3].enumerated() {
            let name = "f\(k).csv"
            let f = try AtomicFile(folder.appendingPathComponent(name), durable: k % 2 == 0)
            let bytes = (0 ..< n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ k) }
            try f.write(bytes)
            try f.write("end \(k)\n")
            expected[name] = bytes + Array("end \(k)\n".utf8)
            if k == 4 { try f.finishWriting() }
            files.append(f)
        }
        try AtomicFile.finishWriting(files)
        for f in files { try f.commit() }
        for (name, bytes) in expected {
            #expect(try [UInt8](Data(contentsOf: folder.appendingPathComponent(name))) == bytes, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == expected.keys.sorted())
    }

    /// Flushing at once reports each descriptor's own result, in order: 0 for the open
    /// files, EBADF for descriptors that are not open.
    @Test func flushAtOnceReportsEachFileInOrder() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var open: [Int32] = []
        for k in 0 ..< 3 {
            let url = folder.appendingPathComponent("f\(k)")
            try Data("file \(k)".utf8).write(to: url)
            let fd = Glibc.open(url.path, O_RDONLY)
            try #require(fd >= 0)
            open.append(fd)
        }
        defer { open.forEach { _ = close($0) } }
        #expect(OutputFolder.flushAtOnce([open[0], -1, open[1], 999_999, open[2]]) == [0, EBADF, 0, EBADF, 0])
        #expect(OutputFolder.flushAtOnce([-1]) == [EBADF])
        #expect(OutputFolder.flushAtOnce([open[1]]) == [0])
        #expect(OutputFolder.flushAtOnce([]) == [])
    }
}
