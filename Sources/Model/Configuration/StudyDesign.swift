/// How an exploring study (`study: explore:`) chose its points: a sample design over the
/// ranges of its uncertain values, each point one sampled world. The points' values are
/// in `Study.points`; this keeps what the reports need beyond them.
public struct StudyDesign: Sendable, Equatable {
    /// `lhs`, `sobol` or `halton`.
    public var method: String
    /// The samples asked for: the points with `lhs` and `halton`; with `sobol`, the base
    /// samples N of Saltelli's design, which runs N (d + 2) points for d ranges.
    public var samples: Int
    /// The seed the design was drawn from (it matters to `lhs` only).
    public var seed: UInt64
    /// The explored values, in the order the file lists them (the study's parameters).
    public var ranges: [Range]
    /// Each point's values as numbers (durations in seconds), by point number.
    public var numbers: [[Double]]

    public struct Range: Sendable, Equatable {
        public var path: String
        /// The bounds as written.
        public var low: String
        public var high: String
        public init(path: String, low: String, high: String) {
            self.path = path
            self.low = low
            self.high = high
        }
    }

    public init(method: String, samples: Int, seed: UInt64, ranges: [Range], numbers: [[Double]]) {
        self.method = method
        self.samples = samples
        self.seed = seed
        self.ranges = ranges
        self.numbers = numbers
    }

    /// Whether the points follow Saltelli's design (A, AB_1 … AB_d, B per base sample),
    /// from which Sobol indices can be estimated.
    public var isSaltelli: Bool { method == "sobol" }
}
