import ArgumentParser
import Rebound

/// ``Jitter`` as a command-line value: `none`, `full`, `equal` or `decorrelated`.
///
/// A type of the tool's own rather than a retroactive conformance of `Jitter`, which belongs to
/// neither this module nor ArgumentParser.
struct JitterOption: ExpressibleByArgument, Hashable {
    let jitter: Jitter

    init(_ jitter: Jitter) {
        self.jitter = jitter
    }

    init?(argument: String) {
        guard let jitter = Jitter(rawValue: argument) else { return nil }
        self.jitter = jitter
    }

    var defaultValueDescription: String { jitter.rawValue }

    static var allValueStrings: [String] { Jitter.allCases.map(\.rawValue) }
}
