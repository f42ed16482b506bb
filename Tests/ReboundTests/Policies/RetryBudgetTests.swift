import Rebound
import Testing

/// `RetryBudget`'s token arithmetic, threshold, clamping and thread safety.
@Suite struct RetryBudgetTests {
    @Test func aNewBudgetIsFullWithTheDefaults() {
        let budget = RetryBudget()
        #expect(budget.maxTokens == 10)
        #expect(budget.tokenRatio == 0.1)
        #expect(budget.tokens == 10)
    }

    @Test func failuresDrainToHalfThenRetriesAreRefused() {
        let budget = RetryBudget()
        let answers = (0..<6).map { _ in budget.recordFailure() }
        // 10 → 9, 8, 7, 6 leave more than half; 5 does not.
        #expect(answers == [true, true, true, true, false, false])
        #expect(budget.tokens == 4)
    }

    @Test func tokensNeverGoBelowZero() {
        let budget = RetryBudget()
        for _ in 0..<25 { budget.recordFailure() }
        #expect(budget.tokens == 0)
        budget.recordSuccess()
        #expect(budget.tokens == 0.1)
    }

    @Test func successesRefillUntilARetryIsAllowedAgain() {
        let budget = RetryBudget()
        for _ in 0..<5 { budget.recordFailure() }
        #expect(budget.tokens == 5)
        for _ in 0..<10 { budget.recordSuccess() }
        // 6 tokens: paying one for a failure leaves exactly half, which is not enough.
        #expect(budget.tokens == 6)
        #expect(budget.recordFailure() == false)
        for _ in 0..<11 { budget.recordSuccess() }
        #expect(budget.tokens == 6.1)
        #expect(budget.recordFailure() == true)
        #expect(budget.tokens == 5.1)
    }

    @Test func refundsOfATenthAddUpExactly() {
        let budget = RetryBudget()
        for _ in 0..<10 { budget.recordFailure() }
        for _ in 0..<30 { budget.recordSuccess() }
        #expect(budget.tokens == 3)
    }

    @Test func tokensNeverExceedTheMaximum() {
        let budget = RetryBudget()
        for _ in 0..<100 { budget.recordSuccess() }
        #expect(budget.tokens == 10)
        budget.recordFailure()
        for _ in 0..<15 { budget.recordSuccess() }
        #expect(budget.tokens == 10)
    }

    @Test(arguments: [
        (-1.0, 0.1, 0.0, 0.1), (.nan, 0.1, 0, 0.1), (5_000, 0.1, 1_000, 0.1), (10, 0, 10, 0.001),
        (10, -3, 10, 0.001), (10, .nan, 10, 0.001), (10, 0.0004, 10, 0.001), (10, 0.1234, 10, 0.123),
        (2.5, 5_000, 2.5, 1_000), (10.0004, 0.1, 10, 0.1),
    ])
    func anInvalidConfigurationIsClamped(
        maxTokens: Double, tokenRatio: Double, expectedMax: Double, expectedRatio: Double
    ) {
        let budget = RetryBudget(maxTokens: maxTokens, tokenRatio: tokenRatio)
        #expect(budget.maxTokens == expectedMax)
        #expect(budget.tokenRatio == expectedRatio)
        #expect(budget.tokens == expectedMax)
    }

    @Test func anEmptyBudgetNeverAllowsARetry() {
        let budget = RetryBudget(maxTokens: 0)
        for _ in 0..<10 { budget.recordSuccess() }
        #expect(budget.tokens == 0)
        #expect(budget.recordFailure() == false)
    }

    @Test func concurrentFailuresGrantExactlyAsManyRetriesAsSequentialOnes() async {
        let budget = RetryBudget()
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { budget.recordFailure() }
            }
            return await group.reduce(0) { count, allowed in count + (allowed ? 1 : 0) }
        }
        #expect(granted == 4)
        #expect(budget.tokens == 0)
    }

    @Test func concurrentSuccessesAndFailuresKeepTheBookkeepingExact() async {
        let budget = RetryBudget(maxTokens: 1_000, tokenRatio: 1)
        for _ in 0..<500 { budget.recordFailure() }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                group.addTask { if index.isMultiple(of: 2) { budget.recordFailure() } else { budget.recordSuccess() } }
            }
        }
        // Whatever the interleaving, the tokens stay within 300...700, away from both bounds, so
        // every withdrawal and refund of one token must have landed: a lost update shows here.
        #expect(budget.tokens == 500)
    }

    @Test func manyThreadsWithdrawingAndRefundingAtOnceLoseNoUpdate() async {
        let budget = RetryBudget(maxTokens: 1_000, tokenRatio: 1)
        for _ in 0..<500 { budget.recordFailure() }
        // Each task owes at most one token at any moment, so the count stays within 300...500 and
        // never reaches a bound: 200,000 updates racing for one counter must all land.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    for _ in 0..<500 {
                        budget.recordFailure()
                        budget.recordSuccess()
                    }
                }
            }
        }
        #expect(budget.tokens == 500)
    }
}
