import ReboundMockBackend
import Testing

/// The loopback server against callers and clients that ask too much of it: out-of-range settings,
/// oversized or endless requests, replies with impossible statuses.
@Suite struct LoopbackServerLimitsTests {
    @Test(arguments: [-1, 65536, 70000])
    func aPortOutsideTheRangeOfTCPPortsIsRefused(port: Int) async throws {
        await #expect(throws: LoopbackServer.ConfigurationError.self) {
            let server = try await LoopbackServer.start(port: port, routes: [])
            try await server.shutdown()
        }
        await #expect(throws: LoopbackServer.ConfigurationError.self) {
            let backend = try await MockBackend.start(port: port)
            try await backend.shutdown()
        }
    }
}
