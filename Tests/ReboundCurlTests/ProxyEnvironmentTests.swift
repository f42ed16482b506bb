import Testing

@testable import ReboundCurl

@Suite struct ProxyEnvironmentTests {
    @Test(arguments: CurlEasyHandle.proxyVariables)
    func eachProxyVariableThatLibcurlReadsCounts(_ variable: String) {
        #expect(CurlEasyHandle.environmentNamesProxy { $0 == variable ? "http://127.0.0.1:3128" : nil })
    }

    @Test func noneOrOnlyEmptyOrIgnoredVariablesMeanNoProxy() {
        #expect(!CurlEasyHandle.environmentNamesProxy { _ in nil })
        #expect(!CurlEasyHandle.environmentNamesProxy { _ in "" })
        // libcurl ignores HTTP_PROXY (a CGI program gets it from a request header), and no_proxy
        // alone names no proxy.
        let ignored = ["HTTP_PROXY": "http://127.0.0.1:3128", "no_proxy": "*", "NO_PROXY": "*"]
        #expect(!CurlEasyHandle.environmentNamesProxy { ignored[$0] })
    }
}
