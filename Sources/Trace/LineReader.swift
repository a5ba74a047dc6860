import Foundation

/// Reads a file line by line through one fixed buffer, so a log of any size is read in
/// bounded memory: each line is handed over as bytes (without its `\n` or `\r\n`) with
/// its 1-based number, and is valid only during the call.
struct LineReader {
    /// The longest line accepted; a longer one is a located error (a binary file, or a
    /// file with no line breaks).
    static let longestLine = 1 << 20
    let path: String

    /// Calls `body` for every line; stops at the first error `body` throws.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int) throws(TraceError) -> Void) throws(TraceError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw TraceError(file: path, line: 0, message: "cannot open the log: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let chunk = 1 << 20
        let capacity = chunk + Self.longestLine
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var kept = 0  // bytes of an unfinished line at the buffer's start
        var lineNumber = 0
        while true {
            let n = read(fd, buffer + kept, chunk)
            if n < 0 {
                throw TraceError(file: path, line: lineNumber, message: "cannot read the log: \(String(cString: strerror(errno)))")
            }
            let filled = kept + n
            var start = 0
            var i = kept
            while i < filled {
                if buffer[i] == 10 {
                    lineNumber += 1
                    var stop = i
                    if stop > start && buffer[stop - 1] == 13 { stop -= 1 }
                    try body(UnsafeBufferPointer(start: buffer + start, count: stop - start), lineNumber)
                    start = i + 1
                }
                i += 1
            }
            kept = filled - start
            if n == 0 {
                if kept > 0 {
                    lineNumber += 1
                    var stop = kept
                    if buffer[stop - 1] == 13 { stop -= 1 }
                    try body(UnsafeBufferPointer(start: buffer + start, count: stop), lineNumber)
                }
                return
            }
            if kept > Self.longestLine {
                throw TraceError(
                    file: path, line: lineNumber + 1,
                    message: "a line longer than \(Self.longestLine) bytes: not a text log (or no line breaks)")
            }
            if start > 0 && kept > 0 { memmove(buffer, buffer + start, kept) }
        }
    }
}

/// Interns byte strings (user ids, app names) as small whole numbers without making a
/// `String` per line: open addressing over an FNV-1a hash.
struct ByteInterner {
    private(set) var names: [String] = []
    private var keys: [[UInt8]] = []
    private var slots: [Int32]
    private var mask: Int
    private var lastKey: [UInt8] = []
    private var lastId: Int32 = -1

    init() {
        slots = Array(repeating: -1, count: 64)
        mask = 63
    }

    var count: Int { names.count }

    mutating func id(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if lastId >= 0 && lastKey.elementsEqual(bytes) { return lastId }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { break }
            if keys[Int(id)].elementsEqual(bytes) {
                lastKey = keys[Int(id)]
                lastId = id
                return id
            }
            slot = (slot + 1) & mask
        }
        let id = Int32(names.count)
        let key = Array(bytes)
        keys.append(key)
        names.append(String(decoding: key, as: UTF8.self))
        slots[slot] = id
        if names.count * 2 > slots.count { grow() }
        lastKey = key
        lastId = id
        return id
    }

    /// The id of `name` if it has been seen.
    func lookup(_ name: String) -> Int32? {
        names.firstIndex(of: name).map(Int32.init)
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (id, key) in keys.enumerated() {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in key { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }
}
