import Rebound
import TestSupport
import Testing

@Suite struct UntrustedTextTests {
    @Test func aTokenCutByTheLengthLimitIsNotShownInPart() {
        // Cut first and screened after, a token across the limit left a piece too short to look
        // like a secret: up to 23 of its characters came out.
        let token = "sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq"
        for start in UntrustedText.messageLimit - 20...UntrustedText.messageLimit - 5 {
            let text = String(repeating: "x", count: start - 4) + " is " + token
            #expect(!UntrustedText.message(text).contains(token.prefix(5)), "token at \(start)")
        }
        for start in UntrustedText.identifierLimit - 20...UntrustedText.identifierLimit - 5 {
            let text = String(repeating: "a", count: start - 1) + " " + token
            #expect(!UntrustedText.identifier(text).contains(token.prefix(5)), "token at \(start)")
        }
    }

    /// A URL as a tool shows it: the value of a parameter named like a credential goes whatever it
    /// looks like, a path segment or a value that looks like a token goes whatever it is named,
    /// user information goes, and the rest stays as typed.
    @Test(arguments: [
        ("http://h/x?access_token=SECRET", "http://h/x?access_token=<redacted>"),
        ("http://h/x?access_token=SECRET&limit=20", "http://h/x?access_token=<redacted>&limit=20"),
        ("http://h/x?limit=20;api_key=SECRET;page=2", "http://h/x?limit=20;api_key=<redacted>;page=2"),
        (
            "http://h/x?Password=SECRET&X-Amz-Signature=SECRET",
            "http://h/x?Password=<redacted>&X-Amz-Signature=<redacted>"
        ),
        ("http://h/x?client%5Fsecret=SECRET", "http://h/x?client%5Fsecret=<redacted>"),
        (
            "http://h/x?sig=SECRET&key=SECRET&sessionid=SECRET",
            "http://h/x?sig=<redacted>&key=<redacted>&sessionid=<redacted>"
        ),
        ("http://h/cb#access_token=SECRET&expires_in=3600", "http://h/cb#access_token=<redacted>&expires_in=3600"),
        ("http://h/x?token=", "http://h/x?token="),
        (
            "https://h/files/ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4/raw?x=1",
            "https://h/files/<redacted>/raw?x=1"
        ),
        ("https://h/x?q=ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4&y=2", "https://h/x?q=<redacted>&y=2"),
        // Percent-encoding cuts a token into short runs; it is looked at decoded.
        ("https://h/x?q=ya29a0AfH6%2BSMBx3kQz9vLq8R7pN2cD4", "https://h/x?q=<redacted>"),
        ("https://h/x?ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4", "https://h/x?<redacted>"),
        ("http://u:SECRET@h:8080/x", "http://***@h:8080/x"),
        ("u:SECRET@h/x", "***@h/x"),
        ("http://u:SECRET/PW@h/", "http://***@h/"),
        ("http://h/\u{1B}[2J?a=\r\n", "http://h/\\u{1B}[2J?a=\\u{D}\\u{A}"),
        // What is not secret stays exactly as typed: the host, the path, ordinary parameters.
        (
            "https://a-long-hostname-with-digits-123456.example.com:8443/v1/tasks?limit=20&code=404#top",
            "https://a-long-hostname-with-digits-123456.example.com:8443/v1/tasks?limit=20&code=404#top"
        ),
        (
            "https://api.example.com/v1/tasks/%20a?q=%C3%A9t%C3%A9",
            "https://api.example.com/v1/tasks/%20a?q=%C3%A9t%C3%A9"
        ),
        ("not a url", "not a url"),
        // A value that is itself a URL or a query string is screened as one, percent-encoded or not.
        ("https://h/login?next=/reset?token=SECRET", "https://h/login?next=/reset?token=<redacted>"),
        ("https://h/login?next=https://x/cb?token=SECRET#a", "https://h/login?next=https://x/cb?token=<redacted>#a"),
        ("https://h/login?next=https%3A%2F%2Fx%2Fcb%3Ftoken%3DSECRET&y=2", "https://h/login?next=<redacted>&y=2"),
        (
            "https://h/login?next=https%3A%2F%2Fx%2Fcb%3Fpage%3D2",
            "https://h/login?next=https%3A%2F%2Fx%2Fcb%3Fpage%3D2"
        ),
        ("https://h/x?state=token%3DSECRET", "https://h/x?state=<redacted>"),
        // Path parameters are parameters.
        ("https://h/app;jsessionid=SECRET0123456789ABCDEF/x", "https://h/app;jsessionid=<redacted>/x"),
        ("https://h/app;token=SECRET;v=2", "https://h/app;token=<redacted>;v=2"),
        // Short credential names: a password, OAuth's authorization code (a status code stays).
        ("https://h/x?pw=SECRET&user=a", "https://h/x?pw=<redacted>&user=a"),
        ("https://h/cb?code=SplxlOBeZQQYbYS6WxSbIA-SECRET&state=xyz", "https://h/cb?code=<redacted>&state=xyz"),
        ("https://h/cb?code=123456SECRET", "https://h/cb?code=<redacted>"),
        ("https://h/status?code=503", "https://h/status?code=503"),
    ])
    func aURLIsShownWithoutItsSecrets(url: String, shown: String) {
        let screened = UntrustedText.url(url)

        #expect(screened == shown)
        #expect(!screened.contains("SECRET"))
        // Screening what is already screened changes nothing.
        #expect(UntrustedText.url(screened) == screened)
    }

    /// A token glued to an `@` that does not make an e-mail address (no dot after it) is still a
    /// token (found by the untrusted-text and backend-error fuzzers).
    @Test(arguments: [
        ("sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq@for", "<redacted>"),
        ("bad key @sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq", "bad key <redacted>"),
        ("a@sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq@b, retry", "<redacted>, retry"),
        ("ask @support or me@home", "ask @support or me@home"),
    ])
    func aTokenGluedToAnAtSignIsRedacted(text: String, screened: String) {
        #expect(UntrustedText.redactingLikelySecrets(text) == screened)
    }

    /// Nesting is screened to a bounded depth, so adversarial input costs linear time; what is
    /// nested deeper than that is hidden whole. (Speed is measured in release mode, not asserted
    /// here: a super-linear blow-up on these 128 KB inputs would not finish.)
    @Test func deeplyNestedURLsAreHiddenAndLongInputsStayLinear() async {
        let deep = "https://h/a?n=" + String(repeating: "/b?n=", count: 20) + "/c?token=SECRET"
        #expect(!UntrustedText.url(deep).contains("SECRET"))
        // Seconds of work under the thread sanitizer: on a thread of its own, not one of the two
        // that every other test of the run shares.
        let shown = await onOwnThread {
            ["?a=", "/b?n=", ";a=", "%3F", "a://", "x@", "=&;", "next=/r?"].map { unit in
                UntrustedText.url("https://h/" + String(repeating: unit, count: 128 * 1024 / unit.count))
            }
        }
        #expect(shown.allSatisfy { !$0.isEmpty })
    }
}
