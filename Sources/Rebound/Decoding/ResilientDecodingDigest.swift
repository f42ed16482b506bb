#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the resilient properties of one decode recovered from, each with its coding path.
///
/// ```swift
/// let (list, digest) = try ResilientDecoding.decode(TaskList.self, from: body)
/// print(digest)
/// // tasks
/// //   [1].id: typeMismatch (expected Int, found a string)
/// //   [3].reward: typeMismatch (expected Double, found a string)
/// // status: unknown value "archived" for TaskStatus (not frozen: expected, not an error)
/// ```
///
/// The digest is built in every build, release included, and only from what failed: a decode
/// that succeeds produces an empty digest without having recorded anything.
///
/// ``errors`` are what should be reported (``errors(under:context:fileID:line:)`` turns them into
/// chain links under an endpoint's code); ``unknownValues`` are values that non-frozen
/// ``ResilientRawRepresentable`` types do not know yet, which are expected and worth a look, not
/// an alert.
public struct ResilientDecodingDigest: Sendable {
    /// One recovery: where, and from what.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The path to the value that failed, from the top of the decoded value.
        public let codingPath: [any CodingKey]
        /// The error decoding threw; for an unknown raw value, the decoder's `dataCorrupted` error.
        public let error: any Error
        /// The raw value, when the value was one a ``ResilientRawRepresentable`` does not know.
        public let unknownRawValue: String?
        /// Whether this is an unknown value of a non-frozen type: expected, not an error.
        public let isExpected: Bool
        /// The kind of failure in a few words, such as `typeMismatch (expected Double, found a string)`.
        public let summary: String

        init(error: any Error, at location: [any CodingKey], unknownValue: UnknownRawValue?) {
            self.codingPath = Self.codingPath(of: error, at: location)
            self.error = error
            self.unknownRawValue = unknownValue?.rawValue
            self.isExpected = unknownValue.map { !$0.isFrozen } ?? false
            self.summary = Self.summary(of: error, unknownValue: unknownValue)
        }

        /// The path as people write it: `tasks[3].price`; empty for the top-level value.
        public var path: String { DecodingError.renderedPath(codingPath) }

        /// `tasks[3].price: typeMismatch (expected Double, found a string)`.
        public var description: String { "\(path.isEmpty ? Self.topLevel : path): \(summary)" }

        /// How the top-level value is named where a path would be.
        static let topLevel = "(top level)"

        /// The error's own path when it is inside the failed value (a field of a dropped element),
        /// otherwise where the failure was caught. For a missing key the path ends with the key.
        private static func codingPath(of error: any Error, at location: [any CodingKey]) -> [any CodingKey] {
            guard let decoding = error as? DecodingError, var path = decoding.decodingContext?.codingPath else {
                return location
            }
            if case .keyNotFound(let key, _) = decoding { path.append(key) }
            let isInside =
                path.count >= location.count
                && zip(path, location).allSatisfy { $0.stringValue == $1.stringValue }
            return isInside ? path : location
        }

        private static func summary(of error: any Error, unknownValue: UnknownRawValue?) -> String {
            if let unknownValue {
                let base = "unknown value \"\(unknownValue.rawValue)\" for \(unknownValue.typeName)"
                return unknownValue.isFrozen ? base : base + " (not frozen: expected, not an error)"
            }
            guard let decoding = error as? DecodingError else {
                let link = ErrorChain.Link(error)
                guard let reason = link.reason, !reason.isEmpty else { return link.full }
                return "\(link.full) (\(UntrustedText.message(reason)))"
            }
            switch decoding {
            case .typeMismatch(let type, let context):
                guard let found = foundDescription(in: context.debugDescription) else {
                    return "typeMismatch (expected \(type))"
                }
                return "typeMismatch (expected \(type), found \(found))"
            case .valueNotFound(let type, _):
                return "valueNotFound (expected \(type), found null)"
            case .keyNotFound:
                return "keyNotFound"
            case .dataCorrupted(let context):
                return "dataCorrupted (\(UntrustedText.message(context.debugDescription)))"
            @unknown default:
                return UntrustedText.message(String(describing: decoding))
            }
        }

        /// `a string` out of `Expected to decode Double but found a string instead.`, the wording of
        /// Foundation's decoders; `nil` for any other wording.
        private static func foundDescription(in text: String) -> String? {
            guard let start = text.firstRange(of: "but found "),
                let end = text[start.upperBound...].firstRange(of: " instead")
            else { return nil }
            return UntrustedText.identifier(String(text[start.upperBound..<end.lowerBound]))
        }
    }

    /// Every recovery, in the order it happened, up to
    /// ``ResilientDecodingCollector/maximumEntries``.
    public let entries: [Entry]
    /// The recoveries past ``ResilientDecodingCollector/maximumEntries``: counted, not kept.
    public let omittedEntries: Int

    init(entries: [Entry], omittedEntries: Int = 0) {
        self.entries = entries
        self.omittedEntries = omittedEntries
    }

    /// The recoveries to report: everything but expected unknown values.
    public var errors: [Entry] { entries.filter { !$0.isExpected } }

    /// Values that non-frozen types do not know yet: expected, so not among the ``errors``.
    public var unknownValues: [Entry] { entries.filter(\.isExpected) }

    /// Whether nothing at all was recovered from.
    public var isEmpty: Bool { entries.isEmpty && omittedEntries == 0 }
}
