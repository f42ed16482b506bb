extension LoopbackServer {
    /// How much the server takes from its clients before it refuses them.
    ///
    /// The server runs inside a test process, so a runaway or hostile client (an endless body, an
    /// endless pipeline, thousands of sockets that never send a request) must not exhaust the process's
    /// memory or file descriptors. The defaults are far above what a test of an HTTP client needs.
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted, in bytes.
        ///
        /// A request that declares a longer `Content-Length` gets `413 Content Too Large` at once (no
        /// `100 Continue`), and a chunked body that grows past it gets `413` as soon as it does; either
        /// way the connection closes after the `413`. The default, 8 MiB, is far above any request a
        /// test sends, while the bodies a server keeps stay small next to the process's memory.
        public var maxRequestBodySize: Int

        /// The most complete requests a connection holds while it answers an earlier one.
        ///
        /// Beyond it the server stops reading from the connection until a response completes, so a
        /// client that pipelines without end waits instead of filling memory. The default, 16, is more
        /// than any HTTP client pipelines.
        public var maxQueuedRequests: Int

        /// Limits with the defaults given for each property.
        public init(maxRequestBodySize: Int = 8 * 1024 * 1024, maxQueuedRequests: Int = 16) {
            self.maxRequestBodySize = maxRequestBodySize
            self.maxQueuedRequests = maxQueuedRequests
        }

        /// The defaults given for each property.
        public static let `default` = Limits()

        /// Throws if a limit cannot be honoured.
        func validate() throws(ConfigurationError) {
            guard maxRequestBodySize >= 0 else {
                throw ConfigurationError(description: "maxRequestBodySize \(maxRequestBodySize) is negative")
            }
            guard maxQueuedRequests >= 1 else {
                throw ConfigurationError(description: "maxQueuedRequests \(maxQueuedRequests) is less than 1")
            }
        }
    }
}
