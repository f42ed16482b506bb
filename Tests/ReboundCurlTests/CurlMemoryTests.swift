import CCurl
import HTTPTypes
import Rebound
import Testing

@testable import ReboundCurl

@Suite struct CurlMemoryTests {
    @Test func receiveBuffersAreReusedFromOneTransferToTheNext() async throws {
        try await withLoopback { server, transport in
            // Nothing else in this process initialises libcurl, so it uses CurlMemory's functions.
            let before = CurlMemory.reuseCount
            for _ in 0..<5 {
                let response = try await transport.send(server.request("/echo"))
                #expect(response.status == .ok)
            }
            // Each transfer after the first starts after the one before gave its buffer back, so
            // at least four buffers were handed out again (to these transfers, or to a test running
            // beside them that took one first).
            #expect(CurlMemory.reuseCount >= before + 4)
        }
    }

    @Test func theCacheKeepsAtMostItsLimit() throws {
        let size = CurlMemory.receiveBufferSize
        let blocks = try (0..<(CurlMemory.maxCachedBuffers + 6)).map { _ in
            try #require(CurlMemory.allocate(size))
        }
        for block in blocks { CurlMemory.release(block) }
        #expect(CurlMemory.cachedBufferCount <= CurlMemory.maxCachedBuffers)
        #expect(CurlMemory.cachedBufferCount > 0)
    }
}
