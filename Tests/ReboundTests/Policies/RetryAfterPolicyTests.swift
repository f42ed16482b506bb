import Rebound
import Testing

/// `RetryAfterPolicy` decisions: honour, cap at the maximum, or fail when the deadline is too near.
@Suite struct RetryAfterPolicyTests {
    @Test func theDefaultMaximumIsOneMinute() {
        #expect(RetryAfterPolicy().maximum == .seconds(60))
    }

    @Test func aRequestWithinTheLimitsIsHonouredExactly() {
        let policy = RetryAfterPolicy()
        #expect(policy.wait(requested: .seconds(5), timeLeft: .seconds(30)) == .wait(.seconds(5)))
        #expect(policy.wait(requested: .seconds(5), timeLeft: nil) == .wait(.seconds(5)))
        #expect(policy.wait(requested: .zero, timeLeft: .zero) == .wait(.zero))
    }

    @Test func aRequestAboveTheMaximumIsCappedAtIt() {
        let policy = RetryAfterPolicy()
        #expect(policy.wait(requested: .seconds(3_600), timeLeft: nil) == .wait(.seconds(60)))
        #expect(policy.wait(requested: RetryAfter.longestDelay, timeLeft: .seconds(90)) == .wait(.seconds(60)))
    }

    @Test func aWaitEndingExactlyAtTheDeadlineIsAllowed() {
        #expect(RetryAfterPolicy().wait(requested: .seconds(10), timeLeft: .seconds(10)) == .wait(.seconds(10)))
    }

    @Test func aWaitLongerThanTheTimeLeftFailsAtOnce() {
        let policy = RetryAfterPolicy()
        #expect(
            policy.wait(requested: .seconds(10), timeLeft: .seconds(9))
                == .exceedsDeadline(requested: .seconds(10), timeLeft: .seconds(9)))
    }

    @Test func theDeadlineIsComparedWithTheCappedWaitButTheOriginalRequestIsReported() {
        let policy = RetryAfterPolicy()
        #expect(policy.wait(requested: .seconds(3_600), timeLeft: .seconds(61)) == .wait(.seconds(60)))
        #expect(
            policy.wait(requested: .seconds(3_600), timeLeft: .seconds(59))
                == .exceedsDeadline(requested: .seconds(3_600), timeLeft: .seconds(59)))
    }

    @Test func aDeadlineAlreadyPassedRefusesEvenAZeroWait() {
        #expect(
            RetryAfterPolicy().wait(requested: .zero, timeLeft: .seconds(-1))
                == .exceedsDeadline(requested: .zero, timeLeft: .seconds(-1)))
    }

    @Test func aNegativeRequestIsTreatedAsZero() {
        #expect(RetryAfterPolicy().wait(requested: .seconds(-5), timeLeft: .seconds(1)) == .wait(.zero))
    }

    @Test func aNegativeMaximumIsTreatedAsZero() {
        #expect(RetryAfterPolicy(maximum: .seconds(-1)).wait(requested: .seconds(5), timeLeft: nil) == .wait(.zero))
    }
}
