import Foundation
import Rebound
import Testing

@Suite struct ErrorPresenterTests {
    let presenter = ErrorPresenter(build: BuildIdentity(version: "2.4.1", revision: "3f9c2ab"))

    @Test func theUserLayerChoosesTheMessageForARecoverableFailure() {
        let shown = presenter.present(talkExample())
        #expect(shown.isRecoverable)
        #expect(shown.messageKey == "noConnection")
        #expect(shown.message == "No connection to the server. Please check your internet connection.")
        #expect(shown.actions.map(\.kind) == [.checkConnection, .retry])
        #expect(shown.actions.map(\.title) == ["Check connection", "Try again"])
        #expect(shown.errorCode == "US14-LO43-AP7-NE2")
        #expect(shown.technicalDetails == nil)
        #expect(presenter.text(of: shown) == shown.message)
    }

    @Test func anAppMessageFromTheUserLayerUsesTheAppsStrings() {
        let strings = PresentationStrings.english.merging([
            "accountBlocked.title": "Account blocked",
            "accountBlocked.message": "Your account is blocked. Write to support if you think this is a mistake.",
        ])
        let shown = ErrorPresenter(strings: strings).present(UserError(.accountBlocked))
        #expect(shown.message == "Your account is blocked. Write to support if you think this is a mistake.")
        #expect(shown.actions.map(\.title) == ["Contact support"])
    }

    @Test(arguments: [
        (HTTPStatusCode.no503ServiceUnavailable, "serviceUnavailable"),
        (.no502BadGateway, "serviceUnavailable"),
        (.no429TooManyRequests, "rateLimited"),
        (.no401Unauthorized, "sessionExpired"),
        (.no426UpgradeRequired, "updateRequired"),
        (.no500InternalServerError, "generic"),
        (.no404NotFound, "generic"),
    ])
    func rulesChooseMessagesForHTTPStatuses(status: HTTPStatusCode, key: String) {
        let error = APIError(.listTasksFailed, cause: HTTPError(status))
        #expect(presenter.present(error).messageKey.rawValue == key)
    }

    @Test(arguments: [
        (HTTPError(.no503ServiceUnavailable) as any Error, "serviceUnavailable"),
        (NetworkError(.timeout), "timedOut"),
        (NetworkError(.cannotConnect), "noConnection"),
        (HTTPError(.no429TooManyRequests), "rateLimited"),
        // Nothing below says more: the client holds back its retries, so wait and try again.
        (HTTPError(.no500InternalServerError), "rateLimited"),
    ])
    func aSpentRetryBudgetShowsWhatFailedBeneathIt(cause: any Error, key: String) {
        // RE4 means the client stopped retrying; the person is told what went wrong, not that
        // they sent too much.
        let error = APIError(.listTasksFailed, cause: RecoveryError(.retryBudgetExhausted, cause: cause))
        #expect(presenter.present(error).messageKey.rawValue == key)
    }

    @Test(arguments: [
        (NetworkErrorCode.cannotConnect, "noConnection"),
        (.cannotResolveHost, "noConnection"),
        (.connectTimeout, "noConnection"),
        (.connectionReset, "noConnection"),
        (.timeout, "timedOut"),
        (.stalled, "timedOut"),
        (.tlsFailure, "insecureConnection"),
        (.cancelled, "cancelled"),
        (.responseTooLarge, "generic"),
        (.protocolError, "generic"),
    ])
    func rulesChooseMessagesForNetworkFailures(code: NetworkErrorCode, key: String) {
        let error = APIError(.getTokenFailed, cause: NetworkError(code))
        #expect(presenter.present(error).messageKey.rawValue == key)
    }

    @Test func rulesReadRecoveryAndBackendLayers() {
        let refresh = APIError(.getTokenFailed, cause: RecoveryError(.refreshFailed))
        #expect(presenter.present(refresh).messageKey == "sessionExpired")
        let captcha = APIError(.getTokenFailed, cause: RecoveryError(.captchaCancelled))
        #expect(presenter.present(captcha).messageKey == "verificationFailed")
        let validation = APIError(
            .listTasksFailed,
            cause: BackendError(.validationFailure, nested: ValidationErrorCode.valueOutOfBounds)
        )
        #expect(presenter.present(validation).messageKey == "invalidInput")
    }

    @Test func aRateLimitersWaitSaysWhenToTryAgainAndWithoutItsTimeIsRateLimited() {
        let timed = APIError(
            .listTasksFailed,
            cause: RecoveryError(
                .rateLimited, cause: HTTPError(.no429TooManyRequests), context: ["retryAfterSeconds": "12"]))
        let shown = presenter.present(timed)
        #expect(shown.messageKey == "rateLimitWait")
        #expect(shown.title == "Too many requests")
        #expect(shown.message == "Too many requests in a short time. Please try again in 12 s.")
        #expect(shown.actions.map(\.kind) == [.retryLater])
        let untimed = APIError(.listTasksFailed, cause: RecoveryError(.rateLimited))
        #expect(presenter.present(untimed).messageKey == "rateLimited")
    }

    @Test func anUnrecoverableFailureGivesTheGenericMessageTheCodeAndOnRequestTheDetails() {
        let decoding = DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: [], debugDescription: "No id."))
        let error = UserError(.generalServer, cause: APIError(.currentWorker, cause: JSONError(decoding: decoding)))
        let shown = presenter.present(error, includeTechnicalDetails: true)
        #expect(!shown.isRecoverable)
        #expect(shown.messageKey == "generic")
        #expect(shown.errorCode == "US4-AP103-JS3-DE3")
        #expect(shown.actions.map(\.kind) == [.retryLater, .contactSupport])
        #expect(
            presenter.text(of: shown) == """
                Something went wrong. Try again a little later. If the error repeats, send its code to support.
                Error code: US4-AP103-JS3-DE3
                Technical details: UserError.generalServer - APIError.currentWorker - JSONError.keyNotFound - DecodingError.keyNotFound
                Build: 2.4.1 (3f9c2ab)
                """
        )
    }

    @Test func anAppRuleComesBeforeTheStandardOnes() {
        let blocked = PresentationRule(UserMessage("accountBlocked", actions: [.contactSupport])) {
            $0.contains(HTTPStatusCode.no403Forbidden)
        }
        let custom = ErrorPresenter(rules: [blocked] + PresentationRule.standard)
        #expect(
            custom.present(APIError(.getTokenFailed, cause: HTTPError(.no403Forbidden))).messageKey == "accountBlocked")
    }

    @Test func aDecodedChainIsPresentedByTheRules() throws {
        let error = APIError(.listTasksFailed, cause: HTTPError(.no503ServiceUnavailable))
        let decoded = try JSONDecoder().decode(ErrorChain.self, from: JSONEncoder().encode(error.chain))
        #expect(presenter.present(decoded) == presenter.present(error))
    }

    // MARK: - What a person sees on Linux

    @Test func localizedDescriptionShowsTheMessageNotTheGenericFoundationText() {
        let recoverable: any Error = APIError(.getTokenFailed, cause: NetworkError(.cannotConnect))
        #expect(
            recoverable.localizedDescription == "No connection to the server. Please check your internet connection.")
        #expect((recoverable as NSError).localizedDescription == recoverable.localizedDescription)

        let unrecoverable: any Error = APIError(.currentWorker, cause: HTTPError(.no500InternalServerError))
        #expect(
            unrecoverable.localizedDescription
                == "Something went wrong. Try again a little later. If the error repeats, send its code to support.\n"
                + "Error code: AP103-HT500"
        )
        #expect(!unrecoverable.localizedDescription.contains("The operation could not be completed"))
    }

    @Test func bridgingToNSErrorKeepsTheDomainAndTheExplicitCode() {
        let error = APIError(.currentWorker, cause: NetworkError(.timeout)) as NSError
        #expect(error.domain == "APIError")
        #expect(error.code == 103)
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.domain == "NetworkError")
        #expect(underlying?.code == 2)
    }

    /// Ten thousand nested layer errors, kept for the whole run: releasing them is not what is tested.
    private static let tenThousandLevels: any Error = {
        var error: any Error = NetworkError(.timeout)
        for _ in 0..<10_000 { error = LogicError(.loginFailed, cause: error) }
        return error
    }()

    @Test func localizedDescriptionOfTenThousandNestedErrorsFitsInASmallStack() throws {
        let error = Self.tenThousandLevels
        let description = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            description.withLock { $0 = error.localizedDescription }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let presenter = ErrorPresenter.standard
        #expect(description.withLock { $0 } == presenter.text(of: presenter.present(error)))
    }

    @Test func bridgingToNSErrorKeepsUnderlyingErrorsOnlyAsDeepAsTheChain() {
        var underlying = (Self.tenThousandLevels as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        var depth = 1
        while let error = underlying {
            #expect(error.domain == "LogicError")
            #expect(error.code == LogicErrorCode.loginFailed.rawValue)
            depth += 1
            underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        #expect(depth == ErrorChain.maximumDepth)
    }

    @Test func bridgingToNSErrorKeepsTheDescriptionOfEveryUnderlyingError() {
        let error = APIError(.getTokenFailed, cause: NetworkError(.cannotConnect, cause: POSIXError(.ECONNREFUSED)))
        let network = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(network?.localizedDescription == NetworkError(.cannotConnect).localizedDescription)
        let posix = network?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(posix?.domain == (POSIXError(.ECONNREFUSED) as NSError).domain)
        #expect(posix?.code == Int(POSIXErrorCode.ECONNREFUSED.rawValue))
    }

    // MARK: - Strings

    @Test func aPartialTranslationFallsBackToEnglishKeyByKey() throws {
        let german = PresentationStrings(
            language: "de",
            table: ["noConnection.message": "Keine Verbindung zum Server. Bitte prüfe deine Internetverbindung."]
        )
        let shown = ErrorPresenter(strings: german).present(talkExample())
        #expect(shown.message == "Keine Verbindung zum Server. Bitte prüfe deine Internetverbindung.")
        #expect(shown.title == "No connection")
    }

    @Test func aTranslationCanBeReadFromAJSONFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rebound-strings-\(UUID()).json")
        try Data(#"{"action.retry": "Nochmal"}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let strings = try PresentationStrings(language: "de", contentsOf: url)
        #expect(strings.string("action.retry") == "Nochmal")
        #expect(strings.string("no.such.key") == "no.such.key")
    }

    @Test func everyStandardMessageHasATitleAMessageAndActionTitlesInEnglish() {
        let messages: [UserMessage] = [
            .noConnection, .timedOut, .insecureConnection, .serviceUnavailable, .rateLimited, .sessionExpired,
            .verificationFailed, .invalidInput, .updateRequired, .cancelled, .generic,
        ]
        let table = PresentationStrings.english.table
        for message in messages {
            #expect(table["\(message.key).title"] != nil, "\(message.key)")
            #expect(table["\(message.key).message"] != nil, "\(message.key)")
            for action in message.actions { #expect(table["action.\(action)"] != nil, "\(action)") }
        }
    }
}
