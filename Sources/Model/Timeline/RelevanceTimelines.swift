import WidgetSimKernel
import WidgetSimSampling

/// One relevance window of a timeline: `score` from `start` (inclusive) to `end`
/// (exclusive).
struct RelevanceWindow {
    var start: SimTime
    var end: SimTime
    var score: Double
}

/// The relevance side of every widget's timelines (MODEL §5): the relevance each
/// widget's current timeline carries, and its relevance entries, recorded into the
/// stack's history by their dates.
///
/// Rules:
/// - A widget's relevance is a step function of time. A **relevance entry** is a step:
///   a date and the score that holds from it. The first timeline of a widget opens with
///   an entry (the relevance in force then); later reloads continue the relevance in
///   force and add no entry unless the widget's model starts a new one.
/// - **History by entry date.** At time t the history holds the entries that a
///   timeline returned and that are dated ≤ t, each once, however early a timeline
///   returned it (a 12-hour timeline holds the evening's meetings in the morning; they
///   join the history in the evening) and however many later timelines return it
///   again. An entry a later timeline replaced before its date (a story cut short by
///   the next) never joins. So the history, and every ranking, depends neither on the
///   horizon nor on how often the widget reloads, as long as its timelines hold what
///   it shows. Entries join lazily: `recordDue(upTo:history:)` records those whose
///   date has come, before every read of the history (at views, and before a reload
///   replaces a timeline), with one comparison per view when none is due.
/// - `constant`: one entry, the first timeline's, with `score`.
/// - `scheduled`: for each scheduled change s, a window from s − lead with its score,
///   until s + D, or with D = 0 until s + L, L the event's length
///   (`ContentSpec.scheduledLengthMs`): duration 0 holds the score until the next
///   relevance entry, which a real timeline has when the event ends, carrying the
///   baseline. Entries: each window's score at its start, and a `baseline` entry at its
///   end unless the next window has begun by then; an empty window (lead 0 and an end
///   at s) has none. While windows overlap the later one's score holds (the latest
///   entry). A timeline holds the windows that start within its horizon; a window no
///   timeline held (the widget did not reload within a horizon of it) has no entry.
/// - `breaking`: a reload that brings a random change starts a story: an entry with
///   its score from the reload for `duration`, then a `baseline` entry at its end
///   (dropped when a later story starts before it). A reload without news continues
///   the story in force.
/// - With `levels`, each scheduled change, or each random change, draws its own score
///   (a breaking story carries the highest score of the changes it brings). The draws
///   come from one stream per widget (`StreamProcess.relevanceLevels`), one draw per
///   change in time order, whatever the policies: every policy sees the same scores.
final class RelevanceTimelines {
    let specs: [RelevanceSpec]
    let levels: [[RelevanceLevel]]
    let memberOf: [Int]
    let generator: GeneratorKind
    /// Each scheduled widget's window length after its change: the duration, or with
    /// duration 0 the event's length.
    let span: [Int64]
    /// The stack members' widgets whose timelines carry relevance.
    let recording: [Int]
    /// Each widget's current windows: `windows[w][0 ..< windowCount[w]]` (the array's
    /// slots past the count are reused by the next timeline, so a reload allocates nothing).
    @exclusivity(unchecked) var windows: [[RelevanceWindow]]
    @exclusivity(unchecked) var windowCount: [Int]
    @exclusivity(unchecked) var baseline: [Double?]
    /// Whether the widget has had a timeline (its opening entry is recorded).
    @exclusivity(unchecked) var built: [Bool]
    /// Scheduled: the next entry to record, 2k for the score of window k and 2k + 1 for
    /// the baseline after it; and the windows `0 ..< held[w]` some timeline held.
    @exclusivity(unchecked) var nextEntry: [Int]
    @exclusivity(unchecked) var held: [Int]
    /// Breaking: the end of the story in force, whose baseline entry is not recorded
    /// yet (`.max`: none).
    @exclusivity(unchecked) var storyEnd: [SimTime]
    /// The date of each widget's next entry to record (`.max`: none), and the earliest
    /// of them: nothing is due before `due`.
    @exclusivity(unchecked) var entryDue: [SimTime]
    @exclusivity(unchecked) private(set) var due: SimTime = .max
    /// Each widget's scheduled changes, of the current world.
    @exclusivity(unchecked) private var scheduled: [[SimTime]] = []
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
        span = scenario.widgets.map { w in
            guard case .scheduled(_, _, _, let duration) = w.relevance else { return 0 }
            return duration > 0 ? duration : w.content.scheduledLengthMs
        }
        recording = scenario.widgets.indices.filter { memberOf[$0] >= 0 && scenario.widgets[$0].relevance != .none }
        windows = Array(repeating: [], count: n)
        windowCount = Array(repeating: 0, count: n)
        baseline = Array(repeating: nil, count: n)
        built = Array(repeating: false, count: n)
        nextEntry = Array(repeating: 0, count: n)
        held = Array(repeating: 0, count: n)
        storyEnd = Array(repeating: .max, count: n)
        entryDue = Array(repeating: .max, count: n)
        openCursor = Array(repeating: 0, count: n)
        openCursorTime = Array(repeating: .min, count: n)
        scheduledScores = Array(repeating: [], count: n)
        pendingStory = Array(repeating: -.infinity, count: n)
        stream = RandomStream(kind: scenario.generator, seed: 1)
    }

    /// Clears every widget for a new run of `world`, and draws the scores of widgets
    /// with levels.
    func begin(_ world: PersonWorld, seed: UInt64) {
        scheduled = world.scheduled
        due = .max
        for w in specs.indices {
            windowCount[w] = 0
            baseline[w] = nil
            built[w] = false
            nextEntry[w] = 0
            held[w] = 0
            storyEnd[w] = .max
            entryDue[w] = .max
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

    /// Ends the run: records every member's entries dated ≤ `end` (so that the history
    /// read after a run holds all of them) and lets go of the world's changes.
    func finish(at end: SimTime, history: StackHistory) {
        recordDue(upTo: end, history: history)
        scheduled = []
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
    /// reload shows a random change. Entries dated ≤ `t` go into `history` now, later
    /// ones when `recordDue` reaches their date.
    func reload(_ w: Int, at t: SimTime, fresh: Bool, coverageEnd: SimTime, history: StackHistory) {
        let m = memberOf[w]
        // What the timeline being replaced held up to now is recorded first.
        if entryDue[w] <= t { recordEntries(w, upTo: t, history: history) }
        func record(_ score: Double) { if m >= 0 { history.recordRelevance(member: m, score: score) } }
        switch specs[w] {
        case .none:
            baseline[w] = nil
        case .constant(let score):
            baseline[w] = score
            if !built[w] { record(score) }
        case .scheduled(_, let base, let lead, _):
            baseline[w] = base
            let changes = scheduled[w], n = changes.count, length = span[w]
            // The first window still open at t: the first change whose window ends after t.
            var cursor = t >= openCursorTime[w] ? openCursor[w] : 0
            while cursor < n && changes[cursor] + length <= t { cursor += 1 }
            openCursor[w] = cursor
            openCursorTime[w] = t
            if !built[w] {
                // The opening entry: the baseline, unless t is within a window (whose
                // score entry, dated by then, is recorded below).
                if !(cursor < n && changes[cursor] - lead <= t) { record(base) }
                nextEntry[w] = 2 * cursor
            } else if nextEntry[w] < 2 * cursor {
                // The windows held were recorded above: those left ended before any
                // timeline held them.
                nextEntry[w] = 2 * cursor
            }
            windowCount[w] = 0
            var i = cursor
            while i < n && changes[i] - lead <= coverageEnd {
                setWindow(w, RelevanceWindow(start: max(t, changes[i] - lead), end: changes[i] + length, score: score(w, i)))
                i += 1
            }
            held[w] = max(held[w], i)
            if m >= 0 { scheduleEntry(w, at: scheduledEntryDate(w)) }
        case .breaking(let score, let base, let duration):
            baseline[w] = base
            if fresh {
                let s = levels[w].isEmpty ? score : pendingStory[w]
                pendingStory[w] = -.infinity
                windowCount[w] = 0
                setWindow(w, RelevanceWindow(start: t, end: t + duration, score: s))
                record(s)
                // The baseline after it, at its end (replacing that of a story cut short).
                storyEnd[w] = t + duration
                if m >= 0 { scheduleEntry(w, at: t + duration) }
            } else if !built[w] {
                record(base)
            }
        }
        built[w] = true
        if entryDue[w] <= t { recordEntries(w, upTo: t, history: history) }
    }

    /// The score of scheduled change `i` of `w`.
    @inline(__always)
    func score(_ w: Int, _ i: Int) -> Double {
        if case .scheduled(let fixed, _, _, _) = specs[w] {
            return scheduledScores[w].isEmpty ? fixed : scheduledScores[w][i]
        }
        preconditionFailure("not a scheduled widget")
    }

    /// Records every member's entries dated ≤ `t` not recorded yet (one comparison when
    /// none is due). Call before reading `history` at `t`.
    @inline(__always)
    func recordDue(upTo t: SimTime, history: StackHistory) {
        if t >= due { recordAllDue(upTo: t, history: history) }
    }

    /// `recordDue`'s work (kept out of line: it runs about once per entry).
    @inline(never)
    private func recordAllDue(upTo t: SimTime, history: StackHistory) {
        var next = SimTime.max
        for w in recording {
            if entryDue[w] <= t { recordEntries(w, upTo: t, history: history) }
            next = min(next, entryDue[w])
        }
        due = next
    }

    /// Sets the date of `w`'s next entry to record.
    @inline(__always)
    private func scheduleEntry(_ w: Int, at date: SimTime) {
        entryDue[w] = date
        if date < due { due = date }
    }

    /// Records `w`'s entries dated ≤ `t` (a member's), and sets the date of its next.
    private func recordEntries(_ w: Int, upTo t: SimTime, history: StackHistory) {
        let m = memberOf[w]
        guard m >= 0 else { return }
        switch specs[w] {
        case .scheduled(_, let base, _, _):
            while nextEntry[w] < 2 * held[w] {
                let e = nextEntry[w], k = e / 2
                guard let date = entryDate(w, e) else {
                    nextEntry[w] = e + 1
                    continue
                }
                if date > t { break }
                history.recordRelevance(member: m, score: e % 2 == 0 ? score(w, k) : base)
                nextEntry[w] = e + 1
            }
            entryDue[w] = scheduledEntryDate(w)
        case .breaking(_, let base, _):
            if storyEnd[w] <= t {
                history.recordRelevance(member: m, score: base)
                storyEnd[w] = .max
            }
            entryDue[w] = storyEnd[w]
        case .none, .constant:
            entryDue[w] = .max
        }
    }

    /// The date of scheduled entry `e` of `w` (2k: window k's score, 2k + 1: the
    /// baseline after it), or nil when there is no such entry.
    private func entryDate(_ w: Int, _ e: Int) -> SimTime? {
        guard case .scheduled(_, _, let lead, _) = specs[w] else { return nil }
        let changes = scheduled[w], k = e / 2
        let start = changes[k] - lead, end = changes[k] + span[w]
        guard end > start else { return nil }  // an empty window has no entry
        if e % 2 == 0 { return start }
        return k + 1 == changes.count || changes[k + 1] - lead > end ? end : nil
    }

    /// The date of `w`'s next scheduled entry to record, `.max` when it is in no
    /// timeline yet.
    private func scheduledEntryDate(_ w: Int) -> SimTime {
        var e = nextEntry[w]
        while e < 2 * held[w] {
            if let date = entryDate(w, e) { return date }
            e += 1
        }
        return .max
    }

    /// Adds `window` after `w`'s current windows, reusing a slot of an earlier timeline.
    @inline(__always)
    private func setWindow(_ w: Int, _ window: RelevanceWindow) {
        let k = windowCount[w]
        if k < windows[w].count { windows[w][k] = window } else { windows[w].append(window) }
        windowCount[w] = k + 1
    }

    /// The relevance `w` carries at `t`, or nil without a timeline or relevance: the
    /// score of the latest window started by `t` while it lasts, else the baseline.
    /// Windows are in order of start and of end, so once the latest started one has
    /// ended every earlier one has.
    @inline(__always)
    func current(_ w: Int, at t: SimTime) -> Double? {
        guard let base = baseline[w] else { return nil }
        let count = windowCount[w]
        return windows[w].withUnsafeBufferPointer { items in
            var k = count
            while k > 0 {
                k -= 1
                if items[k].start <= t { return t < items[k].end ? items[k].score : base }
            }
            return base
        }
    }
}
