import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// `InstanceFacts.plainAfter`, which lets a reload schedule its next timeline request
/// alone: the `after` interval only when nothing else is renewed at a reload.
@Suite struct InstanceFactsTests {
    func facts(_ policy: ReloadPolicy, relevance: Bool = false, predictable: Bool = false) -> InstanceFacts {
        InstanceFacts(
            horizon: Milliseconds.hour, entrySpacing: 0, periodic: predictable ? Milliseconds.hour : 0, cost: 1000,
            reloadPolicy: policy, hasRelevance: relevance, hasPredictable: predictable, spanned: false)
    }

    @Test func onlyAPlainAfterPolicyGivesItsInterval() {
        #expect(facts(.after(Milliseconds.hour)).plainAfter == Milliseconds.hour)
        #expect(facts(.after(15 * Milliseconds.minute)).plainAfter == 15 * Milliseconds.minute)
        // Something else to renew at a reload: the general path.
        #expect(facts(.after(Milliseconds.hour), relevance: true).plainAfter == 0)
        #expect(facts(.after(Milliseconds.hour), predictable: true).plainAfter == 0)
        // Other policies: the general path.
        #expect(facts(.atEnd).plainAfter == 0)
        #expect(facts(.never).plainAfter == 0)
    }
}
