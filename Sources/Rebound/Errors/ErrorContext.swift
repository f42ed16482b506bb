/// Debug context attached to an error: ordered key/value pairs, some of them sensitive.
///
/// A sensitive value (a token, a cookie, a user's e-mail address) is kept for code that asks for it
/// explicitly with ``ErrorContext/Value/revealed``, and is redacted in every rendering: descriptions,
/// chains, JSON, logs and reports.
///
/// ```swift
/// var context: ErrorContext = ["endpoint": "/v1/login"]
/// context["refreshToken"] = .sensitive(token)
/// ```
public struct ErrorContext: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// One value of the context.
    public struct Value: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
        CustomStringConvertible, CustomReflectable
    {
        /// The text that replaces a sensitive value in every rendering.
        package static let redactionMarker = "<redacted>"

        /// The value itself; read it only where the secret is really needed.
        public var revealed: String
        /// Whether the value is redacted in renderings.
        public var isSensitive: Bool

        public init(_ value: String, sensitive: Bool = false) {
            self.revealed = value
            self.isSensitive = sensitive
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            self.init(String(stringInterpolation: stringInterpolation))
        }

        /// A value that is redacted in every rendering.
        public static func sensitive(_ value: String) -> Value {
            Value(value, sensitive: true)
        }

        /// The value as it may be shown: the redaction marker if it is sensitive.
        public var description: String { isSensitive ? Self.redactionMarker : revealed }

        /// What `dump` and debuggers show: the value as it may be shown, never a sensitive one
        /// (the stored ``revealed`` would otherwise be listed as it is).
        public var customMirror: Mirror {
            Mirror(self, children: ["value": description, "isSensitive": isSensitive], displayStyle: .struct)
        }
    }

    /// The pairs in the order they were added.
    public private(set) var entries: [(key: String, value: Value)]

    public init() {
        entries = []
    }

    public init(dictionaryLiteral elements: (String, Value)...) {
        entries = []
        for (key, value) in elements { self[key] = value }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The value for `key`; setting replaces it in place or appends it, and setting `nil` removes it.
    public subscript(key: String) -> Value? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The pairs as they may be shown, sensitive values redacted.
    public var redacted: [(key: String, value: String)] {
        entries.map { ($0.key, $0.value.description) }
    }

    public static func == (lhs: ErrorContext, rhs: ErrorContext) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}
