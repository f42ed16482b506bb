public import Foundation
public import HTTPTypes

/// A whole HTTP response as a transport returns it.
public struct TransportResponse: Sendable {
    /// The status and header fields. Repeated fields are kept in order; lookup is case-insensitive.
    public var head: HTTPResponse
    /// The body, already decoded from any `Content-Encoding` the transport understands.
    public var body: Data
    /// How the response was obtained.
    public var info: TransferInfo

    public init(head: HTTPResponse, body: Data = Data(), info: TransferInfo = TransferInfo()) {
        self.head = head
        self.body = body
        self.info = info
    }

    /// The status of the response.
    public var status: HTTPResponse.Status { head.status }
}

/// Facts about one transfer that help explain it and test it.
public struct TransferInfo: Hashable, Sendable {
    /// The HTTP version the response came over, such as `"1.1"` or `"2"`.
    public var httpVersion: String
    /// How many redirects were followed.
    public var redirectCount: Int
    /// How many new connections the transfer had to open (0 when it reused one).
    public var newConnections: Int

    public init(httpVersion: String = "1.1", redirectCount: Int = 0, newConnections: Int = 0) {
        self.httpVersion = httpVersion
        self.redirectCount = redirectCount
        self.newConnections = newConnections
    }
}
