/// Collects what the resilient properties of one decode recovered from, each with its coding path.
///
/// Put one in a decoder's user info under ``Swift/CodingUserInfoKey/resilientDecodingCollector``,
/// decode, then read its ``digest``. ``ResilientDecoding/decode(_:from:decoder:fileID:line:)`` and
/// `JSONDecoder.decodeResiliently(_:from:)` do this for you; use a collector directly with other
/// decoders:
///
/// ```swift
/// let collector = ResilientDecodingCollector()
/// let decoder = PropertyListDecoder()
/// decoder.userInfo[.resilientDecodingCollector] = collector
/// let settings = try decoder.decode(Settings.self, from: data)
/// print(collector.digest)
/// ```
///
/// Properties record into it only when they recover from something, so a decode that succeeds
/// never touches it. It is safe to share between threads, but a collector per decode keeps each
/// digest about one value.
public final class ResilientDecodingCollector: Sendable {
    private let entries = Locked<[ResilientDecodingDigest.Entry]>([])

    public init() {}

    /// Everything recorded so far, in the order it was recovered.
    public var digest: ResilientDecodingDigest {
        ResilientDecodingDigest(entries: entries.withLock { $0 })
    }

    func record(_ entry: ResilientDecodingDigest.Entry) {
        entries.withLock { $0.append(entry) }
    }
}

extension CodingUserInfoKey {
    /// The user-info key of the ``ResilientDecodingCollector`` that resilient properties record into.
    public static let resilientDecodingCollector = CodingUserInfoKey(rawValue: "Rebound.resilientDecodingCollector")!
}

extension Decoder {
    /// The collector of this decode, if it has one.
    var resilientDecodingCollector: ResilientDecodingCollector? {
        userInfo[.resilientDecodingCollector] as? ResilientDecodingCollector
    }
}
