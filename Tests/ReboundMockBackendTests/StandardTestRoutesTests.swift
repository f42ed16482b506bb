import ReboundMockBackend
import TestSupport
import Testing

/// The shared test routes against parameters no well-behaved test sends.
@Suite struct StandardTestRoutesTests {
    @Test(arguments: ["%0D%0AX-Injected:%201", "%0AX-Injected:%201", "%0D", "%00", "%01", "%1F", "%7F"])
    func aRedirectLocationWithAControlCharacterGets400SayingWhy(escaped: String) async throws {
        let server = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)

        let answer = try await exchange("/redirect-to?location=/next\(escaped)", port: server.port)

        #expect(answer.hasPrefix("HTTP/1.1 400 "))
        #expect(answer.contains("location must not contain control characters"))
        #expect(!answer.contains("Location:"))
        #expect(!answer.contains("X-Injected"))
        try await server.shutdown()
    }

    @Test func aRedirectLocationWithATabOrNonASCIILettersIsSentAsGiven() async throws {
        let server = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)

        let answer = try await exchange("/redirect-to?location=/caf%C3%A9%09x&code=307", port: server.port)

        #expect(answer.hasPrefix("HTTP/1.1 307 "))
        #expect(answer.contains("Location: /café\tx\r\n"))
        try await server.shutdown()
    }
}
