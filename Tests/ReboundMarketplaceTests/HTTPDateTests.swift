import Testing

@testable import ReboundMarketplace

@Suite struct HTTPDateTests {
    @Test(arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func formatsIMFFixdates(seconds: Int64, expected: String) {
        #expect(HTTPDate.format(secondsSince1970: seconds) == expected)
    }
}
