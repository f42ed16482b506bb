extension ResilientDecodingDigest: CustomStringConvertible {
    /// The recoveries as a tree of their coding paths, one line per recovery, for logs and for people
    /// investigating.
    ///
    /// Paths that share a beginning are grouped under it; a path with a single recovery stays on one
    /// line:
    ///
    /// ```
    /// tasks
    ///   [1].id: typeMismatch (expected Int, found a string)
    ///   [3].reward: typeMismatch (expected Double, found a string)
    /// owner.email: valueNotFound (expected String, found null)
    /// status: unknown value "archived" for TaskStatus (not frozen: expected, not an error)
    /// ```
    ///
    /// An empty digest renders as `nothing recovered`.
    public var description: String {
        guard !isEmpty else { return "nothing recovered" }
        let root = PathNode(component: "")
        for entry in entries {
            var node = root
            for key in entry.codingPath { node = node.child(PathNode.component(of: key)) }
            node.summaries.append(entry.summary)
        }
        var lines = root.summaries.map { "\(Entry.topLevel): \($0)" }
        root.render(depth: 0, into: &lines)
        if omittedEntries > 0 { lines.append("… and \(omittedEntries) more recoveries, counted but not kept") }
        return lines.joined(separator: "\n")
    }

    /// One line per recovery, in the order they happened: `tasks[3].price: typeMismatch (…)`.
    public var lines: [String] { entries.map(\.description) }
}

/// A node of the tree of coding paths.
private final class PathNode {
    let component: String
    var children: [PathNode] = []
    var summaries: [String] = []

    init(component: String) {
        self.component = component
    }

    /// `[3]` for an array index, the key's name otherwise.
    static func component(of key: any CodingKey) -> String {
        DecodingError.renderedPath([key]).isEmpty ? key.stringValue : DecodingError.renderedPath([key])
    }

    /// The child for `component`, created after the existing ones if there is none yet.
    func child(_ component: String) -> PathNode {
        if let existing = children.first(where: { $0.component == component }) { return existing }
        let node = PathNode(component: component)
        children.append(node)
        return node
    }

    func render(depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        for child in children {
            // A run of nodes with one child and nothing of their own stays on one line.
            var node = child
            var label = child.component
            while node.summaries.isEmpty, node.children.count == 1 {
                node = node.children[0]
                label += node.component.hasPrefix("[") ? node.component : "." + node.component
            }
            if node.summaries.isEmpty { lines.append(indent + label) }
            for summary in node.summaries { lines.append("\(indent)\(label): \(summary)") }
            node.render(depth: depth + 1, into: &lines)
        }
    }
}
