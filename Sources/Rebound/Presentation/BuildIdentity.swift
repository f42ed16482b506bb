/// Which build of the app a failure happened in: its version and source revision.
///
/// The app provides it once at start-up; technical details and reports carry it, so that a
/// chain can be traced to the code that produced it.
public struct BuildIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The version people see, such as `"2.4.1"`.
    public var version: String
    /// The source revision, such as a commit hash.
    public var revision: String

    public init(version: String, revision: String) {
        self.version = version
        self.revision = revision
    }

    /// `2.4.1 (3f9c2ab)`.
    public var description: String { revision.isEmpty ? version : "\(version) (\(revision))" }
}
