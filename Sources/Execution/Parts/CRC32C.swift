import CCRC32C

/// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final xor
/// 0xFFFFFFFF), the checksum of iSCSI, ext4 and SCTP. Computed with the processor's
/// `crc32` instruction where it has one (SSE4.2), and otherwise from tables, eight
/// bytes a step ("slicing by 8"). Check value: CRC-32C of the nine bytes "123456789"
/// is 0xE3069283.
public struct CRC32C: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// Whether this processor computes the checksum with its `crc32` instruction.
    static let hardware = widgetsim_crc32c_hardware() != 0

    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0 ..< 256 {
            var c = UInt32(i)
            for _ in 0 ..< 8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[i] = c
        }
        for k in 1 ..< 8 {
            for i in 0 ..< 256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev >> 8) ^ t[Int(prev & 0xFF)]
            }
        }
        return t
    }()

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if Self.hardware {
            guard let base = bytes.baseAddress else { return }
            value = ~widgetsim_crc32c_update(~value, base, bytes.count)
        } else {
            updateFromTables(bytes)
        }
    }

    /// `update(_:)` from the tables, whatever the processor.
    mutating func updateFromTables(_ bytes: UnsafeRawBufferPointer) {
        var c = ~value
        let n = bytes.count
        var i = 0
        Self.tables.withUnsafeBufferPointer { t in
            while i + 8 <= n {
                let lo = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                let hi = UInt32(bytes[i + 4]) | UInt32(bytes[i + 5]) << 8 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 24
                let x = c ^ lo
                c = t[7 * 256 + Int(x & 0xFF)] ^ t[6 * 256 + Int((x >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((x >> 16) & 0xFF)] ^ t[4 * 256 + Int(x >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                c = (c >> 8) ^ t[Int((c ^ UInt32(bytes[i])) & 0xFF)]
                i += 1
            }
        }
        value = ~c
    }

    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) != nil { return }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    public static func of<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c = CRC32C()
        c.update(bytes)
        return c.value
    }

    /// The checksum as eight lower-case hex digits.
    public static func hex(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: 8 - h.count) + h
    }
}
