import Foundation
import HTTPTypes
import Rebound
import Testing

private enum InteractorErrorCode: Int, ErrorCode {
    static let domain = "InteractorError"
    static let shortName = "IN"
    case getMapPins = 500
}

private enum TolokaAPIErrorCode: Int, ErrorCode {
    static let domain = "TolokaAPIError"
    static let shortName = "TA"
    case taskSuites = 202
}

/// Chains built from the built-in layers render as the talk shows them.
@Suite struct LayerChainTests {
    @Test func theTalksMonitoringChainRendersWithItsNestedValidationCode() {
        let http = HTTPError(.no400BadRequest)
        let backend = BackendError(
            .validationFailure, nested: NestedCode(ValidationErrorCode.valueOutOfBounds), cause: http)
        let api = LayerError(TolokaAPIErrorCode.taskSuites, cause: backend)
        let chain = ErrorChain(LayerError(InteractorErrorCode.getMapPins, cause: api))
        #expect(chain.short == "IN500-TA202-BE30-HT400")
        #expect(
            chain.full
                == "InteractorError.getMapPins - TolokaAPIError.taskSuites"
                + " - BackendError.validationFailure(ValidationError.valueOutOfBounds) - HTTPError.no400BadRequest"
        )
        #expect(chain.contains(ValidationErrorCode.valueOutOfBounds))
        #expect(!chain.contains(ValidationErrorCode.tooLong))
    }

    @Test func aParsedBackendErrorChainsDownToTheStatus() throws {
        let body = Data(#"{"code": "validation_failure", "reason": "value_out_of_bounds"}"#.utf8)
        let error = try #require(JSONBackendErrorParser().parse(HTTPResponse(status: .badRequest), body: body))
        #expect(ErrorChain(error).short == "BE30-HT400")
        #expect(
            ErrorChain(error).full
                == "BackendError.validationFailure(ValidationError.valueOutOfBounds) - HTTPError.no400BadRequest"
        )
    }

    @Test func recoveryWrapsTheLastFailure() {
        let last = HTTPError(.no503ServiceUnavailable, cause: nil)
        let chain = ErrorChain(RecoveryError(.retriesExhausted, cause: last))
        #expect(chain.short == "RE1-HT503")
        #expect(chain.full == "RecoveryError.retriesExhausted - HTTPError.no503ServiceUnavailable")
    }

    @Test func aJSONErrorKeepsTheDecodingErrorBelowIt() {
        let decoding = DecodingError.keyNotFound(
            CodingKeyForTests("price"),
            DecodingError.Context(codingPath: [CodingKeyForTests("tasks")], debugDescription: "missing")
        )
        let chain = ErrorChain(JSONError(decoding: decoding))
        #expect(chain.short == "JS3-DE3")
        #expect(chain.full == "JSONError.keyNotFound - DecodingError.keyNotFound")
    }

    @Test func theNestedCodeIsInTheFullChainButNotTheShortOne() {
        let error = BackendError(.validationFailure, nested: NestedCode(ValidationErrorCode.tooLong))
        #expect(error.chain.short == "BE30")
        #expect(error.chain.full == "BackendError.validationFailure(ValidationError.tooLong)")
        #expect(error.description == "BackendError.validationFailure(ValidationError.tooLong)")
    }
}

/// A coding key for building `DecodingError`s by hand.
private struct CodingKeyForTests: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
