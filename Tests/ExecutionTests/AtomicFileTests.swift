import Foundation
import Testing
@testable import WidgetSimExecution

@Suite struct AtomicFileTests {
    /// Text, then two files appended (one larger than the copy buffer, one empty, one
    /// of a single byte), then text again: the committed file holds exactly those
    /// bytes, in that order.
    @Test func appendedFilesKeepTheirBytesAndOrder() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url
        }
        var random = SystemRandomNumberGenerator()
        let big = (0 ..< (3 << 20) + 12_345).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        let sources = [try file("big", big), try file("empty", []), try file("one", [0x2A])]
        let out = try AtomicFile(folder.appendingPathComponent("out.csv"))
        try out.write("head\n")
        for url in sources { try out.append(contentsOf: url) }
        try out.write("tail\n")
        try out.commit()
        let written = try [UInt8](Data(contentsOf: folder.appendingPathComponent("out.csv")))
        #expect(written == Array("head\n".utf8) + big + [0x2A] + Array("tail\n".utf8))
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

    @Test func aMissingFileIsNamed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = try AtomicFile(folder.appendingPathComponent("out.csv"))
        defer { out.abandon() }
        let missing = folder.appendingPathComponent("r0-b3.rows")
        let error = #expect(throws: PartError.self) { try out.append(contentsOf: missing) }
        #expect(error.map { "\($0)" } == "missing part file \(missing.path)")
    }
}
