import WidgetSimKernel
import WidgetSimSampling

/// One relevance window of a timeline: `score` from `start` (inclusive) to `end`
/// (exclusive; `.max`: until a later timeline says otherwise).
struct RelevanceWindow {
    var start: SimTime
    var end: SimTime
    var score: Double
}

/// The relevance side of every widget's timelines (MODEL §5): the relevance each
/// widget's current timeline carries, and each relevance entry recorded once into the
/// stack's history.
///
/// Rules:
/// - A widget's relevance is a step function of time. A **relevance entry** is a step:
///   a date and the score that holds from it. The first timeline of a widget opens with
///   an entry (the relevance in force then); later reloads continue the relevance in
///   force and add no entry unless the widget's model starts a new one. Each entry is
///   recorded in the history once, when a timeline first holds it, however many later
///   timelines hold it again: the history does not depend on the horizon or on how
///   often the widget reloads.
/// - `constant`: one entry, the first timeline's, with `score`.
/// - `scheduled`: for each scheduled change s, an entry at s − lead with its score; with
///   duration D > 0 the score holds until s + D, followed by a `baseline` entry unless the
///   next window has begun by then; with D = 0 it holds until the next relevance, the
///   next window's start (Apple's default for a duration of 0). A timeline holds the
///   windows that start within its horizon.
/// - `breaking`: a reload that brings a random change starts a story: an entry with
///   its score from the reload for `duration`, then a `baseline` entry (both recorded by
///   that reload). A reload without news continues the story in force.
/// - With `levels`, each scheduled change, or each random change, draws its own score
///   (a breaking story carries the highest score of the changes it brings). The draws
///   come from one stream per widget (`StreamProcess.relevanceLevels`), one draw per
///   change in time order, whatever the policies: every policy sees the same scores.
final class RelevanceTimelines {
    let specs: [RelevanceSpec]
    let levels: [[RelevanceLevel]]
    let memberOf: [Int]
    let generator: GeneratorKind
    /// Each widget's current windows: `windows[w][0 ..< windowCount[w]]` (the array's
    /// slots past the count are reused by the next timeline, so a reload allocates nothing).
    @exclusivity(unchecked) var windows: [[RelevanceWindow]]
    @exclusivity(unchecked) var windowCount: [Int]
    @exclusivity(unchecked) var baseline: [Double?]
    /// Whether the widget has had a timeline (its opening entry is recorded).
    @exclusivity(unchecked) var built: [Bool]
    /// Scheduled: the first scheduled change whose entries are not recorded yet.
    @exclusivity(unchecked) var recorded: [Int]
    /// Scheduled: where the search for the first window open at a reload starts, and
    /// the time of the reload that set it. Reloads come in time order, so the first open
    /// window only moves forward; an earlier time starts the search again from 0.
    @exclusivity(unchecked) var openCursor: [Int]
    @exclusivity(unchecked) var openCursorTime: [SimTime]
    /// Per widget with levels: the score drawn for each scheduled change.
    @exclusivity(unchecked) var scheduledScores: [[Double]]
    /// Per random change of the world (its index), the score drawn, for widgets with levels.
    @exclusivity(unchecked) var randomScores: [Double] = []
    /// Breaking with levels: the highest score of the random changes not shown yet.
    @exclusivity(unchecked) var pendingStory: [Double]
    private let stream: RandomStream
    @exclusivity(unchecked) private var shares: [Double] = []

    init(scenario: Scenario, memberOf: [Int]) {
        specs = scenario.widgets.map(\.relevance)
        levels = scenario.widgets.map(\.relevanceLevels)
        self.memberOf = memberOf
        generator = scenario.generator
        let n = scenario.widgets.count
        windows = Array(repeating: [], count: n)
        windowCount = Array(repeating: 0, count: n)
        baseline = Array(repeating: nil, count: n)
        built = Array(repeating: false, count: n)
        recorded = Array(repeating: 0, count: n)
        openCursor = Array(repeating: 0, count: n)
        openCursorTime = Array(repeating: .min, count: n)
        scheduledScores = Array(repeating: [], count: n)
        pendingStory = Array(repeating: -.infinity, count: n)
        stream = RandomStream(kind: scenario.generator, seed: 1)
    }

    /// Clears every widget for a new run of `world`, and draws the scores of widgets
    /// with levels.
    func begin(_ world: PersonWorld, seed: UInt64) {
        for w in specs.indices {
            windowCount[w] = 0
            baseline[w] = nil
            built[w] = false
            recorded[w] = 0
            openCursor[w] = 0
            openCursorTime[w] = .min
            pendingStory[w] = -.infinity
            scheduledScores[w].removeAll(keepingCapacity: true)
        }
        randomScores.removeAll(keepingCapacity: true)
        for w in specs.indices where !levels[w].isEmpty {
            stream.reseed(StreamKey(
                seed: seed, replication: world.replication, person: world.person,
                process: StreamProcess.relevanceLevels(w)))
            switch specs[w] {
            case .scheduled:
                for _ in world.scheduled[w] { scheduledScores[w].append(draw(w)) }
            case .breaking:
                if randomScores.count != world.randomChanges.count {
                    randomScores = Array(repeating: 0, count: world.randomChanges.count)
                }
                for (i, change) in world.randomChanges.enumerated() where Int(change.widget) == w {
                    randomScores[i] = draw(w)
                }
            case .none, .constant:
                break
            }
        }
    }

    private func draw(_ w: Int) -> Double {
        let l = levels[w]
        shares.removeAll(keepingCapacity: true)
        var total = 0.0
        for level in l {
            shares.append(level.share)
            total += level.share
        }
        let i = shares.withUnsafeBufferPointer { stream.choose(weights: $0, total: total) }
        return l[i].score
    }

    /// Random change `index` of the world (of widget `w`) happened.
    @inline(__always)
    func contentChanged(_ w: Int, index: Int) {
        if !levels[w].isEmpty, case .breaking = specs[w] {
            pendingStory[w] = max(pendingStory[w], randomScores[index])
        }
    }

    /// The timeline of a reload of `w` at `t` reaching `coverageEnd`; `fresh` when the
    /// reload shows a random change. New entries go into `history`.
    func reload(
        _ w: Int, at t: SimTime, fresh: Bool, coverageEnd: SimTime, scheduled: [SimTime], history: StackHistory
    ) {
        let m = memberOf[w]
        func record(_ score: Double) { if m >= 0 { history.recordRelevance(member: m, score: score) } }
        switch specs[w] {
        case .none:
            baseline[w] = nil
        case .constant(let score):
            baseline[w] = score
            if !built[w] { record(score) }
        case .scheduled(let fixed, let base, let lead, let duration):
            baseline[w] = base
            let scores = scheduledScores[w]
            func score(_ i: Int) -> Double { scores.isEmpty ? fixed : scores[i] }
            func start(_ i: Int) -> SimTime { scheduled[i] - lead }
            let n = scheduled.count
            // The window of change i ends at i + D, or with D = 0 at the next window's
            // start when this timeline holds it.
            func end(_ i: Int) -> SimTime {
                if duration > 0 { return scheduled[i] + duration }
                return i + 1 < n && start(i + 1) <= coverageEnd ? start(i + 1) : .max
            }
            // The first window still open at t: with D > 0 the first change whose window
            // ends after t; with D = 0 the last window started by t (its start is the
            // first that comes after t, less one).
            var cursor = t >= openCursorTime[w] ? openCursor[w] : 0
            if duration > 0 {
                while cursor < n && scheduled[cursor] + duration <= t { cursor += 1 }
            } else {
                while cursor < n && start(cursor) <= t { cursor += 1 }
            }
            openCursor[w] = cursor
            openCursorTime[w] = t
            let lo = duration > 0 ? cursor : max(0, cursor - 1)
            if !built[w] {
                recorded[w] = lo
                if !(lo < n && start(lo) <= t) { record(base) }
            }
            windowCount[w] = 0
            var i = lo
            while i < n && start(i) <= coverageEnd {
                setWindow(w, RelevanceWindow(start: max(t, start(i)), end: end(i), score: score(i)))
                i += 1
            }
            while recorded[w] < i {
                let k = recorded[w]
                record(score(k))
                if duration > 0 && (k + 1 == n || start(k + 1) > scheduled[k] + duration) { record(base) }
                recorded[w] = k + 1
            }
        case .breaking(let score, let base, let duration):
            baseline[w] = base
            if fresh {
                let s = levels[w].isEmpty ? score : pendingStory[w]
                pendingStory[w] = -.infinity
                windowCount[w] = 0
                setWindow(w, RelevanceWindow(start: t, end: t + duration, score: s))
                record(s)
                record(base)
            } else if !built[w] {
                record(base)
            }
        }
        built[w] = true
    }

    /// Adds `window` after `w`'s current windows, reusing a slot of an earlier timeline.
    @inline(__always)
    private func setWindow(_ w: Int, _ window: RelevanceWindow) {
        let k = windowCount[w]
        if k < windows[w].count { windows[w][k] = window } else { windows[w].append(window) }
        windowCount[w] = k + 1
    }

    /// The relevance `w` carries at `t`, or nil without a timeline or relevance.
    @inline(__always)
    func current(_ w: Int, at t: SimTime) -> Double? {
        guard let base = baseline[w] else { return nil }
        let count = windowCount[w]
        return windows[w].withUnsafeBufferPointer { items in
            for k in 0 ..< count where items[k].start <= t && t < items[k].end { return items[k].score }
            return base
        }
    }
}
