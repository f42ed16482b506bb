import CCurl
import Glibc
import HTTPTypes
import Rebound
import Testing

@testable import ReboundCurl

@Suite struct CurlMemoryTests {
    // Each in a process of its own: libcurl is initialised once per process, by whichever comes first.

    @Test func receiveBuffersAreReusedFromOneTransferToTheNextWhenTheAppOptsIn() async {
        await #expect(processExitsWith: .success) {
            guard CurlTransport.reuseReceiveBuffers() else { exit(2) }
            try await withLoopback { server, transport in
                for _ in 0..<5 {
                    guard try await transport.send(server.request("/echo")).status == .ok else { exit(3) }
                }
            }
            // Each transfer after the first starts after the one before gave its buffer back.
            // libcurl 8 keeps one receive buffer per multi handle and allocates none per transfer.
            let reused = CurlGlobal.versionNumber < 0x08_00_00 ? CurlMemory.reuseCount >= 4 : CurlMemory.reuseCount == 0
            exit(reused ? 0 : 1)
        }
    }

    @Test func libcurlKeepsTheCLibrarysFunctionsUnlessTheAppOptsInFirst() async {
        await #expect(processExitsWith: .success) {
            try await withLoopback { server, transport in
                for _ in 0..<5 {
                    guard try await transport.send(server.request("/echo")).status == .ok else { exit(3) }
                }
            }
            // Too late once a transport initialised libcurl.
            guard !CurlTransport.reuseReceiveBuffers() else { exit(2) }
            exit(CurlMemory.reuseCount == 0 ? 0 : 1)
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
