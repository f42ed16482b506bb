/// The errors of the elements a resilient collection left out, as the error of its outcome.
///
/// The elements' own errors, each with its coding path, are in ``errors``; the inspection's
/// `results` shows where they were among the elements that were kept.
public struct DroppedElementsError: Error, CustomStringConvertible {
    /// The error of each element left out, in the order of the input: the first 1,000.
    public let errors: [any Error]
    /// The elements left out past the first 1,000, counted but not kept: a server can send millions
    /// of bad elements in a few megabytes.
    public let omittedCount: Int

    init(errors: [any Error], omittedCount: Int = 0) {
        self.errors = errors
        self.omittedCount = omittedCount
    }

    /// `2 elements could not be decoded and were left out.`
    public var description: String {
        let count = errors.count + omittedCount
        let one = count == 1
        return "\(count) element\(one ? "" : "s") could not be decoded and \(one ? "was" : "were") left out."
    }
}
