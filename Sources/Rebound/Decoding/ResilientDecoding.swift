#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Decoding a response with `@Resilient` properties, with the digest of what it recovered from.
///
/// ```swift
/// let (list, digest) = try ResilientDecoding.decode(TaskList.self, from: response.body)
/// if !digest.errors.isEmpty {
///     logger.warning("partial decode", metadata: ["recovered": "\(digest.lines)"])
/// }
/// ```
///
/// The path of a recovered error, from the property that caught it to monitoring:
///
/// ```
///  @Resilient property ── fails ──► recovers (nil, [], fallback, element left out)
///         │                             │
///         ▼                             ▼
///  model.$property               ResilientDecodingCollector (decoder.userInfo)
///  (outcome, errors, results)           │
///                                       ▼
///                                ResilientDecodingDigest ── errors(under: endpoint code) ──►
///                                                 AP8 ─ JS1 ─ DE1  ──► PartialDecodingObserver
/// ```
public enum ResilientDecoding {
    /// The observer of resilient endpoints that have none of their own, for the current task.
    ///
    /// Lets whoever runs the calls (a data manager, a test) connect monitoring once instead of
    /// giving an observer to every endpoint:
    ///
    /// ```swift
    /// let tasks = try await ResilientDecoding.$observer.withValue(reporting) {
    ///     try await api.send(listTasks)
    /// }
    /// ```
    @TaskLocal public static var observer: (any PartialDecodingObserver)?

    /// Decodes a JSON body, recovering where `@Resilient` properties can, and returns the value
    /// with the digest of what was recovered from.
    ///
    /// A body that cannot be decoded even resiliently fails exactly as
    /// ``LayerError/decode(_:from:decoder:fileID:line:)`` does: an empty body, a body that is not
    /// JSON and JSON of the wrong shape get different ``JSONErrorCode``s.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON body.
    ///   - decoder: The decoder whose options (strategies, user info) to decode with. It is not
    ///     changed: the decode runs on a copy that also carries the collector, so a decoder shared
    ///     between threads stays safe.
    ///   - fileID: Where the decoding is, recorded in its errors; leave the default.
    ///   - line: Where the decoding is, recorded in its errors; leave the default.
    /// - Returns: The value, and the digest of what was recovered from (empty when nothing was).
    /// - Throws: A ``JSONError`` when the body cannot be decoded at all.
    public static func decode<T: Decodable>(
        _ type: T.Type,
        from data: Data,
        decoder: JSONDecoder = JSONDecoder(),
        fileID: String = #fileID,
        line: Int = #line
    ) throws(JSONError) -> (value: T, digest: ResilientDecodingDigest) {
        let collector = ResilientDecodingCollector()
        let value = try JSONError.decode(
            type,
            from: data,
            decoder: decoder.copy(collectingInto: collector),
            fileID: fileID,
            line: line
        )
        return (value, collector.digest)
    }
}

extension JSONDecoder {
    /// Decodes a value, recovering where `@Resilient` properties can, and returns it with the digest
    /// of what was recovered from.
    ///
    /// Like `decode(_:from:)`, with the digest; this decoder is not changed.
    ///
    /// ```swift
    /// let (list, digest) = try JSONDecoder().decodeResiliently(TaskList.self, from: data)
    /// ```
    ///
    /// - Throws: What `decode(_:from:)` throws when the value cannot be decoded at all.
    public func decodeResiliently<T: Decodable>(
        _ type: T.Type,
        from data: Data
    ) throws -> (value: T, digest: ResilientDecodingDigest) {
        let collector = ResilientDecodingCollector()
        let value = try copy(collectingInto: collector).decode(type, from: data)
        return (value, collector.digest)
    }

    /// A decoder with this one's options whose user info also carries `collector`.
    ///
    /// A copy rather than a change to this decoder, because decoders are often shared and a
    /// collector belongs to one decode. Copies every option `JSONDecoder` has.
    func copy(collectingInto collector: ResilientDecodingCollector) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = dateDecodingStrategy
        copy.dataDecodingStrategy = dataDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        copy.keyDecodingStrategy = keyDecodingStrategy
        copy.allowsJSON5 = allowsJSON5
        copy.assumesTopLevelDictionary = assumesTopLevelDictionary
        copy.userInfo = userInfo
        copy.userInfo[.resilientDecodingCollector] = collector
        return copy
    }
}
