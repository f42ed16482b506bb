/// How long the phases of one transfer took, as the transport measured them.
///
/// Each time runs from the start of the transfer to the end of its phase, as libcurl reports them
/// (`CURLINFO_NAMELOOKUP_TIME_T`, `CURLINFO_CONNECT_TIME_T`, `CURLINFO_APPCONNECT_TIME_T`,
/// `CURLINFO_STARTTRANSFER_TIME_T`, `CURLINFO_TOTAL_TIME_T`), so they grow in that order:
///
/// ```text
///  start ─ DNS ─► nameLookup ─ TCP ─► connect ─ TLS ─► tlsHandshake ─ request, wait ─► firstByte ─ body ─► total
/// ```
///
/// A phase that did not happen is zero: on a reused connection there is no lookup, no connect and
/// no handshake, and plain `http` has no handshake. The time of one phase alone is the difference
/// with the phase before it that happened (DNS: `nameLookup`; TLS: `tlsHandshake - connect`).
/// When a transport follows redirects, the timings are those of the last hop.
public struct TransferTimings: Hashable, Sendable {
    /// Until the host name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection (to the host or the proxy) was established.
    public var connect: Duration
    /// Until the TLS handshake was done (zero without TLS).
    public var tlsHandshake: Duration
    /// Until the first byte of the response arrived.
    public var firstByte: Duration
    /// The whole transfer, to the last byte of the response.
    public var total: Duration

    public init(
        nameLookup: Duration = .zero,
        connect: Duration = .zero,
        tlsHandshake: Duration = .zero,
        firstByte: Duration = .zero,
        total: Duration = .zero
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}
