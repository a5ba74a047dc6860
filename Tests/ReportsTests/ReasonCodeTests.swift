import EngineTestSupport
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// Refusal and missed-view reason codes (MODEL §3, §6), the one pending request per
/// instance and the background push throttle.
@Suite struct ReasonCodeTests {
    /// One widget whose timeline asks every 10 minutes, no content changes, no sessions:
    /// 143 charged requests a day (10 min … 23 h 50 min), each refused one retried after
    /// 10 minutes, so a request comes every 10 minutes whatever the budget says.
    func steady(_ budget: PolicyChoice, days: Int = 1, sessions: Double = 0) -> Scenario {
        scenario(
            people: 1, days: days,
            widgets: [widget("w", base: 1, reload: .after(10 * Milliseconds.minute))],
            budgets: [budget]) { p in
                p.sessionsPerDay = PerPersonRate(mean: sessions, cv: 0)
            }
    }

    func choice(_ name: String, _ values: [String: ParameterValue]) -> PolicyChoice {
        var all = values
        if all["timeline_retry"] == nil { all["timeline_retry"] = .duration(10 * Milliseconds.minute) }
        return PolicyChoice(name: name, parameters: PolicyParameters(all))
    }

    /// Runs person 0 with a spy on the budget; returns the engine's reason counts over
    /// every day and the spy's refusals by code.
    func reasons(_ s: Scenario) throws -> (counts: [RefusalReason: Int64], asked: [RefusalReason: Int64], total: PersonCounts) {
        let spy = RecordingBudget(BudgetPolicies.named(s.budgets[0].name)!.make(s.budgets[0].parameters))
        let c = try simulate(s, person: 0, budget: spy, ranking: StaticRanking())
        var counts: [RefusalReason: Int64] = [:], asked: [RefusalReason: Int64] = [:]
        for r in RefusalReason.allCases {
            counts[r] = (0 ..< s.days).reduce(0) { $0 + c[$1, refusal: r] }
        }
        for d in spy.decisions { if let why = d.decision.refusal { asked[why, default: 0] += 1 } }
        return (counts, asked, c)
    }

    /// The engine counts each refusal once, under the code the policy gave, and the
    /// budget's codes add up to its denied and deferred requests.
    func expectConsistent(_ r: (counts: [RefusalReason: Int64], asked: [RefusalReason: Int64], total: PersonCounts), days: Int) {
        for code in RefusalReason.allCases where !code.isSystemRule {
            #expect(r.counts[code] == (r.asked[code] ?? 0), "\(code.label)")
        }
        var refused: Int64 = 0
        for d in 0 ..< days { refused += r.total[d, widget: 0, .denied] + r.total[d, widget: 0, .deferred] }
        #expect(RefusalReason.allCases.filter { !$0.isSystemRule }.reduce(0) { $0 + r.counts[$1]! } == refused)
    }

    @Test func dailyQuotaAnswersQuotaExhausted() throws {
        let r = try reasons(steady(choice("daily_quota", ["per_day": .number(100)])))
        expectConsistent(r, days: 1)
        #expect(r.counts[.quotaExhausted] == Int64(143 - 100))
    }

    @Test func fixedIntervalAnswersMinSpacing() throws {
        // Grants at 10, 40, …, 1420 min; each next due (20, 50, …, 1430) refused and
        // retried at the interval's end.
        let r = try reasons(steady(choice("fixed_interval", ["interval": .duration(30 * Milliseconds.minute)])))
        expectConsistent(r, days: 1)
        #expect(r.counts[.minSpacing] == 48)
    }

    @Test func tokenBucketAnswersTokensEmpty() throws {
        // 5 tokens, 1 an hour: 5 + 23 grants in the first 23 h 50 min of requests.
        let r = try reasons(steady(choice("token_bucket", ["capacity": .number(5), "refill_per_hour": .number(1)])))
        expectConsistent(r, days: 1)
        let grants = (0 ..< 1).reduce(Int64(0)) { $0 + r.total[$1, widget: 0, .charged] }
        #expect(grants == 28)
        #expect(r.counts[.tokensEmpty] == (r.asked[.tokensEmpty] ?? -1))
        #expect(r.counts[.tokensEmpty]! > 0)
    }

    @Test func viewWeightedAnswersSpacingLearningAndQuota() throws {
        // Rolling days. Spacing 15 min against requests every 10; a learning period of
        // 12 h with 20 a day; then the floor of 10 with 20 already in the window.
        let values: [String: ParameterValue] = [
            "min_spacing": .duration(15 * Milliseconds.minute), "min_per_day": .number(10), "max_per_day": .number(20),
            "learning_period": .duration(12 * Milliseconds.hour),
        ]
        let r = try reasons(steady(choice("view_weighted", values.merging(["budget_day": .text("rolling")]) { a, _ in a })))
        expectConsistent(r, days: 1)
        // A request refused for spacing alone is retried when the spacing ends: grants
        // every 15 min (10, 25, …), the 20th at 295 min, one refusal between two: 19.
        #expect(r.counts[.minSpacing] == 19)
        // From 305 min (retried after 10 min) to 715 min, the learning budget spent: 42.
        #expect(r.counts[.learningPeriod] == 42)
        // From 725 min to 1435 min: 72, the window still holding the 20 grants.
        #expect(r.counts[.quotaExhausted] == 72)
        #expect(r.counts[.notYetReleased] == 0)
        // Paced days release the budget through the day: early requests find only part
        // of it released. Greedy days (the default) never answer that.
        let person = try reasons(steady(choice("view_weighted", values.merging(["budget_day": .text("paced")]) { a, _ in a }), days: 2))
        expectConsistent(person, days: 2)
        #expect(person.counts[.notYetReleased]! > 0)
        let greedy = try reasons(steady(choice("view_weighted", values), days: 2))
        expectConsistent(greedy, days: 2)
        #expect(greedy.counts[.notYetReleased] == 0)
    }

    @Test func iosLikeAnswersQuotaExhaustedAndTotalCap() throws {
        let midnight: [String: ParameterValue] = ["budget_day": .text("midnight")]
        let own = try reasons(steady(choice("ios_like", midnight.merging(["initial_per_day": .number(30)]) { a, _ in a })))
        expectConsistent(own, days: 1)
        #expect(own.counts[.quotaExhausted] == Int64(143 - 30))
        #expect(own.counts[.totalCap] == 0)
        // Two instances of 30 each against a total of 40: 20 each, scaled down by the cap.
        var s = steady(choice("ios_like", midnight.merging(["initial_per_day": .number(30), "total_per_day": .number(40)]) { a, _ in a }))
        s.widgets.append(widget("v", base: 1, reload: .after(10 * Milliseconds.minute)))
        s.stack = StackSpec(members: [0, 1])
        let capped = try reasons(s)
        #expect(capped.counts[.totalCap] == Int64(2 * (143 - 20)))
        #expect(capped.counts[.quotaExhausted] == 0)
        #expect(capped.counts[.totalCap] == capped.asked[.totalCap])
        // Paced days release the day's balance through the day; greedy ones (the default)
        // never answer that.
        let person = try reasons(steady(choice("ios_like", ["initial_per_day": .number(30), "budget_day": .text("paced")]), days: 2))
        expectConsistent(person, days: 2)
        #expect(person.counts[.notYetReleased]! > 0)
        let greedy = try reasons(steady(choice("ios_like", ["initial_per_day": .number(30)]), days: 2))
        expectConsistent(greedy, days: 2)
        #expect(greedy.counts[.notYetReleased] == 0)
    }

    /// `predictive` defers a timeline request while no view is near as
    /// `no_view_expected`, one beyond the part of the budget released so far (or beyond
    /// B − the push reserve) as `not_yet_released`, and once the budget day's whole
    /// budget is spent as `quota_exhausted`, or `total_cap` when the person's total cap
    /// scaled the budget down. Every code it gives is one its descriptor lists.
    @Test func predictiveAnswersNoViewReleaseQuotaAndTotalCap() throws {
        let descriptor = try #require(BudgetPolicies.named("predictive"))
        // A budget of 5 with a reserve of 1 on day 0, no pushes: timeline requests may
        // spend 4 of it, the last one waits as `not_yet_released`.
        let own = try reasons(steady(choice("predictive", ["spending": .text("views"), "initial_per_day": .number(5)])))
        expectConsistent(own, days: 1)
        #expect(own.total[0, widget: 0, .charged] == 4)
        #expect(own.counts[.quotaExhausted] == 0)
        #expect(own.counts[.notYetReleased]! > 0)
        // Without a reserve all 5; the next request waits for the next day's start.
        let whole = try reasons(steady(choice("predictive", ["spending": .text("views"), "initial_per_day": .number(5), "push_reserve": .number(0)])))
        #expect(whole.total[0, widget: 0, .charged] == 5)
        #expect(whole.counts[.quotaExhausted] == 1)
        // On the first day every request counts as near a view; on the second, with 80
        // views a day, none counted as recent and a 5-minute lookahead (80 · 5/1440 <
        // ½ view expected), requests wait for one.
        let second = try reasons(steady(choice("predictive", ["spending": .text("views"), 
            "recent": .duration(0), "lookahead": .duration(5 * Milliseconds.minute),
        ]), days: 2))
        expectConsistent(second, days: 2)
        #expect(second.counts[.noViewExpected]! > 0)
        // Two instances of 30 each against a total of 40: 20 each, scaled down by the cap.
        var s = steady(choice("predictive", ["spending": .text("views"), "initial_per_day": .number(30), "total_per_day": .number(40),
                                              "push_reserve": .number(0)]))
        s.widgets.append(widget("v", base: 1, reload: .after(10 * Milliseconds.minute)))
        s.stack = StackSpec(members: [0, 1])
        let capped = try reasons(s)
        for code in RefusalReason.allCases { #expect(capped.counts[code] == (capped.asked[code] ?? 0), "\(code.label)") }
        #expect(capped.total[0, widget: 0, .charged] == 20 && capped.total[0, widget: 1, .charged] == 20)
        #expect(capped.counts[.totalCap] == 2)
        #expect(capped.counts[.quotaExhausted] == 0)
        for r in [own, whole, second, capped] {
            for (code, n) in r.asked where n > 0 { #expect(descriptor.refusals.contains(code), "\(code.label)") }
        }
    }

    @Test func standbyBucketsAnswerTheirBucket() throws {
        // Thresholds of 1, 2 and 3 h and one grant per window: app use a few times a day
        // puts the app in every bucket at some request.
        let r = try reasons(steady(choice("standby_buckets", [
            "active_within": .duration(Milliseconds.hour), "active_window": .duration(30 * Milliseconds.minute), "working_set_within": .duration(2 * Milliseconds.hour),
            "frequent_within": .duration(3 * Milliseconds.hour),
            "active_quota": .number(1), "working_set_quota": .number(1), "frequent_quota": .number(1), "rare_quota": .number(1),
        ]), days: 4, sessions: 4))
        expectConsistent(r, days: 4)
        for code in StandbyBucketsBudget.Bucket.allCases.map(\.refusal) {
            #expect(r.counts[code]! > 0, "\(code.label): \(r.counts)")
        }
    }

    @Test func unlimitedNeverRefuses() throws {
        let r = try reasons(steady(PolicyChoice(name: "unlimited")))
        #expect(r.counts.values.allSatisfy { $0 == 0 })
    }

    /// A deferred timeline retry and a deferred background request of one instance are
    /// one pending request: it is asked once, at the earlier time, as a timeline request.
    /// Later pushes find a background request pending and coalesce into it.
    @Test func oneInstanceHasOnePendingRequest() throws {
        var content = ContentSpec()
        content.randomPerDay = 6
        content.pushFraction = 1
        let s = scenario(
            people: 1, days: 1,
            widgets: [widget("news", base: 1, reload: .after(10 * Milliseconds.minute), content: content)],
            budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters([
                "per_day": .number(1), "timeline_retry": .duration(6 * Milliseconds.hour),
                "background_retry": .duration(6 * Milliseconds.hour)]))]) { p in
                    p.sessionsPerDay = PerPersonRate(mean: 0, cv: 0)
                }
        let spy = RecordingBudget(DailyQuotaBudget(
            perDay: 1, refusal: RefusalRule(timelineRetryMs: 6 * Milliseconds.hour, backgroundRetryMs: 6 * Milliseconds.hour)))
        let c = try simulate(s, person: 0, budget: spy, ranking: StaticRanking())
        let pushes = c[0, .pushes]
        #expect(pushes >= 2, "the scenario needs pushes after the first refusal")
        // The grant at 10 min spends the day; the timeline retry waits from 20 min.
        #expect(spy.decisions.first?.decision == .grant)
        let background = spy.decisions.filter { $0.reason == .background }
        // Only the first push reaches the budget; its deferral joins the pending timeline
        // request, which then holds a background request: every later push coalesces.
        #expect(background.count == 1)
        let delivered = pushes - c[0, refusal: .pushThrottled]
        #expect(c[0, widget: 0, .coalesced] == delivered - 1)
        #expect(c[0, refusal: .coalescedIntoPending] == delivered - 1)
        // The pending request is asked every 6 h from 20 min on, never twice at once.
        let timeline = spy.decisions.filter { $0.reason == .timeline }.map(\.time)
        #expect(timeline == [10, 20, 380, 740, 1100].map { Int64($0) * Milliseconds.minute })
    }

    /// At most 3 background pushes per app in any rolling hour; the rest dropped and
    /// counted; `none` lifts it. Pushes to an app in the foreground are not throttled.
    @Test func backgroundPushesAreThrottled() throws {
        var content = ContentSpec()
        content.randomPerDay = 200
        content.pushFraction = 1
        var s = scenario(
            people: 1, days: 2,
            widgets: [widget("news", base: 1, reload: .never, content: content)]) { p in
                p.sessionsPerDay = PerPersonRate(mean: 0, cv: 0)
            }
        let trace = CollectingTrace()
        let runner = Runner(scenario: s)
        runner.trace = trace
        let t = try runner.run().totals[0][0]
        let pushes = trace.lines.filter { $0.event == "push" }
        let dropped = pushes.filter { $0.reason == RefusalReason.pushThrottled.label }
        let delivered = pushes.filter { $0.reason.isEmpty }.map(\.time)
        #expect(Int64(dropped.count) == t.sum(.pushThrottled, days: 0 ..< 2))
        #expect(dropped.count > 100)
        for p in dropped {
            #expect(delivered.filter { $0 > p.time - Milliseconds.hour && $0 <= p.time }.count == 3)
        }
        for (i, d) in delivered.enumerated() {
            #expect(delivered[...i].filter { $0 > d - Milliseconds.hour }.count <= 3)
        }
        #expect(t.sum(.reloadBackground, days: 0 ..< 2) == Int64(delivered.count))
        s.person.backgroundPushesPerHour = nil
        let free = try run(s).totals[0][0]
        #expect(free.sum(.pushThrottled, days: 0 ..< 2) == 0)
        #expect(free.sum(.reloadBackground, days: 0 ..< 2) == free.sum(.pushes, days: 0 ..< 2))
    }

    /// A widget placed nowhere may be wanted: such a view is counted apart as
    /// `not_in_stack`, once per view, outside views_wanted − hits.
    @Test func wantsOfAWidgetPlacedNowhereAreCountedApart() throws {
        var s = scenario(
            people: 2, days: 2,
            widgets: [widget("a", base: 0.4), widget("b", base: 0.3), widget("elsewhere", base: 0.5)],
            rankings: [PolicyChoice(name: "time_of_day")])
        s.stack = StackSpec(members: [0, 1])
        s.stack.suggestable = [2]
        let trace = CollectingTrace()
        let runner = Runner(scenario: s)
        runner.trace = trace
        let t = try runner.run().totals[0][0]
        let all = 0 ..< s.days
        let apart = trace.lines.filter { $0.event == "view" && $0.reason == MissedViewReason.notInStack.label }
        #expect(t.sum(.notInStack, days: all) == Int64(apart.count))
        #expect(apart.count > 50)
        #expect(apart.allSatisfy { $0.decision.contains("nothing wanted") })
        let missed = MissedViewReason.allCases.filter(\.isMiss).reduce(0) { $0 + t.sum($1, days: all) }
        #expect(missed == t.sum(.viewsWanted, days: all) - t.sum(.hits, days: all))
    }

    /// The table after a run names the top reasons of the baseline and of the pair with
    /// the best accuracy over the measured days.
    @Test func terminalTableShowsTheTopReasons() throws {
        var s = try loadScenario("tiny.yaml")
        s.baseline = PolicyPair(budget: "daily_quota", ranking: "time_of_day")
        let r = try run(s)
        let text = SummaryTable.render(r)
        let baseline = try #require(r.pairs.firstIndex(of: s.baseline))
        let refusals = ReasonsReport.topRefusals(r, pair: baseline)
        let missed = ReasonsReport.topMissedViews(r, pair: baseline)
        #expect(refusals.first?.label == "quota_exhausted")
        #expect(text.contains("  daily_quota × time_of_day (baseline)\n    refusals:     quota_exhausted \(refusals[0].count) ("))
        #expect(text.contains("    missed views: \(missed[0].label) \(missed[0].count) ("))
        // Static is the most accurate on tiny, first under unlimited.
        #expect(text.contains("  unlimited × static (best accuracy)\n    refusals:     none\n"))
    }

    /// The default scenario (few people): for every pair, the budget's codes add up to
    /// the denied and deferred requests, `coalesced` to requests_coalesced, and the
    /// missed-view codes to views_wanted − hits, exactly; reasons.csv says the same.
    @Test func reasonTotalsMatchTheSummary() throws {
        var s = try loadScenario("default.yaml")
        s.people = 3
        s.days = 3
        s.warmupDays = 1
        s.replications = 2
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = RunOptions(outputFolder: folder, threads: 2)
        options.widgetDays = false
        let r = try #require(finished(try RunJob.execute(s, options)))
        var refusedSomewhere = false
        for (p, pair) in r.pairs.enumerated() {
            for rep in 0 ..< s.replications {
                let t = r.totals[rep][p]
                let budgetCodes = RefusalReason.allCases.filter { !$0.isSystemRule }.reduce(0) { $0 + t.sum($1) }
                #expect(budgetCodes == t.sum(.denied) + t.sum(.deferred), "\(pair)")
                #expect(t.sum(.coalescedIntoPending) == t.sum(WidgetCounter.coalesced), "\(pair)")
                let missed = MissedViewReason.allCases.filter(\.isMiss).reduce(0) { $0 + t.sum($1) }
                #expect(missed == t.sum(.viewsWanted) - t.sum(.hits), "\(pair)")
                if budgetCodes > 0 { refusedSomewhere = true }
            }
        }
        #expect(refusedSomewhere)
        // reasons.csv: the measured rows of each pair add up to the summary's columns.
        let lines = try String(contentsOf: folder.appendingPathComponent("reasons.csv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let names = lines[0], rows = Array(lines.dropFirst())
        func field(_ row: [String], _ name: String) -> String { row[names.firstIndex(of: name)!] }
        let summary = try String(contentsOf: folder.appendingPathComponent("summary.csv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = summary[0]
        func column(_ row: [String], _ name: String) -> Int64 { Int64(row[header.firstIndex(of: name)!])! }
        // Every code on every day of every pair, at least once (its zero row when it has no count).
        let keys = Set(rows.map { [field($0, "replication"), field($0, "budget"), field($0, "ranking"), field($0, "day"), field($0, "reason")] })
        let codes = r.pairs.indices.reduce(0) { $0 + ReasonsReport.refusalCodes(r, pair: $1).count + MissedViewReason.count }
        #expect(keys.count == s.replications * s.days * codes)
        // A row with a count names its widget; a missed view also the widget on top instead.
        for row in rows where field(row, "count") != "0" {
            #expect(field(row, "widget") != "" || field(row, "reason") == MissedViewReason.notInStack.label, "\(row)")
            switch field(row, "kind") {
            case "missed_view": #expect(field(row, "top_widget") != "" && field(row, "top_widget") != field(row, "widget"), "\(row)")
            case "stale_on_top": #expect(field(row, "top_widget") == field(row, "widget"), "\(row)")
            default: #expect(field(row, "top_widget") == "", "\(row)")
            }
        }
        for row in summary.dropFirst() {
            let mine = rows.filter { $0[2] == row[2] && $0[3] == row[3] && $0[4] == row[4] && field($0, "warmup") == "0" }
            func total(_ kind: String) -> Int64 { mine.filter { field($0, "kind") == kind }.reduce(0) { $0 + Int64(field($1, "count"))! } }
            #expect(total("refusal") == column(row, "requests_denied") + column(row, "requests_deferred"))
            #expect(total("missed_view") == column(row, "views_wanted") - column(row, "hits"))
        }
    }
}

extension ReasonCodeTests {
    /// reasons.csv's widgets are those the decisions were made about: per pair, the
    /// refusals of each instance are its denied and deferred requests (widget_days.csv),
    /// and the missed views of each wanted widget, by the widget on top instead, are the
    /// trace's views with that reason, wanted widget and top.
    @Test func reasonsNameTheWidgetAndTheTopInstead() throws {
        var s = try loadScenario("default.yaml")
        s.people = 2
        s.days = 2
        s.warmupDays = 0
        s.replications = 1
        s.budgets = s.budgets.filter { $0.label == "daily_quota" || $0.name == "daily_quota" }
        s.rankings = s.rankings.filter { ["static", "time_of_day"].contains($0.label) }
        s.baseline = PolicyPair(budget: s.budgets[0].label, ranking: "static")
        let trace = CollectingTrace()
        let runner = Runner(scenario: s)
        runner.trace = trace
        let r = try runner.run()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = ReasonsReport.csv(r)
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let names = lines[0], rows = Array(lines.dropFirst())
        func field(_ row: [String], _ name: String) -> String { row[names.firstIndex(of: name)!] }
        var checked = 0
        for (p, pair) in r.pairs.enumerated() {
            let t = r.totals[0][p]
            let mine = rows.filter { field($0, "budget") == pair.budget && field($0, "ranking") == pair.ranking }
            // Refusals per instance: the budget's codes add up to its denied and deferred requests.
            for (w, spec) in s.widgets.enumerated() {
                let refused = mine.filter { field($0, "kind") == "refusal" && field($0, "widget") == spec.id }
                    .reduce(Int64(0)) { $0 + Int64(field($1, "count"))! }
                let expected = (0 ..< s.days).reduce(Int64(0)) { $0 + t.value(day: $1, widget: w, .denied) + t.value(day: $1, widget: w, .deferred) }
                #expect(refused == expected, "\(pair) \(spec.id)")
            }
            // Missed views by wanted widget and top: counted from the trace's view lines.
            var fromTrace: [String: Int] = [:]
            for line in trace.lines where line.pair == pair && line.event == "view" {
                guard let code = MissedViewReason.allCases.first(where: { $0.label == line.reason }), code.isMiss else { continue }
                let parts = line.decision.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let top = String(parts[0].dropFirst(4)), wanted = String(parts[1].dropFirst(7))
                fromTrace["\(line.reason) \(wanted) \(top)", default: 0] += 1
            }
            var fromCSV: [String: Int] = [:]
            for row in mine where field(row, "kind") == "missed_view" && field(row, "count") != "0" {
                fromCSV["\(field(row, "reason")) \(field(row, "widget")) \(field(row, "top_widget"))", default: 0] += Int(field(row, "count"))!
            }
            #expect(fromCSV == fromTrace, "\(pair)")
            checked += fromTrace.count
        }
        #expect(checked > 3)
    }
}
