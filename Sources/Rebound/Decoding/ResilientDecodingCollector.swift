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
/// digest about one value. It keeps the first ``maximumEntries`` recoveries and counts the rest
/// (``ResilientDecodingDigest/omittedEntries``): a server can send millions of bad elements in a
/// few megabytes.
public final class ResilientDecodingCollector: Sendable {
    /// The most recoveries kept with their errors and paths.
    public static let maximumEntries = 1_000

    private struct Recorded {
        var entries: [ResilientDecodingDigest.Entry] = []
        var omitted = 0
    }

    private let recorded = Locked(Recorded())

    public init() {}

    /// Everything recorded so far, in the order it was recovered.
    public var digest: ResilientDecodingDigest {
        recorded.withLock { ResilientDecodingDigest(entries: $0.entries, omittedEntries: $0.omitted) }
    }

    func record(_ entry: ResilientDecodingDigest.Entry) {
        recorded.withLock { recorded in
            if recorded.entries.count < Self.maximumEntries {
                recorded.entries.append(entry)
            } else {
                recorded.omitted += 1
            }
        }
    }

    /// Counts a recovery past the limit, which was never made into an entry.
    func recordOmitted() {
        recorded.withLock { $0.omitted += 1 }
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
