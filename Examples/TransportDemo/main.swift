// A tour of Rebound's libcurl transport against a loopback server started in-process:
// connection reuse, concurrency, and how each kind of network failure comes out typed.
import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend

@main
struct TransportDemo {
    static func main() async throws {
        let server = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)
        let transport = CurlTransport()
        print("Rebound transport demo: a loopback server at \(server.baseURL), libcurl on one thread.\n")

        func request(_ target: String) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "http", authority: server.authority, path: target)
        }

        func show(_ label: String, options: TransportOptions = TransportOptions(), _ target: HTTPRequest) async {
            let started = ContinuousClock.now
            do {
                let response = try await transport.send(target, body: nil, options: options)
                print(
                    "  ok    \(label): \(response.status.code) \(response.status.reasonPhrase), "
                        + "\(response.body.count) bytes over HTTP/\(response.info.httpVersion) "
                        + "in \(milliseconds(since: started))"
                )
            } catch {
                print(
                    "  error \(label): \(error.shortName)\(error.codeValue) \(error) in \(milliseconds(since: started))"
                )
            }
        }

        print("Successes")
        await show("GET /hello", request("/hello"))
        await show("GET /bytes?count=1048576", request("/bytes?count=1048576"))
        await show("GET /redirect?n=3 (followed)", request("/redirect?n=3"))

        let before = server.connectionsAccepted
        for _ in 0..<100 { _ = try await transport.send(request("/hello")) }
        print(
            "  ok    100 sequential GETs: the server accepted \(server.connectionsAccepted - before) new connection(s)")

        let started = ContinuousClock.now
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<500 {
                group.addTask { (try? await transport.send(request("/hello")))?.status == .ok }
            }
            var succeeded = 0
            for await ok in group where ok { succeeded += 1 }
            return succeeded
        }
        print("  ok    500 concurrent GETs: \(succeeded) succeeded in \(milliseconds(since: started))")

        print("\nFailures, each a typed NetworkError (NE) with a stable code")
        var quick = TransportOptions()
        quick.stallTimeout = .milliseconds(500)
        quick.timeout = .seconds(2)
        await show("GET /stall, stall limit 0.5 s", options: quick, request("/stall"))
        await show("GET /drip, total limit 2 s", options: quick, request("/drip?chunks=100&ms=100"))
        await show("GET /close-mid-body", request("/close-mid-body"))
        await show("GET /close-without-response", request("/close-without-response"))
        var small = TransportOptions()
        small.maxResponseBodySize = 64 * 1024
        await show("GET 1 MiB with a 64 KiB limit", options: small, request("/chunked-bytes?count=1048576&chunk=16384"))
        await show("GET /redirect?n=9 (limit 5)", request("/redirect?n=9"))
        await show("GET a closed port", HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: "/"))

        let stalled = Task { try await transport.send(request("/stall")) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        stalled.cancel()
        do {
            _ = try await stalled.value
        } catch {
            print("  error cancelled task: \(error) \(milliseconds(since: cancelledAt)) after cancel()")
        }

        transport.shutdown()
        try await server.shutdown()
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        return String(
            format: "%.1f ms", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        )
    }
}
