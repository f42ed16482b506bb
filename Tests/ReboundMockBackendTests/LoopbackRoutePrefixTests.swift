import Testing

@testable import ReboundMockBackend

@Suite struct LoopbackRoutePrefixTests {
    @Test(arguments: [
        ("/v1", "/v1", true),
        ("/v1", "/v1/", true),
        ("/v1", "/v1/tasks/7", true),
        ("/v1", "/v10", false),
        ("/v1", "/v2/tasks", false),
        ("/", "/anything/at/all", true),
    ])
    func aPrefixRouteAnswersItsPathAndEverythingBelow(prefix: String, path: String, matches: Bool) {
        let route = LoopbackRoute(pathPrefix: prefix) { _ in .stall }
        #expect(route.matches(LoopbackRequest(method: "GET", target: path)) == matches)
    }

    @Test func anExactRouteStillAnswersOnlyItsPath() {
        let route = LoopbackRoute("GET", "/v1") { _ in .stall }
        #expect(!route.includesSubpaths)
        #expect(route.matches(LoopbackRequest(method: "HEAD", target: "/v1?x=1")))
        #expect(!route.matches(LoopbackRequest(method: "GET", target: "/v1/tasks")))
        #expect(!route.matches(LoopbackRequest(method: "POST", target: "/v1")))
    }
}
