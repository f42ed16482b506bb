import Foundation
import Rebound
import TestSupport
import Testing

extension AssertionErrorCode {
    static let negativeBalance = AssertionErrorCode(102, name: "negativeBalance")
}

/// A messenger that keeps every failure, and whether the checker warned it of a trap.
final class RecordingMessenger: AssertionMessenger {
    let failures = Locked<[AssertionFailure]>([])
    let trapWarnings = Locked(0)

    func assertionFailed(_ failure: AssertionFailure) {
        failures.withLock { $0.append(failure) }
    }

    func willTrap(after failure: AssertionFailure) {
        trapWarnings.withLock { $0 += 1 }
    }
}

@Suite(.serialized) struct AssertionCheckerTests {
    @Test func aHoldingConditionTellsNobodyAndEvaluatesNoMessage() {
        let messenger = RecordingMessenger()
        let checker = AssertionChecker(messenger: messenger, action: .trap, trap: { _ in Issue.record("trapped") })
        checker.check(
            true,
            { () -> String in
                Issue.record("message evaluated")
                return ""
            }())
        #expect(messenger.failures.withLock { $0 }.isEmpty)
    }

    @Test func inContinueModeAFailureIsReportedWithItsPlaceAndExecutionGoesOn() {
        let messenger = RecordingMessenger()
        let trapped = Locked(0)
        let checker = AssertionChecker(
            messenger: messenger, action: .continue, trap: { _ in trapped.withLock { $0 += 1 } })
        let line = #line + 1
        checker.check(1 + 1 == 3, "arithmetic broke", code: .negativeBalance, context: ["balance": "-3"])
        let failure = messenger.failures.withLock { $0.first }
        #expect(failure?.message == "arithmetic broke")
        #expect(failure?.code == .negativeBalance)
        #expect(failure?.fileID == #fileID)
        #expect(failure?.line == line)
        #expect(failure?.function == "inContinueModeAFailureIsReportedWithItsPlaceAndExecutionGoesOn()")
        #expect(failure?.context["balance"]?.revealed == "-3")
        #expect(trapped.withLock { $0 } == 0)
        #expect(messenger.trapWarnings.withLock { $0 } == 0)
    }

    @Test func inTrapModeTheMessengerIsToldFirstThenTheTrapGetsTheMessage() {
        let messenger = RecordingMessenger()
        let trapped = Locked<[String]>([])
        let checker = AssertionChecker(
            messenger: messenger, action: .trap,
            trap: { failure in
                // The messenger heard about it before the process would stop.
                #expect(messenger.failures.withLock { $0.count } == 1)
                trapped.withLock { $0.append(failure.description) }
            })
        checker.fail("unreachable state")
        #expect(messenger.trapWarnings.withLock { $0 } == 1)
        let message = trapped.withLock { $0 }
        #expect(message.count == 1)
        #expect(message.first?.hasPrefix("Assertion failed: unreachable state [AS0] at \(#fileID):") == true)
    }

    @Test func theReporterRecordsAFailedAssertionAsANonFatalOfTheAssertionLayer() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        let trapped = Locked<[Int]>([])
        let checker = AssertionChecker(
            messenger: reporter, action: .trap,
            trap: { _ in trapped.withLock { $0.append(sink.reports.count) } })
        let line = #line + 4
        // The reporter blocks the asserting thread until the report is out; on a thread of its own,
        // that wait cannot starve the delivery task of a cooperative thread.
        await onOwnThread {
            checker.check(false, "balance went negative", code: .negativeBalance)
        }
        // In trap mode the report was delivered before the trap.
        #expect(trapped.withLock { $0 } == [1])
        let report = try #require(sink.reports.first)
        #expect(report.chain == "AS102")
        #expect(report.fullChain == "AssertionError.negativeBalance")
        #expect(report.error.links.first?.reason == "balance went negative")
        #expect(report.file == #fileID)
        #expect(report.line == line)
        #expect(report.function == "theReporterRecordsAFailedAssertionAsANonFatalOfTheAssertionLayer()")
    }

    @Test func theFreeFunctionsUseTheSharedChecker() {
        let saved = AssertionChecker.shared
        defer { AssertionChecker.shared = saved }
        let messenger = RecordingMessenger()
        AssertionChecker.shared = AssertionChecker(messenger: messenger, action: .continue)
        nonFatalAssert(false, "first")
        nonFatalAssertionFailure("second", code: .negativeBalance)
        nonFatalAssert(true, "never")
        #expect(messenger.failures.withLock { $0 }.map(\.message) == ["first", "second"])
        #expect(messenger.failures.withLock { $0 }.map(\.code.rawValue) == [0, 102])
    }

    @Test func theStandardActionFollowsTheBuildAsAssertDoes() {
        #if DEBUG
            #expect(AssertionFailureAction.standard == .trap)
        #else
            #expect(AssertionFailureAction.standard == .continue)
        #endif
    }
}
