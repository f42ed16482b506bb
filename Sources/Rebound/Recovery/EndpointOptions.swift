/// Options of one endpoint that handlers read: a typed bag whose keys are defined by whoever
/// needs them.
///
/// A handler that wants a per-endpoint setting (a breaker's key, a limit) defines a key, an
/// app sets it on the endpoint, and the handler reads it from ``AttemptContext/options``:
///
/// ```swift
/// enum PriorityKey: EndpointOptionKey {
///     static let defaultValue = 0
/// }
///
/// var options = EndpointOptions()
/// options[PriorityKey.self] = 5
/// ```
///
/// Rebound defines ``skippedHandlers``: the handlers the pipeline leaves out of a call
/// altogether, on every hook.
public struct EndpointOptions: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    /// The value of `key`, or its default when it was not set.
    public subscript<Key: EndpointOptionKey>(key: Key.Type) -> Key.Value {
        get {
            // Most endpoints set nothing: no lookup then.
            guard !values.isEmpty, let value = values[ObjectIdentifier(key)] as? Key.Value else {
                return Key.defaultValue
            }
            return value
        }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// The handlers this endpoint's calls leave out: none of their hooks is called, so an
    /// endpoint that a handler itself calls (the token refresh of ``AuthRefreshHandler``, the
    /// verification of ``CaptchaRequiredHandler``) can go through the same data manager without
    /// re-entering that handler.
    public var skippedHandlers: [HandlerSelector] {
        get { self[SkippedHandlersKey.self] }
        set { self[SkippedHandlersKey.self] = newValue }
    }

    /// Whether `handler` takes part in calls with these options.
    func includes(_ handler: any RecoverableErrorHandler) -> Bool {
        let skipped = skippedHandlers
        return skipped.isEmpty || !skipped.contains { $0.matches(handler) }
    }
}

/// A key of ``EndpointOptions``: its type identifies it, and it gives the value an endpoint has
/// when nobody set it.
public protocol EndpointOptionKey {
    associatedtype Value: Sendable
    /// The value of an endpoint that did not set this key.
    static var defaultValue: Value { get }
}

/// Picks handlers out of a data manager's list, by name or by type.
public struct HandlerSelector: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case name(String)
        case type(ObjectIdentifier, String)
    }

    private let kind: Kind

    /// The handlers whose ``RecoverableErrorHandler/name`` is `name`.
    public static func named(_ name: String) -> HandlerSelector {
        HandlerSelector(kind: .name(name))
    }

    /// The handlers of type `type`.
    public static func type(_ type: any RecoverableErrorHandler.Type) -> HandlerSelector {
        HandlerSelector(kind: .type(ObjectIdentifier(type), String(describing: type)))
    }

    /// Whether `handler` is one of those picked.
    func matches(_ handler: any RecoverableErrorHandler) -> Bool {
        switch kind {
        case .name(let name): handler.name == name
        case .type(let type, _): ObjectIdentifier(Swift.type(of: handler)) == type
        }
    }

    public var description: String {
        switch kind {
        case .name(let name): "named \(name)"
        case .type(_, let name): "of type \(name)"
        }
    }
}

private enum SkippedHandlersKey: EndpointOptionKey {
    static let defaultValue: [HandlerSelector] = []
}
