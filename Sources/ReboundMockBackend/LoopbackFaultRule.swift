/// Which requests get a ``LoopbackFault``, and how often.
///
/// A rule selects requests by route (a method and a path, or a path and everything below it, as
/// ``LoopbackRoute`` matches them) or by anything else in the request (a header, the query, the
/// connection), and its ``Trigger`` says which of the selected requests the fault hits.
///
/// ```swift
/// server.faults.inject(
///     LoopbackFaultRule("GET", "/tasks", fault: .resetBeforeAnswer, trigger: .times(2)),
///     LoopbackFaultRule(where: { $0.header("X-Fault") == "drip" }, fault: .drip(every: .milliseconds(5)))
/// )
/// ```
public struct LoopbackFaultRule: Sendable {
    /// Which of the requests a rule selects get its fault.
    public enum Trigger: Sendable, Hashable {
        /// Every one.
        case always
        /// The next `count`; then the rule is used up and removed. A count of 0 or less selects none.
        case times(Int)
        /// Each with this probability (0 to 1), drawn from the server's seeded generator, so the same
        /// seed hits the same requests of the same sequence.
        case probability(Double)
    }

    /// What the selected requests get.
    public var fault: LoopbackFault
    /// Which of the selected requests get it.
    public var trigger: Trigger
    private let selection: @Sendable (LoopbackRequest) -> Bool

    /// A rule for the requests that `selects` says yes to.
    ///
    /// - Parameters:
    ///   - selects: Whether a request is one the rule is for; called on the server's event loop, so it
    ///     must be quick.
    ///   - fault: What the requests get.
    ///   - trigger: Which of them get it; all of them by default.
    public init(
        where selects: @escaping @Sendable (LoopbackRequest) -> Bool,
        fault: LoopbackFault,
        trigger: Trigger = .always
    ) {
        self.fault = fault
        self.trigger = trigger
        selection = selects
    }

    /// A rule for every request.
    public init(fault: LoopbackFault, trigger: Trigger = .always) {
        self.init(where: { _ in true }, fault: fault, trigger: trigger)
    }

    /// A rule for the requests to one route: `method` (any if `nil`) and exactly `path`.
    public init(_ method: String? = nil, _ path: String, fault: LoopbackFault, trigger: Trigger = .always) {
        self.init(
            where: { LoopbackRoute.matches($0, method: method, path: path, includesSubpaths: false) },
            fault: fault,
            trigger: trigger
        )
    }

    /// A rule for the requests to `pathPrefix` and every path below it, with `method` (any if `nil`).
    public init(_ method: String? = nil, pathPrefix: String, fault: LoopbackFault, trigger: Trigger = .always) {
        self.init(
            where: { LoopbackRoute.matches($0, method: method, path: pathPrefix, includesSubpaths: true) },
            fault: fault,
            trigger: trigger
        )
    }

    /// Whether the rule is for `request`, whatever its trigger.
    func selects(_ request: LoopbackRequest) -> Bool {
        selection(request)
    }
}
