/// Where in the source an error was created: `#fileID` and `#line`.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file, as `#fileID` gives it (`Module/File.swift`), which carries no machine-specific path.
    public var fileID: String
    /// The line in ``fileID``.
    public var line: Int

    public init(fileID: String = #fileID, line: Int = #line) {
        self.fileID = fileID
        self.line = line
    }

    public var description: String { "\(fileID):\(line)" }
}
