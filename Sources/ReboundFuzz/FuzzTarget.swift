/// A parser of untrusted input and the contract its fuzz target checks on every input.
///
/// Each target takes the fuzzer's bytes, feeds them to the parser, and returns what broke the
/// parser's contract: nothing for an input the parser handled as it promises. A crash or a hang
/// in the parser is found by the fuzzer itself; a broken contract is made a crash by the entry
/// point (``FuzzEntry``), so that libFuzzer keeps the input.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `RetryAfter.parse`, both forms.
    case retryAfter = "retry-after"
    /// The transport's `ResponseReceiver` and `ResponseHeadParser`.
    case responseReceiver = "response-receiver"
    /// `JSONBackendErrorParser`.
    case backendError = "backend-error"
    /// `UntrustedText`'s screening of server text.
    case untrustedText = "untrusted-text"
    /// `JSONLinesReportReader`, streaming (`ReportLineScanner`) and decoding.
    case reportReader = "report-reader"
    /// `ErrorChain` from JSON.
    case errorChain = "error-chain"
    /// `@Resilient` decoding of any JSON into a model with every wrapper.
    case resilientDecoding = "resilient-decoding"
    /// The `rebound` tool's parsing and validation of its arguments and `COLUMNS`.
    case cliArguments = "cli-arguments"
    /// `CurlErrorText`'s screening of libcurl's error text for a proxy's credentials.
    case curlErrorText = "curl-error-text"

    /// What `input` showed to break the contract; empty when nothing did.
    func violations(_ input: [UInt8]) -> [String] {
        switch self {
        case .retryAfter: RetryAfterFuzzing.violations(input)
        case .responseReceiver: ResponseReceiverFuzzing.violations(input)
        case .backendError: BackendErrorFuzzing.violations(input)
        case .untrustedText: UntrustedTextFuzzing.violations(input)
        case .reportReader: ReportReaderFuzzing.violations(input)
        case .errorChain: ErrorChainFuzzing.violations(input)
        case .resilientDecoding: ResilientDecodingFuzzing.violations(input)
        case .cliArguments: CLIArgumentsFuzzing.violations(input)
        case .curlErrorText: CurlErrorTextFuzzing.violations(input)
        }
    }
}
