import Foundation
import HTTPTypes
import ReboundTesting
import Testing

@testable import Rebound

/// `AuthRefreshHandler` refreshing a credential before it expires: before the attempt is sent,
/// in one flight shared with the refreshes after a 401, on a test clock whose date is the
/// credential's.
@Suite struct AuthRefreshBeforeExpiryTests {
    /// A store, a refresher that counts its calls (and waits for `gate` if given), and a pipeline
    /// over a scripted transport on a manual clock: a hook that waits is raced by a timer that
    /// never fires unless the test moves the clock.
    struct Fixture {
        let clock = TestClock(mode: .manual)
        let store = InMemoryCredentialStore()
        let transport: ScriptedTransport
        let refreshes = Locked(0)
        let handler: AuthRefreshHandler
        let api: APIDataManager

        init(
            expiresIn: Duration?, steps: [ScriptedTransport.Step] = [.tasks], gate: Gate? = nil,
            failing: Bool = false, refreshBeforeExpiry: Duration? = .seconds(60)
        ) async throws {
            let clock = clock
            let refreshes = refreshes
            transport = ScriptedTransport(steps)
            handler = AuthRefreshHandler(
                store: store, configuration: .init(refreshBeforeExpiry: refreshBeforeExpiry)
            ) { _ in
                refreshes.withLock { $0 += 1 }
                await gate?.wait()
                if failing { throw URLError(.notConnectedToInternet) }
                return Credential(accessToken: "fresh", expiresAt: clock.date.addingTimeInterval(3600))
            }
            api = try makeManager(transport, handlers: [handler], clock: clock)
            let expiresAt = expiresIn.map { clock.date.addingTimeInterval(Double($0.components.seconds)) }
            await store.replace(with: Credential(accessToken: "old", expiresAt: expiresAt))
        }

        func call() async -> String {
            do {
                _ = try await api.send(SampleEndpoints.listTasks)
                return "ok"
            } catch {
                return error.chain.short
            }
        }

        var tokensSent: [String?] { transport.requests.map { $0.request.headerFields[.authorization] } }
        var refreshCount: Int { refreshes.withLock { $0 } }
    }

    @Test func aTokenExpiringWithinTheSkewIsRefreshedBeforeTheAttemptIsSent() async throws {
        let fixture = try await Fixture(expiresIn: .seconds(60))
        #expect(await fixture.call() == "ok")
        #expect(fixture.tokensSent == ["Bearer fresh"])
        #expect(fixture.refreshCount == 1)
    }

    @Test func aTokenFurtherFromExpiryIsSentAsItIs() async throws {
        let fixture = try await Fixture(expiresIn: .seconds(61))
        #expect(await fixture.call() == "ok")
        #expect(fixture.tokensSent == ["Bearer old"])
        #expect(fixture.refreshCount == 0)
    }

    @Test func aTokenWithoutExpiryIsNeverRefreshedAhead() async throws {
        let fixture = try await Fixture(expiresIn: nil)
        #expect(await fixture.call() == "ok")
        #expect(fixture.tokensSent == ["Bearer old"])
        #expect(fixture.refreshCount == 0)
    }

    @Test func callsThatFindTheTokenExpiringShareOneRefresh() async throws {
        let gate = Gate()
        let fixture = try await Fixture(expiresIn: .seconds(10), steps: Array(repeating: .tasks, count: 5), gate: gate)
        let calls = (0..<5).map { _ in Task { await fixture.call() } }
        #expect(await eventually { fixture.handler.recoveriesWaiting(forRefreshOf: 1) == 5 })
        gate.open()
        for call in calls { #expect(await call.value == "ok") }
        #expect(fixture.refreshCount == 1)
        #expect(fixture.tokensSent == Array(repeating: "Bearer fresh", count: 5))
    }

    @Test func aRefreshBeforeExpiryJoinsTheRefreshAfterA401() async throws {
        let gate = Gate()
        let fixture = try await Fixture(
            expiresIn: .seconds(62), steps: [.status(.unauthorized), .tasks, .tasks], gate: gate)
        // The first call's token is good for another 62 s: sent, rejected, refreshed.
        let rejected = Task { await fixture.call() }
        #expect(await eventually { fixture.refreshCount == 1 })
        // Two seconds on, the second call finds it within the skew and joins that refresh.
        fixture.clock.advance(by: .seconds(2))
        let second = Task { await fixture.call() }
        #expect(await eventually { fixture.handler.recoveriesWaiting(forRefreshOf: 1) == 2 })
        gate.open()
        #expect(await rejected.value == "ok")
        #expect(await second.value == "ok")
        #expect(fixture.refreshCount == 1)
        #expect(fixture.tokensSent == ["Bearer old", "Bearer fresh", "Bearer fresh"])
    }

    @Test func anExpiredTokenWhoseRefreshFailsIsNeverSent() async throws {
        let fixture = try await Fixture(expiresIn: .zero, failing: true)
        let chain = await fixture.call()
        #expect(chain.hasPrefix("AP8-RE10"), "\(chain)")
        #expect(fixture.tokensSent.isEmpty)
        // The failure is remembered: the next call fails at once, without refreshing again.
        let again = await fixture.call()
        #expect(again.hasPrefix("AP8-RE10"), "\(again)")
        #expect(fixture.refreshCount == 1)
    }

    @Test func aTokenStillGoodWhoseRefreshFailsIsSentAllTheSame() async throws {
        let fixture = try await Fixture(expiresIn: .seconds(30), failing: true)
        #expect(await fixture.call() == "ok")
        #expect(fixture.tokensSent == ["Bearer old"])
        #expect(fixture.refreshCount == 1)
    }

    @Test func aTokenOutsideTheSkewIsSetInlineAndOneWithinItHandsOverToTheRefresh() async throws {
        let fixture = try await Fixture(expiresIn: .seconds(61))
        #expect(fixture.handler.hooks == .prepareSynchronously)
        let context = AttemptContext(
            id: AttemptID(call: 1, attempt: 1), maxAttempts: 1, deadline: .seconds(60), method: .get,
            path: "/tasks", time: fixture.clock.timeSource)
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
        #expect(fixture.handler.prepareSynchronously(&request, context: context) == .done)
        #expect(request.headerFields[.authorization] == "Bearer old")
        fixture.clock.advance(by: .seconds(1))
        var later = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
        #expect(fixture.handler.prepareSynchronously(&later, context: context) == .continueAsynchronously)
        #expect(later.headerFields[.authorization] == nil)
        #expect(fixture.refreshCount == 0)
    }

    @Test func withoutASkewTheTokenIsSentInlineUntilTheBackendRejectsIt() async throws {
        let fixture = try await Fixture(expiresIn: .zero, refreshBeforeExpiry: nil)
        #expect(fixture.handler.hooks == .prepareSynchronously)
        #expect(await fixture.call() == "ok")
        #expect(fixture.tokensSent == ["Bearer old"])
        #expect(fixture.refreshCount == 0)
    }
}
