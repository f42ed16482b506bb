extension MockBackend {
    /// An account that can log in to the mock backend.
    public struct User: Sendable, Hashable {
        /// The name to log in with.
        public var username: String
        /// The password to log in with. A mock, so it is kept in clear.
        public var password: String

        /// Creates an account.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// The accounts a backend has unless configured otherwise: `alice`/`wonderland` and `bob`/`builder`.
        public static let defaults = [
            User(username: "alice", password: "wonderland"),
            User(username: "bob", password: "builder"),
        ]
    }
}
