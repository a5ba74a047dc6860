/// A parameter study: one scenario run at several points, each point the scenario with
/// some of its values changed. Every point simulates the same people with the same
/// random streams (the scenario's seed), so differences between points are paired the
/// way differences between policy pairs are.
///
/// A plain run is a study of one point with no parameters.
public struct Study: Sendable {
    /// The most points a study may run at once; a larger one runs point by point
    /// (`--point K`).
    public static let maximumPoints = 1000

    /// The paths of the varied values, in the order they were given (the file's
    /// `study: parameters:` first, then the command line's `--sweep`).
    public var parameters: [String]
    /// The points to run, in point order. With `--point K`, only point K.
    public var points: [StudyPoint]
    /// The point every other point is compared against (its number).
    public var baselinePoint: Int
    /// How many points the whole study has (more than `points.count` under `--point K`).
    public var totalPoints: Int
    /// The sample design of an exploring study (`study: explore:`); nil for listed points.
    public var design: StudyDesign?

    public init(parameters: [String], points: [StudyPoint], baselinePoint: Int = 0, totalPoints: Int? = nil) {
        self.parameters = parameters
        self.points = points
        self.baselinePoint = baselinePoint
        self.totalPoints = totalPoints ?? points.count
    }

    /// A plain run: one point, no parameters.
    public init(single scenario: Scenario) {
        self.init(parameters: [], points: [StudyPoint(number: 0, values: [], scenario: scenario)])
    }

    /// Whether anything varies (reports then carry point columns).
    public var isStudy: Bool { !parameters.isEmpty }

    /// The scenario of the first point to run (every point shares its name and seed).
    public var first: Scenario { points[0].scenario }

    /// The position in `points` of the baseline point, when it is run.
    public var baselineIndex: Int? { points.firstIndex { $0.number == baselinePoint } }

    /// Applies `change` to every point's scenario.
    public mutating func forEachScenario<E: Error>(_ change: (inout Scenario) throws(E) -> Void) throws(E) {
        for i in points.indices { try change(&points[i].scenario) }
    }
}

/// One point of a study: its number, its value of each study parameter as written (or
/// as a range generated it), and the scenario with those values in place.
public struct StudyPoint: Sendable {
    public var number: Int
    public var values: [String]
    public var scenario: Scenario

    public init(number: Int, values: [String], scenario: Scenario) {
        self.number = number
        self.values = values
        self.scenario = scenario
    }
}
