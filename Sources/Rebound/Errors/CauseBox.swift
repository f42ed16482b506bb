/// The cause of a ``LayerError``, held in a box of its own so that a long chain is freed in a loop
/// instead of one stack frame per level.
///
/// Swift frees nested values recursively: releasing an error releases its cause before it returns,
/// and that cause its own. A chain of 2,000 wrapped errors needed 2,000 frames and crashed a thread
/// with a 512 KiB stack. When a box is freed, its `deinit` takes the next box out of the error it
/// holds before letting that error go, and goes on down the chain for as long as it holds the last
/// reference to the next box. A box that someone else still holds (an error kept in a report, a
/// cause kept by the caller) stops the walk: that holder frees the rest, the same way, later.
final class CauseBox: @unchecked Sendable {
    // Unchecked: `error` is written by `init`, and by `detachNextBox()` only on a box that nobody
    // else holds (from `deinit`, or on a box known to be uniquely referenced).
    private(set) var error: (any Error)?

    init(_ error: any Error) {
        self.error = error
    }

    deinit {
        var next = detachNextBox()
        while var box = next.take() {
            guard isKnownUniquelyReferenced(&box) else { return }
            next = box.detachNextBox()
            // `box` is freed here with nothing left to free below it.
        }
    }

    /// Lets go of the error held, keeping and returning its own cause box if it is a layer error.
    private func detachNextBox() -> CauseBox? {
        guard let carrier = error as? any CauseBoxCarrying else { return nil }
        let next = carrier.causeBox
        error = nil
        return next
    }
}

/// An error whose cause is held in a ``CauseBox``; ``LayerError`` is one.
protocol CauseBoxCarrying {
    var causeBox: CauseBox? { get }
}
