import Dispatch
import Foundation

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal) during a run: the first asks the run to stop, leaving it
/// resumable; a second one ends the program at once (finished blocks are safe anyway).
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    var requested: Bool { lock.withLock { received != nil } }
    var signal: Int32? { lock.withLock { received } }
    var signalName: String? {
        signal.map { $0 == SIGINT ? "Ctrl-C" : $0 == SIGTERM ? "SIGTERM" : $0 == SIGHUP ? "SIGHUP" : "signal \($0)" }
    }

    static func install() -> StopRequest {
        let request = StopRequest()
        for number in [SIGINT, SIGTERM, SIGHUP] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                request.lock.withLock { if request.received == nil { request.received = number } }
                printError("\nwidgetsim: stopping after the blocks in progress are set aside (again to quit at once)")
                Foundation.signal(number, SIG_DFL)
            }
            source.resume()
            request.sources.append(source)
        }
        return request
    }
}
