import ArgumentParser
import HTTPTypes

/// `--idempotency-key auto|KEY`: how a request that is not idempotent becomes safe to retry.
enum IdempotencyKeyOption: ExpressibleByArgument, Hashable {
    /// Let ``BackendTemporaryErrorHandler`` generate a key (its `addsIdempotencyKey`), the same on
    /// every attempt; from the seeded generator when `--seed` is given.
    case automatic
    /// Send this key in the `Idempotency-Key` header.
    case key(String)

    init?(argument: String) {
        if argument == "auto" {
            self = .automatic
        } else if !argument.isEmpty, HTTPField.isValidValue(argument) {
            self = .key(argument)
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["auto"]) }
}
