import WidgetSimKernel

/// The order in which the engine meets a person's world: every item of every process's
/// list, by time, then by process (`WorldProcess` is numbered in its same-time rank
/// order), then by position in its list.
///
/// A world is built once per person and run under every policy pair, so its lists are
/// merged once, when it is built, and each run reads the merged order straight
/// through. `keys[k]` packs item k's time (≥ 0) above four bits of its process, and
/// `positions[k]` is its index in that process's list.
public struct WorldOrder {
    public private(set) var keys: [UInt64] = []
    public private(set) var positions: [Int32] = []
    /// The key of an item at `t` of process `p`.
    @inline(__always)
    static func key(_ p: WorldProcess, _ t: SimTime) -> UInt64 { UInt64(t) << 4 | UInt64(p.rawValue) }

    /// The time of the item with `key`.
    @inline(__always)
    public static func time(_ key: UInt64) -> SimTime { SimTime(key >> 4) }

    /// The process of the item with `key`.
    @inline(__always)
    public static func process(_ key: UInt64) -> WorldProcess {
        // The cases take their raw values in declaration order, so a case's one-byte tag
        // is its raw value: read as such, without the checked initialiser's call.
        let raw = UInt8(truncatingIfNeeded: key & 15)
        let p = unsafeBitCast(raw, to: WorldProcess.self)
        assert(p.rawValue == Int(raw), "a world key holds a process number that no case has")
        return p
    }

    /// Merges `world`'s lists, keeping the items before `end` (the run's end). Each
    /// list's keys are laid out in turn in one array (a segment per process), then the
    /// segments are merged through a binary heap of each one's next key.
    mutating func merge(_ world: PersonWorld, before end: SimTime) {
        let processes = WorldProcess.allCases.count
        var starts = [Int](repeating: 0, count: processes + 1)
        for p in WorldProcess.allCases { starts[p.rawValue + 1] = starts[p.rawValue] + world.count(p) }
        let total = starts[processes]
        guard total > 0 else {
            keys = []
            positions = []
            return
        }
        let segments = [UInt64](unsafeUninitializedCapacity: total) { all, filled in
            for p in WorldProcess.allCases { world.writeKeys(p, into: all.baseAddress! + starts[p.rawValue]) }
            filled = total
        }
        var merged = 0
        var newKeys: [UInt64] = []
        positions = [Int32](unsafeUninitializedCapacity: total) { positions, positionCount in
            newKeys = [UInt64](unsafeUninitializedCapacity: total) { keys, keyCount in
                segments.withUnsafeBufferPointer { all in
                    starts.withUnsafeBufferPointer { starts in
                        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: processes) { heap in
                            withUnsafeTemporaryAllocation(of: Int.self, capacity: processes) { next in
                                var count = 0
                                for p in 0 ..< processes {
                                    next[p] = starts[p]
                                    guard starts[p] < starts[p + 1] else { continue }
                                    let key = all[starts[p]]
                                    var hole = count
                                    while hole > 0 && key < heap[(hole - 1) / 2] {
                                        heap[hole] = heap[(hole - 1) / 2]
                                        hole = (hole - 1) / 2
                                    }
                                    heap[hole] = key
                                    count += 1
                                }
                                while count > 0 {
                                    let top = heap[0]
                                    if Self.time(top) >= end { break }
                                    let p = Int(top & 15)
                                    let i = next[p]
                                    keys[merged] = top
                                    positions[merged] = Int32(truncatingIfNeeded: i - starts[p])
                                    merged += 1
                                    next[p] = i + 1
                                    let moving: UInt64
                                    if i + 1 < starts[p + 1] {
                                        moving = all[i + 1]
                                    } else {
                                        count -= 1
                                        guard count > 0 else { break }
                                        moving = heap[count]
                                    }
                                    // Sift `moving` down from the top.
                                    var hole = 0
                                    while true {
                                        let left = 2 * hole + 1
                                        if left >= count { break }
                                        var child = left
                                        if left + 1 < count && heap[left + 1] < heap[left] { child = left + 1 }
                                        if !(heap[child] < moving) { break }
                                        heap[hole] = heap[child]
                                        hole = child
                                    }
                                    heap[hole] = moving
                                }
                            }
                        }
                    }
                }
                keyCount = merged
            }
            positionCount = merged
        }
        keys = newKeys
    }
}

extension PersonWorld {
    /// The number of items of process `p`.
    @inline(__always)
    func count(_ p: WorldProcess) -> Int {
        switch p {
        case .timeChange: timeChanges.count
        case .environmentChange: environmentChanges.count
        case .contentChange: randomChanges.count
        case .push: pushes.count
        case .sessionEnd: sessionEnds.count
        case .sessionStart: sessions.count
        case .view: views.count
        case .widgetAdded: additions.count
        case .audioEnd: audioEnds.count
        case .standByEnd: standByEnds.count
        case .audioStart: audioStarts.count
        case .standByStart: standByStarts.count
        }
    }

    /// Writes the key of every item of process `p`, in list order, from `out` on.
    func writeKeys(_ p: WorldProcess, into out: UnsafeMutablePointer<UInt64>) {
        func write(_ times: some Sequence<SimTime>) {
            var k = 0
            for t in times {
                out[k] = WorldOrder.key(p, t)
                k += 1
            }
        }
        switch p {
        case .timeChange: write(timeChanges)
        case .environmentChange: write(environmentChanges)
        case .contentChange: write(randomChanges.lazy.map(\.time))
        case .push: write(pushes.lazy.map(\.time))
        case .sessionEnd: write(sessionEnds.lazy.map(\.time))
        case .sessionStart: write(sessions.lazy.map(\.start))
        case .view: write(views.lazy.map(\.time))
        case .widgetAdded: write(additions.lazy.map(\.time))
        case .audioEnd: write(audioEnds.lazy.map(\.time))
        case .standByEnd: write(standByEnds)
        case .audioStart: write(audioStarts.lazy.map(\.time))
        case .standByStart: write(standByStarts)
        }
    }
}
