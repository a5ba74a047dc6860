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
        WorldProcess(rawValue: Int(key & 15))!
    }

    /// Merges `world`'s lists, keeping the items before `end` (the run's end): a binary
    /// heap of each process's next key, whose top is the next item.
    mutating func merge(_ world: PersonWorld, before end: SimTime) {
        var total = 0
        for p in WorldProcess.allCases { total += world.count(p) }
        let processes = WorldProcess.allCases.count
        var merged = 0
        var newKeys: [UInt64] = []
        positions = [Int32](unsafeUninitializedCapacity: total) { positions, positionCount in
            newKeys = [UInt64](unsafeUninitializedCapacity: total) { keys, keyCount in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: processes) { heap in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: processes) { next in
                        var count = 0
                        for p in WorldProcess.allCases {
                            next[p.rawValue] = 0
                            guard world.count(p) > 0 else { continue }
                            let key = Self.key(p, world.time(p, 0))
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
                            let p = Self.process(top)
                            let i = next[p.rawValue]
                            keys[merged] = top
                            positions[merged] = Int32(truncatingIfNeeded: i)
                            merged += 1
                            next[p.rawValue] = i + 1
                            let moving: UInt64
                            if i + 1 < world.count(p) {
                                moving = Self.key(p, world.time(p, i + 1))
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

    /// The time of item `i` of process `p`.
    @inline(__always)
    func time(_ p: WorldProcess, _ i: Int) -> SimTime {
        switch p {
        case .timeChange: timeChanges[i]
        case .environmentChange: environmentChanges[i]
        case .contentChange: randomChanges[i].time
        case .push: pushes[i].time
        case .sessionEnd: sessionEnds[i].time
        case .sessionStart: sessions[i].start
        case .view: views[i].time
        case .widgetAdded: additions[i].time
        case .audioEnd: audioEnds[i].time
        case .standByEnd: standByEnds[i]
        case .audioStart: audioStarts[i].time
        case .standByStart: standByStarts[i]
        }
    }
}
