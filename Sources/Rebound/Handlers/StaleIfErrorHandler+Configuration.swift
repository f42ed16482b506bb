public import HTTPTypes

extension StaleIfErrorHandler {
    /// Which failures an earlier answer may stand in for, and how much the handler keeps.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``maximumEntries`` | 256 answers | the lists and details a person moved through recently, for a few people on a shared device; one answer per URL and scope |
    /// | ``maximumBytes`` | 8 MiB | small next to an app's memory, and room for hundreds of typical JSON answers of a few KiB |
    /// | ``maximumAnswerBytes`` | 1 MiB | a larger answer (an export, a long history) would push out many small ones: it is fetched again instead |
    /// | ``failureStatuses`` | 500–504 | the service failed, not the request; a 4xx says the request or its credential is wrong, which an earlier answer would hide |
    /// | ``failureNetworkFailures`` | timeout, connectTimeout, stalled, cannotConnect, connectionReset, incompleteResponse | the service did not answer (the circuit breaker's failures); a TLS failure or a bad URL is not an outage and must be seen |
    /// | ``servesWhileCircuitOpen`` | yes | ``CircuitBreakerHandler`` opens only on those failures; answering from earlier while it refuses is what it is for |
    /// | ``credentialFields`` | `Authorization`, `Proxy-Authorization`, `Cookie` | a request carrying one gets one person's answer: without a scope it is never kept |
    ///
    /// The failure is read from the call's whole chain: a `RecoveryError` over a 503
    /// (`RE1-HT503`, retries exhausted; `RE2`, the deadline) counts as the 503. Out-of-range
    /// values are brought into range rather than refused: at least one entry, and no answer
    /// larger than the whole store.
    public struct Configuration: Sendable, Hashable {
        /// The most answers kept; the least recently stored or given is forgotten first.
        public var maximumEntries: Int
        /// The most bytes the answers take (body, header fields and URL of each), together.
        public var maximumBytes: Int
        /// The largest body kept; a larger answer is not kept (and the one before it is forgotten).
        public var maximumAnswerBytes: Int
        /// The statuses of a failure an earlier answer may stand in for.
        public var failureStatuses: Set<Int>
        /// The network failures an earlier answer may stand in for.
        public var failureNetworkFailures: Set<NetworkErrorCode>
        /// Whether an earlier answer stands in for ``RecoveryErrorCode/circuitOpen``.
        public var servesWhileCircuitOpen: Bool
        /// The header fields that make a request one person's: answers to requests with any of
        /// them are kept only in a scope.
        public var credentialFields: Set<HTTPField.Name>

        public init(
            maximumEntries: Int = 256,
            maximumBytes: Int = 8 * 1024 * 1024,
            maximumAnswerBytes: Int = 1024 * 1024,
            failureStatuses: Set<Int> = [500, 501, 502, 503, 504],
            failureNetworkFailures: Set<NetworkErrorCode> = [
                .timeout, .connectTimeout, .stalled, .cannotConnect, .connectionReset, .incompleteResponse,
            ],
            servesWhileCircuitOpen: Bool = true,
            credentialFields: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
        ) {
            self.maximumEntries = max(1, maximumEntries)
            self.maximumBytes = max(0, maximumBytes)
            self.maximumAnswerBytes = min(max(0, maximumAnswerBytes), self.maximumBytes)
            self.failureStatuses = failureStatuses
            self.failureNetworkFailures = failureNetworkFailures
            self.servesWhileCircuitOpen = servesWhileCircuitOpen
            self.credentialFields = credentialFields
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()

        /// Whether an earlier answer may stand in for `failure`: the outermost status in its
        /// chain is one of ``failureStatuses``, or, without a status, its outermost network
        /// failure is one of ``failureNetworkFailures``, or it is a refusal of an open circuit.
        func servesStale(for failure: any Error) -> Bool {
            if let status = failure.firstError(in: HTTPStatusCode.self) {
                return failureStatuses.contains(status.code.rawValue)
            }
            if let network = failure.firstError(in: NetworkErrorCode.self) {
                return failureNetworkFailures.contains(network.code)
            }
            return servesWhileCircuitOpen && failure.chainContains(RecoveryErrorCode.circuitOpen)
        }
    }
}
