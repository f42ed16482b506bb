/// What a failed non-fatal assertion does after telling its messenger.
public enum AssertionFailureAction: Hashable, Sendable {
    /// Stop the process (with the checker's trap, `fatalError` by default), as `assert` does in a
    /// debug build: the failure cannot be missed.
    case trap
    /// Go on, as `assert` does in a release build: the failure is reported, the person keeps working.
    case `continue`

    /// `.trap` in debug builds and `.continue` in release builds, as Swift's `assert`.
    public static var standard: AssertionFailureAction {
        #if DEBUG
            .trap
        #else
            .continue
        #endif
    }
}

/// Non-fatal assertions: a failed check reports its message, file, line and function through a
/// messenger, then traps or goes on, by configuration.
///
/// Swift's `assert` is silent in release builds and crashes in debug ones without telling anyone
/// who is not at the debugger. A checker reports every failure (to a ``NonFatalReporter``, as a
/// non-fatal `AssertionError` grouped by its code), and then does what its ``action`` says.
///
/// Set the process-wide checker once at start-up, and assert with the free functions:
///
/// ```swift
/// AssertionChecker.shared = AssertionChecker(messenger: reporter, action: isDebugBuild ? .trap : .continue)
/// …
/// nonFatalAssert(cache.count == index.count, "Cache and index out of sync", code: .cacheOutOfSync)
/// ```
///
/// or keep a checker of your own and call ``check(_:_:code:context:fileID:line:function:)``.
public struct AssertionChecker: Sendable {
    /// Who is told about failures; `nil` tells nobody.
    public var messenger: (any AssertionMessenger)?
    /// What happens after the messenger is told.
    public var action: AssertionFailureAction
    /// How ``AssertionFailureAction/trap`` stops the process; ``fatalTrap`` unless a test swaps it.
    ///
    /// A trap that returns (only a test's can) lets the asserting code go on.
    public var trap: @Sendable (AssertionFailure) -> Void

    /// Stops the process with `fatalError`, the failure's description as the message.
    public static let fatalTrap: @Sendable (AssertionFailure) -> Void = { failure in
        fatalError(failure.description)
    }

    /// Creates a checker.
    ///
    /// - Parameters:
    ///   - messenger: Who is told about failures, usually the app's ``NonFatalReporter``.
    ///   - action: What happens next; ``AssertionFailureAction/standard`` by default, which is
    ///     what Swift's `assert` does in the same build.
    ///   - trap: How a trap stops the process; `fatalError` by default.
    public init(
        messenger: (any AssertionMessenger)? = nil,
        action: AssertionFailureAction = .standard,
        trap: @escaping @Sendable (AssertionFailure) -> Void = AssertionChecker.fatalTrap
    ) {
        self.messenger = messenger
        self.action = action
        self.trap = trap
    }

    /// Checks a condition; when it is false, reports the failure and traps or goes on.
    ///
    /// - Parameters:
    ///   - condition: What should hold; evaluated once.
    ///   - message: What should have held; evaluated only on failure.
    ///   - code: The assertion's code, which groups its reports.
    ///   - context: Debug context, evaluated only on failure.
    ///   - fileID: Where the assertion is, reported with it; leave the default.
    ///   - line: Where the assertion is, reported with it; leave the default.
    ///   - function: Where the assertion is, reported with it; leave the default.
    public func check(
        _ condition: @autoclosure () -> Bool,
        _ message: @autoclosure () -> String = String(),
        code: AssertionErrorCode = .unspecified,
        context: @autoclosure () -> ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line,
        function: String = #function
    ) {
        guard !condition() else { return }
        fail(message(), code: code, context: context(), fileID: fileID, line: line, function: function)
    }

    /// Reports a failure unconditionally, as `assertionFailure` does, and traps or goes on.
    ///
    /// - Parameters:
    ///   - message: What went wrong.
    ///   - code: The assertion's code, which groups its reports.
    ///   - context: Debug context.
    ///   - fileID: Where the assertion is, reported with it; leave the default.
    ///   - line: Where the assertion is, reported with it; leave the default.
    ///   - function: Where the assertion is, reported with it; leave the default.
    public func fail(
        _ message: @autoclosure () -> String,
        code: AssertionErrorCode = .unspecified,
        context: @autoclosure () -> ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line,
        function: String = #function
    ) {
        let failure = AssertionFailure(
            message: message(),
            code: code,
            context: context(),
            fileID: fileID,
            line: line,
            function: function
        )
        messenger?.assertionFailed(failure)
        guard action == .trap else { return }
        messenger?.willTrap(after: failure)
        trap(failure)
    }

    private static let storage = Locked(AssertionChecker())

    /// The process-wide checker the free functions use; set it once at start-up.
    ///
    /// Until then it has no messenger and the ``AssertionFailureAction/standard`` action.
    public static var shared: AssertionChecker {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// Checks a condition with the process-wide ``AssertionChecker/shared`` checker: when it is false,
/// the failure is reported, then the process traps or goes on.
///
/// ```swift
/// nonFatalAssert(!items.isEmpty, "The list should never be empty here", code: .emptyList)
/// ```
public func nonFatalAssert(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String = String(),
    code: AssertionErrorCode = .unspecified,
    context: @autoclosure () -> ErrorContext = ErrorContext(),
    fileID: String = #fileID,
    line: Int = #line,
    function: String = #function
) {
    AssertionChecker.shared.check(
        condition(), message(), code: code, context: context(), fileID: fileID, line: line, function: function)
}

/// Reports a failure with the process-wide ``AssertionChecker/shared`` checker, as
/// `assertionFailure` does, then traps or goes on.
public func nonFatalAssertionFailure(
    _ message: @autoclosure () -> String,
    code: AssertionErrorCode = .unspecified,
    context: @autoclosure () -> ErrorContext = ErrorContext(),
    fileID: String = #fileID,
    line: Int = #line,
    function: String = #function
) {
    AssertionChecker.shared.fail(
        message(), code: code, context: context(), fileID: fileID, line: line, function: function)
}
