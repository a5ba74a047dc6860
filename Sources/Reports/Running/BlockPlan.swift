import WidgetSimModel

/// One block of work: consecutive people of one replication, simulated under every
/// policy pair by one worker. Blocks are the unit of checkpoints (`--resume`) and of
/// shards, and they depend only on the scenario, never on threads or shards, so every
/// way of running a scenario cuts it the same way.
public struct BlockID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var replication: Int
    public var block: Int
    public init(replication: Int, block: Int) {
        self.replication = replication
        self.block = block
    }
    public static func < (a: Self, b: Self) -> Bool {
        (a.replication, a.block) < (b.replication, b.block)
    }
    public var description: String { "replication \(replication), block \(block)" }
    /// The file-name stem of the block's parts.
    public var stem: String { "r\(replication)-b\(block)" }
}

/// How a scenario's people are cut into blocks: `count` blocks per replication
/// (at most 64, at most one per person); block b holds people
/// [b·P/count, (b+1)·P/count).
public struct BlockPlan: Sendable, Equatable {
    public static let maximumBlocks = 64
    public let people: Int
    public let replications: Int
    public let count: Int

    public init(people: Int, replications: Int) {
        self.people = people
        self.replications = replications
        count = max(1, min(people, Self.maximumBlocks))
    }

    public init(_ s: Scenario) { self.init(people: s.people, replications: s.replications) }

    public func people(of block: Int) -> Range<Int> {
        (block * people / count) ..< ((block + 1) * people / count)
    }

    /// Every block of the run, in report order (replication, then block).
    public var all: [BlockID] {
        (0 ..< replications).flatMap { r in (0 ..< count).map { BlockID(replication: r, block: $0) } }
    }

    /// The blocks of shard `index` of `shards`: blocks [index·count/shards,
    /// (index+1)·count/shards) of every replication. Shards in order cover every block
    /// once; with more shards than blocks, some shards are empty.
    public func blocks(ofShard shard: Shard) -> [BlockID] {
        let range = (shard.index * count / shard.count) ..< ((shard.index + 1) * count / shard.count)
        return (0 ..< replications).flatMap { r in range.map { BlockID(replication: r, block: $0) } }
    }
}
