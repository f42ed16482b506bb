/// How a ``Backoff`` randomizes each wait around its exponential value.
///
/// Without jitter, clients that failed together retry together, and the server that shed them
/// sees the same spike again at every step. The AWS Architecture Blog post "Exponential Backoff
/// and Jitter" (Marc Brooker, 2015) simulated the strategies below against a contended resource;
/// its names are kept here. With `v` the exponential value of retry `k`
/// (see ``Backoff/exponential(forRetry:)``):
///
/// | jitter | wait before retry `k` | character |
/// |---|---|---|
/// | ``none`` | `v` | predictable, but a herd stays synchronized |
/// | ``full`` | uniform in `0...v` | the least total work and the fastest completion in the post |
/// | ``equal`` | uniform in `v/2...v` | never retries almost at once; a little more work than full |
/// | ``decorrelated`` | `min(cap, uniform in base...3 × previous)` | grows from the previous wait, not from `k` |
public enum Jitter: String, Sendable, Hashable, CaseIterable, Codable {
    /// Wait exactly the exponential value.
    case none
    /// Wait a uniformly random duration between zero and the exponential value.
    case full
    /// Wait half the exponential value plus a uniformly random duration up to the other half.
    case equal
    /// Wait a uniformly random duration between the base and three times the previous wait, capped.
    case decorrelated
}
