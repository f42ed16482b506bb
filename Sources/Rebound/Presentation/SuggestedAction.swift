/// Something a person can do about a failure, offered next to its message.
public struct SuggestedAction: Hashable, Sendable {
    /// What the action does; the app decides how (a button, a link, a hint in a terminal).
    public struct Kind: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public init(stringLiteral value: String) {
            self.init(rawValue: value)
        }

        public var description: String { rawValue }

        /// Try the same thing again now.
        public static let retry: Kind = "retry"
        /// Try again after a while.
        public static let retryLater: Kind = "retryLater"
        /// Check the network connection (open the settings).
        public static let checkConnection: Kind = "checkConnection"
        /// Sign in again.
        public static let signInAgain: Kind = "signInAgain"
        /// Correct what was entered.
        public static let correctInput: Kind = "correctInput"
        /// Write to support, quoting the error code.
        public static let contactSupport: Kind = "contactSupport"
        /// Install a newer version of the app.
        public static let updateApp: Kind = "updateApp"
    }

    /// What the action does.
    public var kind: Kind
    /// Its label, in the presentation's language.
    public var title: String

    public init(kind: Kind, title: String) {
        self.kind = kind
        self.title = title
    }
}
