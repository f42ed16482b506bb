import Foundation
import Testing

/// One text compressed three ways (by gzip, brotli and zstd command-line tools), as a server would send it.
struct CompressedFixture: Sendable, CustomTestStringConvertible {
    static let plainText = String(repeating: "Rebound decodes compressed responses transparently. ", count: 40)

    static let all = [
        CompressedFixture(
            encoding: "gzip",
            base64:
                "H4sIAAAAAAACA+3LwQ3AMAgEwVaoIMW4A8fczwEEziPd23VE91pppWm4/TUVxXBFyfAnElVQOQm3OnNlt4qesDW/SxoNDQ0NDQ3Nr80GVBWZxCAIAAA="
        ),
        CompressedFixture(encoding: "br", base64: "Hx8ICEUnR3qgDAJ9t9rhFGzAkQZGgSw8+SR0p1y8obRSY0Q3oG9SShuAm75foA=="),
        CompressedFixture(
            encoding: "zstd",
            base64: "KLUv/QRorQEAQsMKENDnUITIJ0VmLIVmixYhtAUFqRxzCryJPL1vh3e2/DvRHOldR1wtQzccAgEAlP79FRQrYg81"
        ),
    ]

    var encoding: String
    var base64: String

    var compressed: Data { Data(base64Encoded: base64)! }
    var testDescription: String { encoding }
}
