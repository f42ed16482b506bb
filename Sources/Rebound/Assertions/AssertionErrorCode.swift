/// The assertion layer's error: a condition the code relies on did not hold.
///
/// This is the `AS` layer. A failed ``AssertionChecker/check(_:_:code:context:fileID:line:function:)``
/// is recorded as an `AssertionError` whose reason is the assertion's message.
public typealias AssertionError = LayerError<AssertionErrorCode>

/// The codes of ``AssertionError``: an open set, so that an app numbers its own assertions.
///
/// Reports are grouped by the short chain, so assertions with the same code are one group (`AS0`
/// for every assertion without a code). Give the assertions you want to tell apart a code of their
/// own, with an explicit number that never changes or gets reused:
///
/// ```swift
/// extension AssertionErrorCode {
///     static let cacheOutOfSync = AssertionErrorCode(101, name: "cacheOutOfSync")
///     static let negativeBalance = AssertionErrorCode(102, name: "negativeBalance")
/// }
///
/// nonFatalAssert(balance >= 0, "Balance went negative", code: .negativeBalance)
/// ```
///
/// Codes compare by number alone; the name is for the full chain.
public struct AssertionErrorCode: ErrorCode, CustomStringConvertible {
    public static let domain = "AssertionError"
    public static let shortName = "AS"

    /// An assertion without a code of its own.
    public static let unspecified = AssertionErrorCode(0, name: "unspecified")

    public let rawValue: Int
    public let name: String

    /// A code with its number and its name in the full chain.
    public init(_ rawValue: Int, name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// A code known by its number only, named `assertion<number>`.
    public init?(rawValue: Int) {
        self.init(rawValue, name: "assertion\(rawValue)")
    }

    public static func == (lhs: AssertionErrorCode, rhs: AssertionErrorCode) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    public var description: String { name }
}
