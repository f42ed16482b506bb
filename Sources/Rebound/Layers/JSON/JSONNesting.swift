#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How deep a JSON text nests its arrays and objects, found without parsing it.
///
/// One pass over the bytes, stopping at the first level too deep, so that hostile nesting never
/// reaches a recursive parser and a body of a million `[` costs no more than its first levels.
/// Brackets inside strings do not count.
enum JSONNesting {
    /// The deepest nesting Foundation's JSON parsers (`JSONDecoder`, `JSONSerialization`) read:
    /// 512 levels parse, 513 do not (measured with Swift 6.3 on Linux).
    static let parserLimit = 512

    /// Where `body` first opens an array or object more than `limit` levels deep, and the brackets
    /// still open there, outermost first; `nil` when it never nests that deep, or closes a bracket
    /// it never opened first (what follows is no JSON a parser would nest into).
    static func firstOpening(deeperThan limit: Int, in body: Data) -> (offset: Int, open: [UInt8])? {
        var open: [UInt8] = []
        var inString = false
        var escaped = false
        for (offset, byte) in body.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if open.count == limit { return (offset, open) }
                open.append(byte)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard open.popLast() != nil else { return nil }
            default:
                break
            }
        }
        return nil
    }

    /// Whether `body` is JSON that a parser gave up on only because it nests deeper than
    /// ``parserLimit``: everything before its first bracket too deep reads as JSON so far.
    ///
    /// That part is checked by closing it off where the bracket would open a value (`null`, then a
    /// closing bracket for each one still open) and parsing the result, which nests no deeper than
    /// the parser reads. Runs on the failure path only.
    static func isTooDeepForTheParser(_ body: Data) -> Bool {
        guard let (offset, open) = firstOpening(deeperThan: parserLimit, in: body) else { return false }
        var closed = Data(body.prefix(offset))
        closed.append(contentsOf: Array("null".utf8))
        closed.append(
            contentsOf: open.reversed().map { $0 == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}") })
        return isJSON(closed)
    }

    /// Whether `data` is one JSON value, a bare string or number included.
    ///
    /// `JSONDecoder` parses the whole text before it decodes anything, so decoding a type that
    /// reads nothing tells valid JSON from invalid, as `JSONSerialization` would, without the
    /// Foundation that holds `JSONSerialization`.
    static func isJSON(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(AnyJSONValue.self, from: data)) != nil
    }

    /// Any JSON value, left unread.
    private struct AnyJSONValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
