import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import TestSupport
import Testing

/// `AuthRefreshHandler`: the header it sets, when it refreshes, single flight, loops and secrets;
/// also `Credential` and `InMemoryCredentialStore`.
@Suite struct AuthRefreshHandlerTests {
    static let expired = Credential(accessToken: "expired-access-secret", refreshToken: "refresh-secret")

    // MARK: - Credential and store

    @Test func aCredentialNeverPrintsItsTokens() {
        let credential = Credential(
            accessToken: "access-secret", refreshToken: "refresh-secret", expiresAt: Date(timeIntervalSince1970: 0),
            generation: 7)
        var dumped = ""
        dump(credential, to: &dumped)
        let renderings = [
            credential.description, credential.debugDescription, "\(credential)", String(reflecting: credential),
            dumped, "\(Optional(credential) as Any)", "\([credential])",
        ]
        for text in renderings {
            #expect(!text.contains("access-secret"), "\(text)")
            #expect(!text.contains("refresh-secret"), "\(text)")
        }
        #expect(credential.description.contains("generation: 7"))
        #expect(credential.description.contains(ErrorContext.Value.redactionMarker))
        #expect(dumped.contains("generation: 7"))
    }

    @Test func aCredentialKnowsWhetherItHasExpired() {
        let credential = Credential(accessToken: "a", expiresAt: Date(timeIntervalSince1970: 100))
        #expect(!credential.isExpired(at: Date(timeIntervalSince1970: 99)))
        #expect(credential.isExpired(at: Date(timeIntervalSince1970: 100)))
        #expect(!Credential(accessToken: "a").isExpired(at: .distantFuture))
    }

    @Test func theStoreNumbersGenerationsUpwardEvenAcrossASignOut() async {
        let store = InMemoryCredentialStore(Credential(accessToken: "a", generation: 40))
        #expect(await store.current()?.generation == 1)
        let second = await store.replace(with: Credential(accessToken: "b"))
        #expect(second.generation == 2)
        #expect(await store.current() == second)
        await store.clear()
        #expect(await store.current() == nil)
        #expect(await store.replace(with: Credential(accessToken: "c")).generation == 3)
        #expect(await InMemoryCredentialStore().current() == nil)
    }

    // MARK: - prepare

    @Test func prepareSendsTheCurrentTokenInPlaceOfAnyAuthorization() async throws {
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(Self.expired), refresher: FakeRefresher())
        var request = Self.request(token: nil)
        request.headerFields[values: .authorization] = ["Basic dXNlcjpwYXNz", "Bearer stale"]
        try await handler.prepare(&request)
        #expect(request.headerFields[values: .authorization] == ["Bearer expired-access-secret"])
    }

    @Test func theTokenFieldIsMarkedSecret() async throws {
        // "Never index": kept out of HTTP/2 compression tables and, by Rebound's transport, from
        // redirects to another host.
        let apiKey = HTTPField.Name("X-Api-Key")!
        for name in [HTTPField.Name.authorization, apiKey] {
            let handler = AuthRefreshHandler(
                store: InMemoryCredentialStore(Self.expired), refresher: FakeRefresher(),
                configuration: .init(headerName: name))
            var bare = Self.request(token: nil)
            bare.headerFields[.accept] = "application/json"
            try await handler.prepare(&bare)
            #expect(bare.headerFields.first { $0.name == name }?.indexingStrategy == .disallow)
            #expect(bare.headerFields.first { $0.name == .accept }?.indexingStrategy == .automatic)
            var empty = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/")
            try await handler.prepare(&empty)
            #expect(empty.headerFields.map(\.indexingStrategy) == [.disallow])
        }
    }

    @Test func prepareLeavesTheRequestAloneWithoutACredential() async throws {
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(), refresher: FakeRefresher())
        var request = Self.request(token: "the-apps-own")
        try await handler.prepare(&request)
        #expect(request.headerFields[values: .authorization] == ["Bearer the-apps-own"])
        var bare = Self.request(token: nil)
        try await handler.prepare(&bare)
        #expect(bare.headerFields[.authorization] == nil)
    }

    @Test func theHeaderAndSchemeAreConfigurable() async throws {
        let apiKey = HTTPField.Name("X-Api-Key")!
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(headerName: apiKey, scheme: ""))
        var request = Self.request(token: nil)
        try await handler.prepare(&request)
        #expect(request.headerFields[apiKey] == "expired-access-secret")
        #expect(request.headerFields[.authorization] == nil)

        // The failed request is recognised by the configured field: it carried the current credential.
        var failure = Self.failure(token: nil)
        failure.request = request
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(refresher.calls == 1)

        let token = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(scheme: "Token"))
        var tokenRequest = Self.request(token: nil)
        try await token.prepare(&tokenRequest)
        #expect(tokenRequest.headerFields[.authorization] == "Token fresh-access-1")
    }

    @Test func prepareSendsTheTokenTheStoreHoldsNowAfterARefreshASignOutAndASignIn() async throws {
        // Given a handler that has prepared requests with the first credential
        let store = InMemoryCredentialStore(Self.expired)
        let handler = AuthRefreshHandler(store: store, refresher: FakeRefresher())
        func prepared() async throws -> [String] {
            var request = Self.request(token: nil)
            try await handler.prepare(&request)
            return request.headerFields[values: .authorization]
        }
        #expect(try await prepared() == ["Bearer expired-access-secret"])
        #expect(try await prepared() == ["Bearer expired-access-secret"])
        // (What the handler keeps of the token does not show in a dump.)
        var dumped = ""
        dump(handler, to: &dumped)
        #expect(!dumped.contains("expired-access-secret"))

        // When the credential is refreshed, then the next request carries the fresh token
        #expect(try await handler.recover(from: Self.failure(token: Self.expired.accessToken)).isRetryNow)
        #expect(try await prepared() == ["Bearer fresh-access-1"])
        // and a 401 for a request sent with the old one is recognised as sent with an older credential.
        #expect(try await handler.recover(from: Self.failure(token: Self.expired.accessToken)).isRetryNow)

        // When someone signs out, then requests go without a token
        await store.clear()
        #expect(try await prepared() == [])
        // and when someone signs in again, even with the first token, they carry that one.
        await store.replace(with: Self.expired)
        #expect(try await prepared() == ["Bearer expired-access-secret"])
        await store.replace(with: Credential(accessToken: "signed-in-access"))
        #expect(try await prepared() == ["Bearer signed-in-access"])
    }

    @Test func prepareSendsANewTokenEvenFromAStoreThatKeepsTheGeneration() async throws {
        // A store that does not number its credentials: the token, not the generation, decides.
        let store = UnnumberedStore(Credential(accessToken: "first-access", generation: 5))
        let handler = AuthRefreshHandler(store: store, refresher: FakeRefresher())
        var first = Self.request(token: nil)
        try await handler.prepare(&first)
        #expect(first.headerFields[values: .authorization] == ["Bearer first-access"])

        store.credential = Credential(accessToken: "second-access", generation: 5)
        var second = Self.request(token: nil)
        second.headerFields[.accept] = "application/json"
        try await handler.prepare(&second)
        #expect(second.headerFields[values: .authorization] == ["Bearer second-access"])
        #expect(second.headerFields.map(\.name) == [.accept, .authorization])
    }

    // MARK: - Which failures

    @Test(arguments: [400, 403, 404, 429, 500, 503])
    func otherStatusesAreNotItsBusiness(status: Int) async throws {
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(Self.expired), refresher: refresher)
        let failure = Self.failure(HTTPResponse.Status(code: status), token: Self.expired.accessToken)
        #expect(try await handler.recover(from: failure).isCannotHandle)
        #expect(refresher.calls == 0)
    }

    @Test func aNetworkFailureIsNotItsBusiness() async throws {
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(Self.expired), refresher: FakeRefresher())
        let failure = FailedAttempt(
            error: NetworkError(.timeout), request: Self.request(token: Self.expired.accessToken), body: nil,
            response: nil, attempt: 1, timeLeft: .seconds(30), history: [])
        #expect(try await handler.recover(from: failure).isCannotHandle)
    }

    @Test func forbiddenIsHandledWhenConfigured() async throws {
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: InMemoryCredentialStore(Self.expired), refresher: refresher,
            configuration: .init(handlesForbidden: true))
        let decision = try await handler.recover(from: Self.failure(.forbidden, token: Self.expired.accessToken))
        #expect(decision.isRetryNow)
        #expect(refresher.calls == 1)
    }

    @Test(arguments: [BackendErrorCode.invalidCredentials, .accountBlocked, .captchaRequired, .captchaInvalid])
    func backendCodesThatARefreshCannotCureAreLeftAlone(code: BackendErrorCode) async throws {
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: InMemoryCredentialStore(Self.expired), refresher: refresher,
            configuration: .init(handlesForbidden: true))
        for status in [HTTPResponse.Status.unauthorized, .forbidden] {
            let backend = BackendError(code, cause: HTTPError(response: HTTPResponse(status: status)))
            let failure = Self.failure(status, token: Self.expired.accessToken, error: backend)
            #expect(try await handler.recover(from: failure).isCannotHandle)
        }
        #expect(refresher.calls == 0)
        let expiredToken = BackendError(.tokenExpired, cause: HTTPError(response: HTTPResponse(status: .unauthorized)))
        let failure = Self.failure(token: Self.expired.accessToken, error: expiredToken)
        #expect(try await handler.recover(from: failure).isRetryNow)
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let configuration = AuthRefreshHandler.Configuration()
        #expect(configuration.handlesForbidden == false)
        #expect(configuration.maxRefreshes == 3)
        #expect(configuration.window == .seconds(60))
        #expect(configuration.headerName == .authorization)
        #expect(configuration.scheme == "Bearer")
        #expect(configuration.refreshesWithoutCredential == false)
        #expect(configuration.refreshTimeLimit == .seconds(30))
        #expect(
            configuration.unrefreshableCodes == [
                .invalidCredentials, .accountBlocked, .captchaRequired, .captchaInvalid,
            ])
    }

    // MARK: - Refreshing

    @Test func a401RefreshesTheCredentialAndRetries() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let decision = try await handler.recover(from: Self.failure(token: Self.expired.accessToken))
        #expect(decision.isRetryNow)
        #expect(refresher.received.map { $0?.refreshToken } == ["refresh-secret"])
        #expect(refresher.received.map { $0?.generation } == [1])
        let current = try #require(await store.current())
        #expect(current.accessToken == "fresh-access-1")
        #expect(current.generation == 2)
    }

    @Test func aThousandConcurrent401sShareOneRefresh() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        let gate = Gate()
        let refresher = FakeRefresher(gate: gate)
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)

        let decisions = try await withThrowingTaskGroup(of: RecoveryDecision.self) { group in
            for _ in 0..<1_000 { group.addTask { try await handler.recover(from: failure) } }
            // The refresh is held back until every recovery waits for it.
            #expect(await eventually { handler.recoveriesWaiting(forRefreshOf: 1) == 1_000 })
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.count == 1_000)
        #expect(decisions.allSatisfy { $0.isRetryNow })
        #expect(refresher.calls == 1)
        #expect(await store.current()?.generation == 2)
        #expect(handler.recoveriesWaiting(forRefreshOf: 1) == 0)
    }

    @Test func aRequestSentWithAnOlderCredentialRetriesWithoutRefreshing() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        await store.replace(with: Credential(accessToken: "newer-access"))
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        #expect(try await handler.recover(from: Self.failure(token: Self.expired.accessToken)).isRetryNow)
        // Sent before anyone signed in: the store has a credential now.
        #expect(try await handler.recover(from: Self.failure(token: nil)).isRetryNow)
        #expect(refresher.calls == 0)
        #expect(await store.current()?.accessToken == "newer-access")
    }

    @Test func aRequestThatLostTheRaceWithARefreshDoesNotRefreshAgain() async throws {
        // Two requests fail with the same credential one after the other: the second finds it
        // replaced and retries.
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(refresher.calls == 1)
    }

    @Test func aRequestThatReadTheStoreJustBeforeARefreshEndedDoesNotRefreshAgain() async throws {
        // B reads the expired credential, A's refresh starts and ends, then B goes on: B must find
        // that its credential was replaced meanwhile rather than refresh it a second time.
        let store = PausingStore(Self.expired)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)

        let pause = store.pauseNextRead()
        let late = Task { try await handler.recover(from: failure) }
        await pause.read.wait()
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(refresher.calls == 1)
        pause.release.open()
        #expect(try await late.value.isRetryNow)
        #expect(refresher.calls == 1)
        #expect(await store.current()?.generation == 2)
    }

    @Test func aFailedRefreshFailsEveryWaiterAndIsNotRepeatedForTheSameCredential() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        let gate = Gate()
        let refresher = FakeRefresher(gate: gate, failure: RefreshEndpointDown())
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)

        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        _ = try await handler.recover(from: failure)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            #expect(await eventually { handler.recoveriesWaiting(forRefreshOf: 1) == 50 })
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors.count == 50)
        for error in errors {
            let recovery = error as? RecoveryError
            #expect(recovery?.code == .refreshFailed)
            #expect(recovery?.cause is RefreshEndpointDown)
        }
        #expect(refresher.calls == 1)

        // Later 401s with the same credential fail at once.
        let later = await #expect(throws: RecoveryError.self) { try await handler.recover(from: failure) }
        #expect(later?.code == .refreshFailed)
        #expect(later?.cause is RefreshEndpointDown)
        #expect(refresher.calls == 1)
        #expect(await store.current()?.generation == 1)

        // A sign-in starts afresh.
        refresher.failure = nil
        await store.replace(with: Credential(accessToken: "signed-in-access", refreshToken: "r2"))
        #expect(try await handler.recover(from: Self.failure(token: "signed-in-access")).isRetryNow)
        #expect(refresher.calls == 2)
        #expect(refresher.received.last??.accessToken == "signed-in-access")
    }

    /// A refresh that never answers (a token endpoint that hangs) ends at its time limit as a failed
    /// refresh: its waiters are not held until their calls' deadlines, and later 401s with the same
    /// credential fail at once rather than join a refresh that never ends.
    @Test func aRefreshThatNeverAnswersFailsAtItsTimeLimit() async throws {
        let clock = TestClock(mode: .manual)
        let store = InMemoryCredentialStore(Self.expired)
        let gate = Gate()
        defer { gate.open() }
        let refresher = FakeRefresher(gate: gate)
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(refreshTimeLimit: .seconds(5)))
        let failure = Self.failure(token: Self.expired.accessToken, time: clock.timeSource)

        let waiting = Task { try await handler.recover(from: failure) }
        await refresher.started.wait()
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        let error = await #expect(throws: RecoveryError.self) { try await waiting.value }
        #expect(error?.code == .refreshFailed)
        #expect((error?.cause as? RecoveryError)?.code == .deadlineExceeded)
        #expect(error?.chain.short == "RE10-RE2", "\(String(describing: error?.chain.short))")

        let later = await #expect(throws: RecoveryError.self) { try await handler.recover(from: failure) }
        #expect(later?.code == .refreshFailed)
        #expect(refresher.calls == 1)
        #expect(handler.recoveriesWaiting(forRefreshOf: 1) == 0)
        #expect(await store.current()?.generation == 1)
    }

    /// A refresher that stops when cancelled, as an HTTP client does, leaves the limit's failure
    /// as the one remembered, not its own cancellation.
    @Test func aRefreshLeftBehindAtItsLimitIsRememberedAsTimedOut() async throws {
        let clock = TestClock(mode: .manual)
        let stopped = Locked(false)
        let handler = AuthRefreshHandler(
            store: InMemoryCredentialStore(Self.expired), configuration: .init(refreshTimeLimit: .seconds(5))
        ) { _ in
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                stopped.withLock { $0 = true }
                throw error
            }
            return Credential(accessToken: "never")
        }
        let failure = Self.failure(token: Self.expired.accessToken, time: clock.timeSource)

        let waiting = Task { try await handler.recover(from: failure) }
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        let error = await #expect(throws: RecoveryError.self) { try await waiting.value }
        #expect(error?.chain.short == "RE10-RE2", "\(String(describing: error?.chain.short))")
        // The refresher, cancelled, throws after the flight ended; the handler has heard it.
        #expect(await waitUntil { stopped.withLock { $0 } })
        try await Task.sleep(for: .milliseconds(100))
        let later = await #expect(throws: RecoveryError.self) { try await handler.recover(from: failure) }
        #expect(later?.chain.short == "RE10-RE2", "\(String(describing: later?.chain.short))")
    }

    /// The time limit covers the whole refresh: a store whose write hangs holds the flight no
    /// longer than a refresher that never answers.
    @Test func aRefreshWhoseStoreHangsFailsAtItsTimeLimit() async throws {
        let clock = TestClock(mode: .manual)
        let gate = Gate()
        defer { gate.open() }
        let store = WriteGatedStore(Self.expired, gate: gate)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(refreshTimeLimit: .seconds(5)))
        let failure = Self.failure(token: Self.expired.accessToken, time: clock.timeSource)

        let waiting = Task { try await handler.recover(from: failure) }
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        let error = await #expect(throws: RecoveryError.self) { try await waiting.value }
        #expect(error?.chain.short == "RE10-RE2", "\(String(describing: error?.chain.short))")
        #expect(refresher.calls == 1)
        #expect(handler.recoveriesWaiting(forRefreshOf: 1) == 0)
    }

    @Test func aCancelledWaiterStopsWaitingWhileTheRefreshGoesOn() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        let gate = Gate()
        let refresher = FakeRefresher(gate: gate)
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)

        let waiting = Task { try await handler.recover(from: failure) }
        await refresher.started.wait()
        waiting.cancel()
        // Should cancelling not end the wait, the gate opens anyway: the test fails rather than hangs.
        let watchdog = Task {
            _ = await eventually { false }
            gate.open()
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        watchdog.cancel()
        gate.open()
        // Another request with the same credential joins or follows the same refresh.
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(refresher.calls == 1)
        #expect(await store.current()?.accessToken == "fresh-access-1")
    }

    // MARK: - Loops and limits

    @Test func a401WithTheCredentialThisHandlerGaveItEndsWithRefreshRejected() async throws {
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(Self.expired), refresher: refresher)
        let failure = Self.failure(
            token: Self.expired.accessToken, recoveredBy: ["BackendTemporaryErrorHandler", handler.name])
        let error = await #expect(throws: RecoveryError.self) { try await handler.recover(from: failure) }
        #expect(error?.code == .refreshRejected)
        #expect(error?.chain.contains(HTTPStatusCode(.unauthorized)) == true)
        #expect(refresher.calls == 0)

        // Recoveries by other handlers do not count.
        let other = Self.failure(token: Self.expired.accessToken, recoveredBy: ["BackendTemporaryErrorHandler"])
        #expect(try await handler.recover(from: other).isRetryNow)
    }

    @Test func moreRefreshesThanAllowedWithinTheWindowEndWithTooManyRefreshes() async throws {
        let clock = TestClock()
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(maxRefreshes: 3, window: .seconds(60)))
        func failureWithCurrentCredential() async throws -> FailedAttempt {
            Self.failure(token: try #require(await store.current()).accessToken, time: clock.timeSource)
        }

        for _ in 0..<3 {
            #expect(try await handler.recover(from: failureWithCurrentCredential()).isRetryNow)
            clock.advance(by: .seconds(10))
        }
        let failure = try await failureWithCurrentCredential()
        let error = await #expect(throws: RecoveryError.self) { try await handler.recover(from: failure) }
        #expect(error?.code == .tooManyRefreshes)
        #expect(error?.chain.contains(HTTPStatusCode(.unauthorized)) == true)
        #expect(refresher.calls == 3)

        // 60 s after the first refresh, it leaves the window.
        clock.advance(by: .seconds(30))
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(refresher.calls == 4)
    }

    @Test func noCredentialAndNoRefreshWithoutOneEndsWithNoCredential() async throws {
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(store: InMemoryCredentialStore(), refresher: refresher)
        for token in [nil, "signed-out-access"] {
            let error = await #expect(throws: RecoveryError.self) {
                try await handler.recover(from: Self.failure(token: token))
            }
            #expect(error?.code == .noCredential)
        }
        #expect(refresher.calls == 0)
    }

    @Test func aFailedRefreshWithoutACredentialIsForgottenOnceSomeoneSignsIn() async throws {
        let store = InMemoryCredentialStore()
        let refresher = FakeRefresher(failure: RefreshEndpointDown())
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(refreshesWithoutCredential: true))
        for _ in 0..<2 {
            let error = await #expect(throws: RecoveryError.self) {
                try await handler.recover(from: Self.failure(token: nil))
            }
            #expect(error?.code == .refreshFailed)
        }
        #expect(refresher.calls == 1)

        // A sign-in, seen by the handler before the next request, and a sign-out.
        await store.replace(with: Credential(accessToken: "signed-in-access"))
        var request = Self.request(token: nil)
        try await handler.prepare(&request)
        await store.clear()

        refresher.failure = nil
        #expect(try await handler.recover(from: Self.failure(token: nil)).isRetryNow)
        #expect(refresher.calls == 2)
    }

    @Test func withoutACredentialTheRefresherMayGetOneWhenConfigured() async throws {
        let store = InMemoryCredentialStore()
        let refresher = FakeRefresher()
        let handler = AuthRefreshHandler(
            store: store, refresher: refresher, configuration: .init(refreshesWithoutCredential: true))
        #expect(try await handler.recover(from: Self.failure(token: nil)).isRetryNow)
        #expect(refresher.received.count == 1)
        #expect(refresher.received.first == .some(nil))
        #expect(await store.current()?.accessToken == "fresh-access-1")
    }

    @Test func errorsNeverCarryTokens() async throws {
        var errors: [any Error] = []
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher(failure: RefreshEndpointDown())
        let handler = AuthRefreshHandler(store: store, refresher: refresher)
        let failure = Self.failure(token: Self.expired.accessToken)
        for _ in 0..<2 {
            do { _ = try await handler.recover(from: failure) } catch { errors.append(error) }
        }
        let recovered = Self.failure(token: Self.expired.accessToken, recoveredBy: [handler.name])
        do { _ = try await handler.recover(from: recovered) } catch { errors.append(error) }
        let empty = AuthRefreshHandler(store: InMemoryCredentialStore(), refresher: refresher)
        do { _ = try await empty.recover(from: failure) } catch { errors.append(error) }

        #expect(errors.count == 4)
        for error in errors {
            let renderings = [
                "\(error)", String(reflecting: error), error.chain.short, error.chain.full,
                String(reflecting: error.chain),
            ]
            for text in renderings {
                #expect(!text.contains("secret"), "\(text)")
            }
        }
    }

    // MARK: - Through the pipeline

    @Test func throughThePipelineA401IsRetriedWithTheNewToken() async throws {
        let store = InMemoryCredentialStore(Self.expired)
        let refresher = FakeRefresher()
        let transport = ScriptedTransport([
            .respond(status: .unauthorized, body: Data(#"{"code":"token_expired","message":"Expired."}"#.utf8)),
            .respond(status: .ok, body: Data(#"{"name":"Ada"}"#.utf8)),
        ])
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport,
            handlers: [BackendTemporaryErrorHandler(), AuthRefreshHandler(store: store, refresher: refresher)],
            time: TestClock(mode: .manual).timeSource)

        let profile = try await api.send(Endpoint<Profile, APIErrorCode>(.get, "/v1/me", errorCode: .currentWorker))
        #expect(profile == Profile(name: "Ada"))
        #expect(
            transport.requests.map { $0.request.headerFields[.authorization] } == [
                "Bearer expired-access-secret", "Bearer fresh-access-1",
            ])
        #expect(refresher.calls == 1)
    }

    @Test func throughThePipelineASecond401EndsWithRefreshRejected() async throws {
        let refresher = FakeRefresher()
        let transport = ScriptedTransport([.respond(status: .unauthorized), .respond(status: .unauthorized)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport,
            handlers: [AuthRefreshHandler(store: InMemoryCredentialStore(Self.expired), refresher: refresher)],
            time: TestClock(mode: .manual).timeSource)

        let error = await #expect(throws: APIError.self) {
            try await api.send(Endpoint<Profile, APIErrorCode>(.get, "/v1/me", errorCode: .currentWorker))
        }
        #expect(error?.chain.short == "AP103-RE11-HT401")
        #expect(transport.requests.count == 2)
        #expect(refresher.calls == 1)
    }

    // MARK: - Helpers

    static func request(token: String?) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/me")
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        return request
    }

    /// A failed attempt answered with `status`, sent with `token`, after earlier attempts that
    /// `recoveredBy` recovered from.
    static func failure(
        _ status: HTTPResponse.Status = .unauthorized,
        token: String?,
        recoveredBy handlers: [String] = [],
        error: (any Error)? = nil,
        time: TimeSource = TestClock(mode: .manual).timeSource
    ) -> FailedAttempt {
        let head = HTTPResponse(status: status)
        let history = handlers.enumerated().map { index, handler in
            AttemptRecord.failed(index + 1, status: status.code, handler: handler)
        }
        return FailedAttempt(
            error: error ?? HTTPError(response: head), request: request(token: token), body: nil,
            response: TransportResponse(head: head), attempt: history.count + 1, timeLeft: .seconds(30),
            history: history, time: time)
    }

    @Test func anAppsOwnStoreIsReadOffTheCallersActor() async throws {
        // A store may read the keychain or a file: asked from an actor, directly or by the handler
        // preparing a request, it must not run on that actor and block it.
        let store = QueueRecordingStore()
        let handler = AuthRefreshHandler(store: store) { _ in Credential(accessToken: "fresh") }
        let caller = QueueActor()
        let (callerOnItsQueue, request) = try await caller.ask(store, then: handler)
        try #require(callerOnItsQueue)
        #expect(request.headerFields[.authorization] == "Bearer stored")
        #expect(store.readsOnTheCallersQueue == [false, false])
    }
}

// MARK: - Doubles

private struct Profile: Codable, Equatable {
    var name: String
}

private struct RefreshEndpointDown: Error {}

/// A store that hands out whatever credential it was last given, generation and all.
private final class UnnumberedStore: CredentialStore {
    private let state: Locked<Credential?>

    init(_ credential: Credential?) {
        state = Locked(credential)
    }

    var credential: Credential? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    func current() async -> Credential? { credential }

    func replace(with credential: Credential) async -> Credential {
        self.credential = credential
        return credential
    }

    func clear() async { credential = nil }
}

/// A refresher that counts its calls, optionally waits for a gate, and answers `fresh-access-<n>`
/// or fails.
private final class FakeRefresher: CredentialRefresher {
    private struct State {
        var received: [Credential?] = []
        var failure: (any Error)?
    }

    private let state: Locked<State>
    private let gate: Gate?
    /// Opens when the first call starts.
    let started = Gate()

    init(gate: Gate? = nil, failure: (any Error)? = nil) {
        self.gate = gate
        self.state = Locked(State(failure: failure))
    }

    var calls: Int { state.withLock { $0.received.count } }
    var received: [Credential?] { state.withLock { $0.received } }
    var failure: (any Error)? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    func refresh(_ expired: Credential?) async throws -> Credential {
        let number = state.withLock { state in
            state.received.append(expired)
            return state.received.count
        }
        started.open()
        await gate?.wait()
        if let failure { throw failure }
        return Credential(accessToken: "fresh-access-\(number)", refreshToken: "fresh-refresh-\(number)")
    }
}

/// An in-memory store whose next read can be held back after it has read the credential, to
/// replay a race.
private final class PausingStore: CredentialStore {
    struct Pause {
        /// Opens once the paused read has read the credential.
        let read = Gate()
        /// Lets the paused read return.
        let release = Gate()
    }

    private let store: InMemoryCredentialStore
    private let pause = Locked<Pause?>(nil)

    init(_ credential: Credential) {
        store = InMemoryCredentialStore(credential)
    }

    /// Holds back the next read until the returned pause's `release` opens.
    func pauseNextRead() -> Pause {
        let pause = Pause()
        self.pause.withLock { $0 = pause }
        return pause
    }

    func current() async -> Credential? {
        let credential = await store.current()
        if let pause = pause.withLock({ pause in
            defer { pause = nil }; return pause
        }) {
            pause.read.open()
            await pause.release.wait()
        }
        return credential
    }

    func replace(with credential: Credential) async -> Credential {
        await store.replace(with: credential)
    }

    func clear() async {
        await store.clear()
    }
}

/// A store that records whether each read ran on ``QueueActor``'s queue.
private final class QueueRecordingStore: CredentialStore {
    private let reads = Locked<[Bool]>([])

    var readsOnTheCallersQueue: [Bool] { reads.withLock { $0 } }

    func current() async -> Credential? {
        let onQueue = QueueExecutor.isCurrent
        reads.withLock { $0.append(onQueue) }
        return Credential(accessToken: "stored")
    }

    func replace(with credential: Credential) async -> Credential { credential }

    func clear() async {}
}

/// Runs an actor's jobs on a dispatch queue that can tell whether it is the current one.
private final class QueueExecutor: SerialExecutor {
    private static let key = DispatchSpecificKey<Bool>()
    private let queue = DispatchQueue(label: "rebound.tests.caller")

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    init() {
        queue.setSpecific(key: Self.key, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// An app's actor (a view model, say) that asks the store and the handler.
private actor QueueActor {
    private let executor = QueueExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Whether this actor itself ran on its queue, and the request the handler prepared.
    func ask(_ store: any CredentialStore, then handler: AuthRefreshHandler) async throws -> (Bool, HTTPRequest) {
        let onQueue = QueueExecutor.isCurrent
        _ = await store.current()
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/me")
        try await handler.prepare(&request)
        return (onQueue, request)
    }
}

/// A store whose writes wait until a gate opens: a keychain or a file that hangs.
private final class WriteGatedStore: CredentialStore {
    private let inner: InMemoryCredentialStore
    private let gate: Gate

    init(_ credential: Credential, gate: Gate) {
        inner = InMemoryCredentialStore(credential)
        self.gate = gate
    }

    func current() async -> Credential? { await inner.current() }

    func replace(with credential: Credential) async -> Credential {
        await gate.wait()
        return await inner.replace(with: credential)
    }

    func clear() async { await inner.clear() }
}
