import Foundation
import HTTPTypes

/// The answers of ``StaleIfErrorHandler``: the last good answer per URL and scope, bounded in
/// entries and bytes, the least recently used forgotten first. No locks and no I/O: the handler
/// holds it under its lock.
struct StaleAnswerStore {
    /// What an answer is stored under: its URL (with the query, which tells answers apart, and
    /// is never logged) and the scope it was requested in (`nil`: no scope).
    struct Key: Hashable {
        var scope: String?
        var url: String
    }

    struct Entry {
        let response: TransportResponse
        /// When it was received, on the pipeline's monotonic clock.
        let storedAt: Duration
        /// What it counts against ``StaleIfErrorHandler/Configuration/maximumBytes``.
        let bytes: Int
        /// When it was last stored or served, in the store's ticks: for eviction.
        var lastUsed: UInt64
    }

    /// Why an answer was not stored.
    enum Refusal: Equatable {
        /// The request carried a credential and there was no scope.
        case credentialsWithoutScope
        /// `Cache-Control: no-store`, or `private` without a scope.
        case cacheControl
        /// The body is over the largest answer kept.
        case tooLarge
    }

    let configuration: StaleIfErrorHandler.Configuration
    private(set) var entries: [Key: Entry] = [:]
    /// The sum of the entries' bytes.
    private(set) var bytes = 0
    /// The scopes read when the attempts were prepared, until they end.
    private var scopes: [AttemptID: String] = [:]
    private var ticks: UInt64 = 0

    init(configuration: StaleIfErrorHandler.Configuration) {
        self.configuration = configuration
    }

    /// Keeps the scope an attempt is requested in, until it ends.
    mutating func prepared(_ id: AttemptID, scope: String) {
        scopes[id] = scope
    }

    /// Forgets the attempt's scope and returns it.
    mutating func ended(_ id: AttemptID) -> String? {
        scopes.removeValue(forKey: id)
    }

    /// Keeps `response` as the last good answer to `request` in `scope`, replacing the one before;
    /// when it may not be kept, forgets the one before too, so that an answer older than one
    /// already seen is never given.
    ///
    /// - Returns: `nil` when it was stored, or why not.
    @discardableResult
    mutating func store(
        _ response: TransportResponse, for request: HTTPRequest, scope: String?, now: Duration
    ) -> Refusal? {
        let key = Key(scope: scope, url: Self.url(of: request))
        let refusal = refusal(of: response, for: request, scope: scope, key: key)
        remove(key)
        if let refusal { return refusal }
        ticks += 1
        let size = Self.bytes(of: response, key: key)
        entries[key] = Entry(response: response, storedAt: now, bytes: size, lastUsed: ticks)
        bytes += size
        while entries.count > configuration.maximumEntries || bytes > configuration.maximumBytes {
            guard let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key else { break }
            remove(oldest)
        }
        return nil
    }

    /// The last good answer to `request` in `scope`, when it is at most `maximumStaleness` old.
    mutating func answer(for request: HTTPRequest, scope: String?, now: Duration, maximumStaleness: Duration)
        -> StaleAnswer?
    {
        let key = Key(scope: scope, url: Self.url(of: request))
        guard let entry = entries[key] else { return nil }
        let age = max(.zero, now - entry.storedAt)
        guard age <= maximumStaleness else { return nil }
        ticks += 1
        entries[key]?.lastUsed = ticks
        return StaleAnswer(response: entry.response, age: age)
    }

    /// Forgets every answer.
    mutating func removeAll() {
        entries = [:]
        bytes = 0
    }

    /// Forgets the answers stored in `scope` (`nil`: those stored without a scope).
    mutating func removeAll(inScope scope: String?) {
        for key in entries.keys where key.scope == scope { remove(key) }
    }

    private mutating func remove(_ key: Key) {
        guard let removed = entries.removeValue(forKey: key) else { return }
        bytes -= removed.bytes
    }

    private func refusal(of response: TransportResponse, for request: HTTPRequest, scope: String?, key: Key)
        -> Refusal?
    {
        if scope == nil, configuration.credentialFields.contains(where: { request.headerFields[$0] != nil }) {
            return .credentialsWithoutScope
        }
        let directives = Self.cacheDirectives(response.head.headerFields)
        if directives.contains("no-store") || (scope == nil && directives.contains("private")) {
            return .cacheControl
        }
        if response.body.count > configuration.maximumAnswerBytes
            || Self.bytes(of: response, key: key) > configuration.maximumBytes
        {
            return .tooLarge
        }
        return nil
    }

    /// `https://api.example.com/v1/tasks?page=2`: the request's URL, query included.
    static func url(of request: HTTPRequest) -> String {
        (request.scheme ?? "") + "://" + (request.authority ?? "") + (request.path ?? "")
    }

    /// The names of the `Cache-Control` directives, lowercased (`private="Set-Cookie"` is `private`).
    static func cacheDirectives(_ fields: HTTPFields) -> Set<String> {
        var names: Set<String> = []
        for value in fields[values: .cacheControl] {
            for directive in value.split(separator: ",") {
                let name = directive.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { names.insert(name.lowercased()) }
            }
        }
        return names
    }

    /// What an entry counts: its body, its header fields and its key.
    static func bytes(of response: TransportResponse, key: Key) -> Int {
        var size = response.body.count + key.url.utf8.count + (key.scope?.utf8.count ?? 0)
        for field in response.head.headerFields {
            size += field.name.rawName.utf8.count + field.value.utf8.count
        }
        return size
    }
}
