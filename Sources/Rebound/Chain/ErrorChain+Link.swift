#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ErrorChain {
    /// One error of a chain, as plain values.
    public struct Link: Hashable, Sendable, Codable {
        /// One pair of debug context, its value already redacted if it is sensitive.
        ///
        /// The value of a sensitive entry is the redaction marker however the entry was made:
        /// created, decoded (from a report file another program wrote, say) or changed later, so
        /// that no rendering of a chain can show a secret.
        public struct ContextEntry: Hashable, Sendable, Codable {
            public var key: String
            public var value: String {
                didSet { redactIfSensitive() }
            }
            public var isSensitive: Bool {
                didSet { redactIfSensitive() }
            }

            init(key: String, value: String, isSensitive: Bool) {
                self.key = key
                self.value = isSensitive ? ErrorContext.Value.redactionMarker : value
                self.isSensitive = isSensitive
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                self.init(
                    key: try container.decode(String.self, forKey: .key),
                    value: try container.decode(String.self, forKey: .value),
                    isSensitive: try container.decode(Bool.self, forKey: .isSensitive)
                )
            }

            private mutating func redactIfSensitive() {
                if isSensitive && value != ErrorContext.Value.redactionMarker {
                    value = ErrorContext.Value.redactionMarker
                }
            }
        }

        /// The layer's type name, such as `"NetworkError"`.
        public var domain: String
        /// The layer's two-letter short name, such as `"NE"`.
        public var shortName: String
        /// The stable code number.
        public var code: Int
        /// The code's name, such as `"timeout"`.
        public var codeName: String
        /// A detail of the code in another code set.
        public var nested: NestedCode?
        /// Why it failed, in words for developers.
        public var reason: String?
        /// Debug context, sensitive values redacted.
        public var context: [ContextEntry]
        /// The file (`#fileID`) where the error was created, when known.
        public var file: String?
        /// The line where the error was created, when known.
        public var line: Int?

        init(
            domain: String,
            shortName: String,
            code: Int,
            codeName: String,
            nested: NestedCode? = nil,
            reason: String? = nil,
            context: [ContextEntry] = [],
            file: String? = nil,
            line: Int? = nil
        ) {
            self.domain = domain
            self.shortName = shortName
            self.code = code
            self.codeName = codeName
            self.nested = nested
            self.reason = reason
            self.context = context
            self.file = file
            self.line = line
        }

        /// The link for one error, without its causes.
        package init(_ error: any Error) {
            guard let layered = error as? any LayeredError else {
                self.init(foreign: error)
                return
            }
            self.init(
                domain: layered.domain,
                shortName: layered.shortName,
                code: layered.codeValue,
                codeName: layered.codeName,
                nested: layered.nested,
                reason: layered.reason,
                context: layered.context.entries.map {
                    ContextEntry(key: $0.key, value: $0.value.revealed, isSensitive: $0.value.isSensitive)
                },
                file: layered.location.fileID,
                line: layered.location.line
            )
        }

        /// `NE2`.
        public var short: String { "\(shortName)\(code)" }

        /// `NetworkError.timeout`, or `BackendError.validationFailure(ValidationError.valueOutOfBounds)`.
        public var full: String {
            guard let nested else { return "\(domain).\(codeName)" }
            return "\(domain).\(codeName)(\(nested))"
        }

        /// Whether this link has `code`, as its own code or as its nested code.
        public func matches<Code: ErrorCode>(_ code: Code) -> Bool {
            (domain == Code.domain && self.code == code.rawValue) || nested?.matches(code) == true
        }
    }
}
