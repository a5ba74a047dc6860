import WidgetSimModel

/// One block of work: consecutive people of one replication of one study point,
/// simulated under every policy pair by one worker. Blocks are the unit of checkpoints
/// (`--resume`) and of shards, and they depend only on the scenario (and study), never
/// on threads or shards, so every way of running a study cuts it the same way.
public struct BlockID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The point's position in the study's points (0 for a plain run).
    public var point: Int
    public var replication: Int
    public var block: Int
    public init(point: Int = 0, replication: Int, block: Int) {
        self.point = point
        self.replication = replication
        self.block = block
    }
    public static func < (a: Self, b: Self) -> Bool {
        (a.point, a.replication, a.block) < (b.point, b.replication, b.block)
    }
    public var description: String {
        (point > 0 ? "point \(point), " : "") + "replication \(replication), block \(block)"
    }
    /// The file-name stem of the block's parts.
    public var stem: String { (point > 0 ? "p\(point)-" : "") + "r\(replication)-b\(block)" }
}

/// How a study's people are cut into blocks. Each point is cut as a run of its
/// scenario: `count` blocks per replication (at most 64, at most one per person);
/// block b holds people [b·P/count, (b+1)·P/count).
public struct BlockPlan: Sendable, Equatable {
    public static let maximumBlocks = 64

    /// One point's cut.
    public struct Point: Sendable, Equatable {
        public let people: Int
        public let replications: Int
        public let count: Int
        public init(people: Int, replications: Int) {
            self.people = people
            self.replications = replications
            count = max(1, min(people, BlockPlan.maximumBlocks))
        }
    }

    public let points: [Point]

    public init(people: Int, replications: Int) {
        points = [Point(people: people, replications: replications)]
    }

    public init(_ s: Scenario) { self.init(people: s.people, replications: s.replications) }

    public init(_ study: Study) {
        points = study.points.map { Point(people: $0.scenario.people, replications: $0.scenario.replications) }
    }

    /// The first point's figures (a plain run's).
    public var people: Int { points[0].people }
    public var replications: Int { points[0].replications }
    public var count: Int { points[0].count }

    public func people(of block: Int) -> Range<Int> { people(of: BlockID(replication: 0, block: block)) }

    public func people(of id: BlockID) -> Range<Int> {
        let p = points[id.point]
        return (id.block * p.people / p.count) ..< ((id.block + 1) * p.people / p.count)
    }

    /// Every block of the study, in report order (point, replication, block).
    public var all: [BlockID] {
        points.indices.flatMap { k in
            (0 ..< points[k].replications).flatMap { r in
                (0 ..< points[k].count).map { BlockID(point: k, replication: r, block: $0) }
            }
        }
    }

    /// The blocks of shard `index` of `shards`: blocks [index·count/shards,
    /// (index+1)·count/shards) of every replication of every point. Shards in order
    /// cover every block once; with more shards than blocks, some shards are empty.
    public func blocks(ofShard shard: Shard) -> [BlockID] {
        points.indices.flatMap { k in
            let count = points[k].count
            let range = (shard.index * count / shard.count) ..< ((shard.index + 1) * count / shard.count)
            return (0 ..< points[k].replications).flatMap { r in range.map { BlockID(point: k, replication: r, block: $0) } }
        }
    }
}
