import Foundation

/// An instant of a log: its wall-clock time in the people's zone (milliseconds since
/// 1970-01-01 00:00 on that clock, which gives the local hour and weekday) and its
/// absolute time (milliseconds since the Unix epoch).
public struct TraceTime: Sendable, Hashable, Comparable {
    public var localMs: Int64
    public var utcMs: Int64

    public static func < (a: Self, b: Self) -> Bool { a.utcMs < b.utcMs }

    /// The local day number (days since 1970-01-01 on the local clock).
    public var day: Int64 { floorDiv(localMs, 86_400_000) }
    /// The local hour, 0…23.
    public var hour: Int { Int(floorMod(localMs, 86_400_000) / 3_600_000) }
    /// The local weekday, Monday 0 … Sunday 6 (1970-01-01 was a Thursday).
    public var weekday: Int { Int(floorMod(day + 3, 7)) }
}

@inline(__always) func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
@inline(__always) func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = floorDiv(y, 400)
    let yoe = y - era * 400
    let mp = (m + 9) % 12
    let doy = (153 * mp + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

/// The date of a day number: (year, month, day).
func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719_468
    let era = floorDiv(z, 146_097)
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
}

/// A timestamp as written: wall-clock milliseconds and, when the text carries one, its
/// offset from UTC in seconds.
struct WrittenTime {
    var wallMs: Int64
    var offsetSeconds: Int?
}

/// Parses `YYYY-MM-DD[ T]HH:MM[:SS[.fff]][Z|±HH[:MM]]`; nil when the bytes are not one.
func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>) -> WrittenTime? {
    var i = 0
    let n = b.count
    func digits(_ count: Int) -> Int64? {
        guard i + count <= n else { return nil }
        var v: Int64 = 0
        for k in 0 ..< count {
            let c = b[i + k]
            guard c >= 48 && c <= 57 else { return nil }
            v = v * 10 + Int64(c - 48)
        }
        i += count
        return v
    }
    func expect(_ c: UInt8) -> Bool {
        guard i < n, b[i] == c else { return false }
        i += 1
        return true
    }
    guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
    guard (1 ... 12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
    guard i < n, b[i] == 32 || b[i] == 84 else { return nil }
    i += 1
    guard let hour = digits(2), expect(58), let minute = digits(2), hour < 24, minute < 60 else { return nil }
    var second: Int64 = 0, ms: Int64 = 0
    if expect(58) {
        guard let s = digits(2), s < 61 else { return nil }
        second = min(s, 59)
        if i < n, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale: Int64 = 100
            var any = false
            while i < n, b[i] >= 48, b[i] <= 57 {
                ms += Int64(b[i] - 48) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
    }
    var offset: Int?
    if i < n {
        if b[i] == 90 && i + 1 == n {
            offset = 0
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2), oh <= 18 else { return nil }
            var om: Int64 = 0
            if expect(58) {
                guard let m = digits(2) else { return nil }
                om = m
            } else if i < n {
                guard let m = digits(2) else { return nil }
                om = m
            }
            offset = sign * Int(oh * 3600 + om * 60)
        } else {
            return nil
        }
    }
    guard i == n else { return nil }
    let wall = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second
    return WrittenTime(wallMs: wall * 1000 + ms, offsetSeconds: offset)
}

func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

/// Turns written timestamps into `TraceTime`s in the people's zone, asking the tz
/// database once per hour of the log rather than once per line.
struct ZoneConverter {
    let zone: TimeZone?
    private var utcOffsets: [Int64: Int64] = [:]  // UTC hour → offset ms
    private var wallOffsets: [Int64: Int64] = [:]  // wall hour → offset ms

    init(zone: TimeZone?) { self.zone = zone }

    /// nil when the time carries no offset and there is no zone to read it in.
    mutating func time(_ written: WrittenTime) -> TraceTime? {
        if let offset = written.offsetSeconds {
            let utc = written.wallMs - Int64(offset) * 1000
            guard zone != nil else { return TraceTime(localMs: written.wallMs, utcMs: utc) }
            return TraceTime(localMs: utc + offsetAtUTC(utc), utcMs: utc)
        }
        guard let zone else { return nil }
        let key = floorDiv(written.wallMs, 3_600_000)
        let offset: Int64
        if let known = wallOffsets[key] {
            offset = known
        } else {
            // The offset in force at the wall time: try the offset of the instant read as
            // UTC, then correct once (a wall time in a spring-forward gap keeps the first).
            let first = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(written.wallMs) / 1000))) * 1000
            let second = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(written.wallMs - first) / 1000))) * 1000
            offset = second
            wallOffsets[key] = offset
        }
        return TraceTime(localMs: written.wallMs, utcMs: written.wallMs - offset)
    }

    private mutating func offsetAtUTC(_ utc: Int64) -> Int64 {
        let key = floorDiv(utc, 3_600_000)
        if let known = utcOffsets[key] { return known }
        let offset = Int64(zone!.secondsFromGMT(for: Date(timeIntervalSince1970: Double(key * 3_600_000) / 1000))) * 1000
        utcOffsets[key] = offset
        return offset
    }
}
