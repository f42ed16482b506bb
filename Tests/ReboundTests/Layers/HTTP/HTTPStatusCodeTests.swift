import HTTPTypes
import Rebound
import Testing

@Suite struct HTTPStatusCodeTests {
    /// Every registered status, its number and its name: identities that must never change.
    static let registered: [(code: HTTPStatusCode, rawValue: Int, name: String)] = [
        (.no100Continue, 100, "no100Continue"),
        (.no101SwitchingProtocols, 101, "no101SwitchingProtocols"),
        (.no102Processing, 102, "no102Processing"),
        (.no103EarlyHints, 103, "no103EarlyHints"),
        (.no200OK, 200, "no200OK"),
        (.no201Created, 201, "no201Created"),
        (.no202Accepted, 202, "no202Accepted"),
        (.no203NonAuthoritativeInformation, 203, "no203NonAuthoritativeInformation"),
        (.no204NoContent, 204, "no204NoContent"),
        (.no205ResetContent, 205, "no205ResetContent"),
        (.no206PartialContent, 206, "no206PartialContent"),
        (.no207MultiStatus, 207, "no207MultiStatus"),
        (.no208AlreadyReported, 208, "no208AlreadyReported"),
        (.no226IMUsed, 226, "no226IMUsed"),
        (.no300MultipleChoices, 300, "no300MultipleChoices"),
        (.no301MovedPermanently, 301, "no301MovedPermanently"),
        (.no302Found, 302, "no302Found"),
        (.no303SeeOther, 303, "no303SeeOther"),
        (.no304NotModified, 304, "no304NotModified"),
        (.no305UseProxy, 305, "no305UseProxy"),
        (.no307TemporaryRedirect, 307, "no307TemporaryRedirect"),
        (.no308PermanentRedirect, 308, "no308PermanentRedirect"),
        (.no400BadRequest, 400, "no400BadRequest"),
        (.no401Unauthorized, 401, "no401Unauthorized"),
        (.no402PaymentRequired, 402, "no402PaymentRequired"),
        (.no403Forbidden, 403, "no403Forbidden"),
        (.no404NotFound, 404, "no404NotFound"),
        (.no405MethodNotAllowed, 405, "no405MethodNotAllowed"),
        (.no406NotAcceptable, 406, "no406NotAcceptable"),
        (.no407ProxyAuthenticationRequired, 407, "no407ProxyAuthenticationRequired"),
        (.no408RequestTimeout, 408, "no408RequestTimeout"),
        (.no409Conflict, 409, "no409Conflict"),
        (.no410Gone, 410, "no410Gone"),
        (.no411LengthRequired, 411, "no411LengthRequired"),
        (.no412PreconditionFailed, 412, "no412PreconditionFailed"),
        (.no413ContentTooLarge, 413, "no413ContentTooLarge"),
        (.no414URITooLong, 414, "no414URITooLong"),
        (.no415UnsupportedMediaType, 415, "no415UnsupportedMediaType"),
        (.no416RangeNotSatisfiable, 416, "no416RangeNotSatisfiable"),
        (.no417ExpectationFailed, 417, "no417ExpectationFailed"),
        (.no418ImATeapot, 418, "no418ImATeapot"),
        (.no421MisdirectedRequest, 421, "no421MisdirectedRequest"),
        (.no422UnprocessableContent, 422, "no422UnprocessableContent"),
        (.no423Locked, 423, "no423Locked"),
        (.no424FailedDependency, 424, "no424FailedDependency"),
        (.no425TooEarly, 425, "no425TooEarly"),
        (.no426UpgradeRequired, 426, "no426UpgradeRequired"),
        (.no428PreconditionRequired, 428, "no428PreconditionRequired"),
        (.no429TooManyRequests, 429, "no429TooManyRequests"),
        (.no431RequestHeaderFieldsTooLarge, 431, "no431RequestHeaderFieldsTooLarge"),
        (.no451UnavailableForLegalReasons, 451, "no451UnavailableForLegalReasons"),
        (.no500InternalServerError, 500, "no500InternalServerError"),
        (.no501NotImplemented, 501, "no501NotImplemented"),
        (.no502BadGateway, 502, "no502BadGateway"),
        (.no503ServiceUnavailable, 503, "no503ServiceUnavailable"),
        (.no504GatewayTimeout, 504, "no504GatewayTimeout"),
        (.no505HTTPVersionNotSupported, 505, "no505HTTPVersionNotSupported"),
        (.no506VariantAlsoNegotiates, 506, "no506VariantAlsoNegotiates"),
        (.no507InsufficientStorage, 507, "no507InsufficientStorage"),
        (.no508LoopDetected, 508, "no508LoopDetected"),
        (.no510NotExtended, 510, "no510NotExtended"),
        (.no511NetworkAuthenticationRequired, 511, "no511NetworkAuthenticationRequired"),
    ]

    @Test func everyRegisteredStatusKeepsItsNumberAndName() {
        for (code, rawValue, name) in Self.registered {
            #expect(code.rawValue == rawValue, "\(name)")
            #expect(code.name == name, "\(rawValue)")
            #expect(HTTPStatusCode(rawValue: rawValue) == code, "\(name)")
        }
    }

    @Test func theTableCoversEveryStatusWithARegisteredPhrase() {
        let named = HTTPStatusCode.validRange.compactMap(HTTPStatusCode.init(rawValue:))
            .filter { $0.standardReasonPhrase != nil }
        #expect(named.map(\.rawValue) == Self.registered.map(\.rawValue))
        #expect(Self.registered.count == 62)
    }

    @Test func aStatusWithoutARegisteredPhraseIsNamedByItsNumberAlone() {
        #expect(HTTPStatusCode(rawValue: 499)?.name == "no499")
        #expect(HTTPStatusCode(rawValue: 306)?.name == "no306")
        #expect(HTTPStatusCode(rawValue: 104)?.name == "no104")
        #expect(HTTPStatusCode(rawValue: 999)?.name == "no999")
        #expect(HTTPStatusCode(rawValue: 599)?.standardReasonPhrase == nil)
    }

    @Test func numbersOutsideTheRangeOfHTTPTypesHaveNoCode() {
        #expect(HTTPStatusCode(rawValue: 1000) == nil)
        #expect(HTTPStatusCode(rawValue: -1) == nil)
        #expect(HTTPStatusCode(rawValue: 0)?.rawValue == 0)
    }

    @Test func aResponseStatusConvertsByItsNumberWhateverItsPhrase() {
        #expect(HTTPStatusCode(.tooManyRequests) == .no429TooManyRequests)
        #expect(HTTPStatusCode(HTTPResponse.Status(code: 404, reasonPhrase: "Nope")) == .no404NotFound)
        #expect(HTTPStatusCode(HTTPResponse.Status(code: 599)).name == "no599")
    }

    @Test func clientAndServerErrorsAreTheirHundreds() {
        let client = HTTPStatusCode.validRange.filter { HTTPStatusCode(rawValue: $0)!.isClientError }
        let server = HTTPStatusCode.validRange.filter { HTTPStatusCode(rawValue: $0)!.isServerError }
        #expect(client == Array(400...499))
        #expect(server == Array(500...599))
    }

    @Test func theShortAndFullChainUseTheStatusAndItsName() {
        let chain = ErrorChain(HTTPError(.no503ServiceUnavailable))
        #expect(chain.short == "HT503")
        #expect(chain.full == "HTTPError.no503ServiceUnavailable")
        #expect(ErrorChain(HTTPError(HTTPStatusCode(rawValue: 499)!)).full == "HTTPError.no499")
    }
}
