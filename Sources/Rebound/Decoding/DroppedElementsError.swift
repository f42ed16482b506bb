/// The errors of the elements a resilient collection left out, as the error of its outcome.
///
/// The elements' own errors, each with its coding path, are in ``errors``; the inspection's
/// `results` shows where they were among the elements that were kept.
public struct DroppedElementsError: Error, CustomStringConvertible {
    /// The error of each element left out, in the order of the input.
    public let errors: [any Error]

    init(errors: [any Error]) {
        self.errors = errors
    }

    /// `2 elements could not be decoded and were left out.`
    public var description: String {
        let one = errors.count == 1
        return "\(errors.count) element\(one ? "" : "s") could not be decoded and \(one ? "was" : "were") left out."
    }
}
