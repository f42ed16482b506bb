#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fields of a JSON error payload that ``JSONBackendErrorParser`` reads, and nothing else.
///
/// Decoding is lenient field by field: a field of the wrong type is treated as absent, so that one
/// odd field does not lose the rest of the payload.
struct JSONErrorPayload {
    var code: String?
    var reason: String?
    var message: String?
    var field: String?
    var captchaID: String?
    var captchaQuestion: String?

    /// The payload in `body`, or `nil` when the body is not a JSON object with a code, reason or message.
    init?(_ body: Data, maximumDepth: Int) {
        guard Self.startsWithObject(body), !Self.nestingExceeds(maximumDepth, in: body),
            let envelope = try? JSONDecoder().decode(Envelope.self, from: body)
        else { return nil }
        self = envelope.payload
        guard code != nil || reason != nil || message != nil else { return nil }
    }

    /// Whether the first byte after any whitespace (and a byte order mark) opens an object: a cheap
    /// way to turn away HTML pages and plain text before any parsing.
    static func startsWithObject(_ body: Data) -> Bool {
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    }

    /// Whether arrays and objects nest deeper than `limit` anywhere in `body` that a parser would
    /// reach; see ``JSONNesting``.
    static func nestingExceeds(_ limit: Int, in body: Data) -> Bool {
        JSONNesting.firstOpening(deeperThan: limit, in: body) != nil
    }
}

extension JSONErrorPayload {
    private enum Key: String, CodingKey {
        case error, code, reason, message, field, details, captcha, id, question
    }

    /// The body: the error object itself, or an object with the error object under `"error"`.
    private struct Envelope: Decodable {
        var payload: JSONErrorPayload

        init(from decoder: any Decoder) throws {
            let body = try decoder.container(keyedBy: Key.self)
            let outer = JSONErrorPayload(fields: body)
            if let inner = try? body.nestedContainer(keyedBy: Key.self, forKey: .error) {
                var payload = JSONErrorPayload(fields: inner)
                if payload.captchaID == nil {
                    (payload.captchaID, payload.captchaQuestion) = (outer.captchaID, outer.captchaQuestion)
                }
                if payload.code != nil || payload.reason != nil || payload.message != nil {
                    self.payload = payload
                    return
                }
            }
            self.payload = outer
        }
    }

    /// The fields of one error object.
    private init(fields object: KeyedDecodingContainer<Key>) {
        code = Self.identifier(object, .code)
        reason = Self.identifier(object, .reason)
        message = try? object.decode(String.self, forKey: .message)
        field = Self.identifier(object, .field)
        if var details = try? object.nestedUnkeyedContainer(forKey: .details), !details.isAtEnd,
            let first = try? details.nestedContainer(keyedBy: Key.self)
        {
            reason = reason ?? Self.identifier(first, .reason)
            field = field ?? Self.identifier(first, .field)
        }
        if let captcha = try? object.nestedContainer(keyedBy: Key.self, forKey: .captcha) {
            captchaID = Self.identifier(captcha, .id)
            captchaQuestion = captchaID == nil ? nil : try? captcha.decode(String.self, forKey: .question)
        }
    }

    /// A string, or an integer as its decimal string: backends use both for codes and identifiers.
    private static func identifier(_ object: KeyedDecodingContainer<Key>, _ key: Key) -> String? {
        if let text = try? object.decode(String.self, forKey: key) { return text }
        if let number = try? object.decode(Int.self, forKey: key) { return String(number) }
        return nil
    }
}
