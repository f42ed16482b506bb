import Foundation
import Testing

@testable import Rebound

@Suite struct ErrorChainTests {
    // MARK: - Stable renderings

    @Test func theTalksChainRendersExactly() {
        let chain = talkExample().chain
        #expect(chain.short == "US14-LO43-AP7-NE2")
        #expect(
            chain.full
                == "UserError.connectionIssue - LogicError.loginFailed - APIError.getTokenFailed - NetworkError.timeout"
        )
        #expect(chain.links.count == 4)
        #expect(!chain.isTruncated)
    }

    @Test func aNestedCodeRendersInsideItsLinkInTheFullFormOnly() {
        let http = HTTPError(HTTPStatusCode.no400BadRequest)
        let backend = BackendError(.validationFailure, nested: ValidationErrorCode.valueOutOfBounds, cause: http)
        let chain = APIError(.listTasksFailed, cause: backend).chain
        #expect(chain.short == "AP8-BE30-HT400")
        #expect(
            chain.full
                == "APIError.listTasksFailed - BackendError.validationFailure(ValidationError.valueOutOfBounds)"
                + " - HTTPError.no400BadRequest"
        )
    }

    @Test func foreignErrorsAreLeavesWithFixedRenderings() {
        let decoding = DecodingError.keyNotFound(
            AnyKey("price"),
            .init(codingPath: [AnyKey("tasks"), AnyKey(index: 3)], debugDescription: "No value for price.")
        )
        let cases: [(any Error, String, String)] = [
            (decoding, "DE3", "DecodingError.keyNotFound"),
            (POSIXError(.ECONNRESET), "PX104", "POSIXError.ECONNRESET"),
            (CancellationError(), "CA1", "CancellationError.cancelled"),
            (ThirdPartyError.broke, "XX0", "ReboundTests.ThirdPartyError.broke"),
            (ThirdPartyError.failed(code: 9), "XX0", "ReboundTests.ThirdPartyError.failed"),
            (NSError(domain: "com.example.sdk", code: 12), "NS12", "com.example.sdk.12"),
        ]
        for (foreign, short, full) in cases {
            let chain = LogicError(.loginFailed, cause: foreign).chain
            #expect(chain.short == "LO43-\(short)")
            #expect(chain.full == "LogicError.loginFailed - \(full)")
        }
        #expect(ErrorChain(decoding).root?.context.first?.value == "tasks[3]")
    }

    @Test func aForeignEnumsOwnDescriptionIsNeverItsCodeName() {
        // A description may carry data (a user, a time) and change from one run to the next; the
        // chain is the failure's identity, so it takes the type alone, and the reason the text,
        // screened.
        let first = ErrorChain(DescribedFailure.failed(user: "alice@example.com", at: "12:03"))
        let second = ErrorChain(DescribedFailure.failed(user: "bob@example.com", at: "12:04"))
        let bare = ErrorChain(DescribedFailure.unavailable)
        #expect(first.full == "ReboundTests.DescribedFailure.failed")
        #expect(first.full == second.full)
        #expect(bare.full == "ReboundTests.DescribedFailure.error")
        #expect(bare.root?.reason == "Unavailable until 12:05")
        #expect(first.root?.reason?.contains("alice@example.com") == false)
    }

    @Test func serverTextQuotedByAForeignErrorIsScreenedLikeTheServersOwn() throws {
        let corrupted = DecodingError.dataCorrupted(
            .init(
                codingPath: [AnyKey("currency")],
                debugDescription: "Cannot initialize Currency from invalid String value alice@example.com"))
        let chain = ErrorChain(corrupted)
        let encoded = String(decoding: try JSONEncoder().encode(chain), as: UTF8.self)
        for text in [chain.root?.reason ?? "", chain.debugDescription, encoded] {
            #expect(!text.contains("alice@example.com"), "\(text)")
        }
        #expect(chain.root?.reason?.hasPrefix("Cannot initialize Currency from invalid String value") == true)
    }

    @Test func aPrivateForeignTypeRendersWithoutItsAddress() {
        let chain = ErrorChain(PrivateFailure.oops)
        #expect(chain.full == "ReboundTests.PrivateFailure.oops")
    }

    @Test func theSameFailureRendersTheSameEveryTime() {
        #expect(talkExample().chain == talkExample().chain)
        #expect(talkExample().chain.short == talkExample(token: "other").chain.short)
    }

    @Test func anOverlyDeepChainIsCutAndSaysSo() {
        var error: any Error = NetworkError(.timeout)
        for _ in 0..<100 { error = LogicError(.loginFailed, cause: error) }
        let chain = ErrorChain(error)
        #expect(chain.links.count == ErrorChain.maximumDepth)
        #expect(chain.isTruncated)
        #expect(chain.debugDescription.hasSuffix("… deeper causes left out"))
    }

    // MARK: - Queries

    @Test func queriesFindCodesLayersAndTheRootCause() throws {
        let error: any Error = talkExample()
        #expect(error.chainContains(NetworkErrorCode.timeout))
        #expect(error.chainContains(APIErrorCode.getTokenFailed))
        #expect(!error.chainContains(NetworkErrorCode.stalled))
        #expect(!error.chainContains(APIErrorCode.listTasksFailed))
        let api = try #require(error.firstError(in: APIErrorCode.self))
        #expect(api.code == .getTokenFailed)
        #expect(api.context["endpoint"]?.revealed == "/v1/token")
        #expect((error.rootCause as? NetworkError)?.code == .timeout)
        #expect(error.causalChain.count == 4)
        #expect(error.firstError(in: HTTPStatusCode.self) == nil)
    }

    @Test func queriesSeeNestedCodesAndForeignErrors() {
        let backend = BackendError(
            .validationFailure, nested: ValidationErrorCode.valueOutOfBounds, cause: POSIXError(.EPIPE))
        let error: any Error = APIError(.listTasksFailed, cause: backend)
        #expect(error.chainContains(ValidationErrorCode.valueOutOfBounds))
        #expect(error.chain.contains(ValidationErrorCode.valueOutOfBounds))
        #expect(error.firstError(as: POSIXError.self)?.code == .EPIPE)
        #expect(error.chain.firstLink(in: BackendErrorCode.self)?.code == 30)
    }

    @Test func anErrorThatWrapsNothingIsItsOwnRoot() {
        let error: any Error = NetworkError(.cancelled)
        #expect((error.rootCause as? NetworkError)?.code == .cancelled)
        #expect(ErrorChain(error).short == "NE14")
    }

    // MARK: - JSON

    @Test func aDecodedChainKeepsToTheMaximumDepth() throws {
        // A report line of a megabyte can carry thousands of links; read back, it is cut as a
        // chain made from an error would be.
        let deep = ErrorChain(links: Array(repeating: ErrorChain(NetworkError(.timeout)).links[0], count: 1_000))
        let decoded = try JSONDecoder().decode(ErrorChain.self, from: JSONEncoder().encode(deep))
        #expect(decoded.links.count == ErrorChain.maximumDepth)
        #expect(decoded.isTruncated)
        let chain = talkExample().chain
        #expect(try JSONDecoder().decode(ErrorChain.self, from: JSONEncoder().encode(chain)).isTruncated == false)
    }

    @Test func aChainEncodesEveryLinkAndDecodesBackEqual() throws {
        let chain = talkExample().chain
        let data = try JSONEncoder().encode(chain)
        #expect(try JSONDecoder().decode(ErrorChain.self, from: data) == chain)

        let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let links = try #require(object["links"] as? [[String: Any]])
        let api = links[2]
        #expect(api["domain"] as? String == "APIError")
        #expect(api["shortName"] as? String == "AP")
        #expect(api["code"] as? Int == 7)
        #expect(api["codeName"] as? String == "getTokenFailed")
        #expect(api["reason"] as? String == "token request failed")
        #expect(api["file"] as? String == "ReboundTests/SampleLayers.swift")
        #expect(api["line"] as? Int != nil)
        let context = try #require(api["context"] as? [[String: Any]])
        #expect(context.map { $0["key"] as? String } == ["endpoint", "refreshToken"])
        #expect(context[1]["value"] as? String == "<redacted>")
        #expect(context[1]["isSensitive"] as? Bool == true)
    }

    // MARK: - Redaction and the debug rendering

    @Test func secretsAppearInNoRendering() throws {
        let secret = "s3cr3t-token-\(UUID().uuidString)"
        let error = talkExample(token: secret)
        let renderings = [
            error.chain.short, error.chain.full, error.chain.debugDescription, error.description,
            String(decoding: try JSONEncoder().encode(error.chain), as: UTF8.self),
            error.localizedDescription, (error as NSError).localizedDescription,
            String(describing: ErrorPresenter.standard.present(error, includeTechnicalDetails: true)),
        ]
        for rendering in renderings { #expect(!rendering.contains(secret), "\(rendering)") }
        // The secret is still there for code that asks for it explicitly.
        #expect(error.firstError(in: APIErrorCode.self)?.context["refreshToken"]?.revealed == secret)
    }

    @Test func theDebugRenderingHasOneIndentedLinePerLink() {
        let lines = talkExample().chain.debugDescription.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("UserError.connectionIssue [US14] at ReboundTests/SampleLayers.swift:"))
        #expect(lines[1].hasPrefix("  LogicError.loginFailed [LO43] at "))
        #expect(
            lines[2].hasPrefix(
                "    APIError.getTokenFailed [AP7] — token request failed {endpoint: /v1/token, refreshToken: <redacted>} at "
            )
        )
        #expect(
            lines[3].hasPrefix(
                "      NetworkError.timeout [NE2] — The request took longer than 60 seconds. {curlCode: 28} at "
            )
        )
    }

    @Test func debugRenderingsUseTheDebugDescriptionAndOthersTheShortChain() {
        let chain = talkExample().chain
        #expect((chain as Any) is any CustomDebugStringConvertible)
        #expect(String(reflecting: chain) == chain.debugDescription)
        var printed = ""
        debugPrint(chain, terminator: "", to: &printed)
        #expect(printed == chain.debugDescription)
        // Descriptions and interpolation stay the short chain.
        #expect(String(describing: chain) == "US14-LO43-AP7-NE2")
        #expect("\(chain)" == "US14-LO43-AP7-NE2")
    }

    @Test func aSensitiveValueInADecodedOrEditedChainIsNeverRendered() throws {
        let secret = "s3cr3t-token-\(UUID().uuidString)"
        // As a report file written by another program, or edited by hand, could have it.
        let json = #"""
            {"links":[{"domain":"APIError","shortName":"AP","code":7,"codeName":"getTokenFailed",
            "context":[{"key":"refreshToken","value":"\#(secret)","isSensitive":true}]}],"isTruncated":false}
            """#
        let decoded = try JSONDecoder().decode(ErrorChain.self, from: Data(json.utf8))
        #expect(decoded.links.first?.context.first?.value == ErrorContext.Value.redactionMarker)

        var edited = talkExample().chain
        let index = try #require(edited.links[2].context.firstIndex { $0.isSensitive })
        edited.links[2].context[index].value = secret

        for chain in [decoded, edited] {
            for rendering in [chain.debugDescription, String(reflecting: chain)] {
                #expect(!rendering.contains(secret), "\(rendering)")
                #expect(rendering.contains("refreshToken: <redacted>"), "\(rendering)")
            }
        }
    }

    // MARK: - Wrapping with typed throws

    @Test func wrappingIsOneExpressionAndKeepsTheCause() async {
        func token() async throws(APIError) -> String {
            try await APIError.wrap(.getTokenFailed, context: ["endpoint": "/v1/token"]) {
                () async throws(NetworkError) -> String in
                throw NetworkError(.cannotConnect)
            }
        }
        func login() async throws(LogicError) -> String {
            try await LogicError.wrap(.loginFailed) { try await token() }
        }
        let error = await #expect(throws: LogicError.self) { try await login() }
        #expect(error?.chain.short == "LO43-AP7-NE6")
        #expect(error?.location.fileID == "ReboundTests/ErrorChainTests.swift")
    }

    @Test func synchronousWrappingAndResultWrappingWorkAlike() {
        let thrown = #expect(throws: LogicError.self) {
            try LogicError.wrap(.loadTasksFailed) { () throws(NetworkError) in throw NetworkError(.stalled) }
        }
        #expect(thrown?.chain.short == "LO44-NE4")
        let result: Result<Int, NetworkError> = .failure(NetworkError(.timeout))
        #expect(result.wrapError(APIErrorCode.currentWorker).chain?.short == "AP103-NE2")
    }
}

private enum PrivateFailure: Error { case oops }

/// A coding key for building decoding errors by hand.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(index: intValue) }
}

extension Result {
    fileprivate var chain: ErrorChain? {
        if case .failure(let error) = self { return ErrorChain(error) }
        return nil
    }
}

@Suite struct ShortChainTests {
    @Test func theFastShortFormEqualsTheChainsShortForm() {
        let errors: [any Error] = [
            talkExample(),
            LogicError(.loginFailed, cause: POSIXError(.ECONNRESET)),
            APIError(.listTasksFailed, cause: BackendError(.validationFailure, nested: ValidationErrorCode.tooLong)),
            ThirdPartyError.broke,
        ]
        for error in errors { #expect(error.shortChain == error.chain.short) }
    }
}

/// A foreign error whose description carries data.
enum DescribedFailure: Error, CustomStringConvertible {
    case failed(user: String, at: String)
    case unavailable

    var description: String {
        switch self {
        case .failed(let user, let time): "Failed for user \(user) at \(time)"
        case .unavailable: "Unavailable until 12:05"
        }
    }
}
