import WidgetSimModel

/// A fingerprint of a run's order of events: a CRC-32C over every handled event's time,
/// kind, person and policy pair, in the order the engine handles them (a traced run is
/// run on one thread, person after person). Two runs with the same fingerprint handled
/// the same events in the same order; any change of event order, time or kind shows,
/// even one that leaves every report byte as it was. Set it as a runner's `trace`.
public final class EventFingerprint: TraceSink {
    private var crc = CRC32C()
    /// Events recorded so far.
    public private(set) var events = 0

    public init() {}

    /// The fingerprint so far, as eight hexadecimal digits.
    public var value: String { CRC32C.hex(crc.value) }

    public func record(time: Int64, person: Int, pair: PolicyPair?, event: String, widget: String, decision: String, reason: String) {
        withUnsafeBytes(of: time.littleEndian) { crc.update($0) }
        withUnsafeBytes(of: Int64(person).littleEndian) { crc.update($0) }
        crc.update("\(pair?.budget ?? "")/\(pair?.ranking ?? "")/\(event)/\(widget)\n".utf8)
        events += 1
    }
}
