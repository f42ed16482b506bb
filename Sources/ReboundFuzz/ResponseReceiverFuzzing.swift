import HTTPTypes
import Rebound
import ReboundCurl

/// The transport's response receiver fed header lines and body bytes as libcurl hands them over,
/// and the head parser on every line and on the head kept.
///
/// The input's first byte says whether the request is a HEAD (bit 0), its second the body limit
/// (× 4 bytes); the rest is cut after each LF, and a piece that starts with a NUL byte is body
/// bytes, any other a header line.
///
/// Contract: the body never grows past the limit, and the receiver ends the transfer with
/// `bodyTooLarge` exactly when the bytes offered would; it counts as progress no more than it was
/// given; a status code has three digits; a `Content-Length` line reads as no length, a conflict
/// or a length of at least zero; and the response's reason phrase and fields (valid names) hold no
/// CR, LF or NUL, so that nothing a server sends can split a header.
enum ResponseReceiverFuzzing {
    static func violations(_ input: [UInt8]) -> [String] {
        guard input.count >= 2 else { return [] }
        let maxBodySize = Int(input[1]) * 4
        var receiver = ResponseReceiver(answersHead: input[0] & 1 == 1, maxBodySize: maxBodySize)
        var violations: [String] = []
        var offered = 0
        var bodyOffered = 0
        for piece in pieces(input.dropFirst(2)) {
            let action: ResponseReceiver.Action
            if piece.first == 0 {
                let bytes = Array(piece.dropFirst())
                bodyOffered += bytes.count
                action = bytes.withUnsafeBytes { receiver.receiveBody($0) }
                if (action == .abort) != (bodyOffered > maxBodySize) {
                    violations.append("\(bodyOffered) body bytes offered, limit \(maxBodySize): \(action)")
                }
                if action == .proceed { offered += bytes.count }
            } else {
                let line = Array(piece)
                offered += line.count
                violations += lineViolations(line)
                action = line.withUnsafeBytes { receiver.receiveHeaderLine($0) }
            }
            if receiver.body.count > maxBodySize {
                violations.append("a body of \(receiver.body.count) bytes past the limit of \(maxBodySize)")
            }
            if action == .abort { break }
        }
        if receiver.bytesReceived > offered {
            violations.append("\(receiver.bytesReceived) bytes counted of \(offered) received")
        }
        if !(0...999).contains(receiver.statusCode) {
            violations.append("status code \(receiver.statusCode)")
        }
        violations += headViolations(receiver.response(status: receiver.statusCode, info: TransferInfo()).head)
        return violations
    }

    /// The head as the transport's callers see it: the status with its reason phrase, the fields.
    static func headViolations(_ head: HTTPResponse) -> [String] {
        var violations: [String] = []
        if head.status.reasonPhrase.utf8.contains(where: isForbidden) {
            violations.append("reason phrase \(head.status.reasonPhrase.debugDescription)")
        }
        for field in head.headerFields {
            if field.value.utf8.contains(where: isForbidden) || HTTPField.Name(field.name.rawName) == nil {
                violations.append("field \(field.name.rawName.debugDescription): \(field.value.debugDescription)")
            }
        }
        return violations
    }

    /// The input cut after each LF, as libcurl's header callback hands lines over.
    static func pieces(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.endIndex
            pieces.append(bytes[start..<end])
            start = end
        }
        return pieces
    }

    static func lineViolations(_ line: [UInt8]) -> [String] {
        line.withUnsafeBytes { bytes in
            var violations: [String] = []
            if let status = ResponseHeadParser.statusCode(ofStatusLine: bytes),
                !(0...999).contains(status) || !line.starts(with: "HTTP/".utf8)
            {
                violations.append("status \(status) read in \(String(decoding: line, as: UTF8.self).debugDescription)")
            }
            if let length = ResponseHeadParser.announcedLength(inFieldLine: bytes),
                length < 0 && length != ResponseHeadParser.conflictingLengths
            {
                violations.append("length \(length) read in \(String(decoding: line, as: UTF8.self).debugDescription)")
            }
            return violations
        }
    }

    static func isForbidden(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }
}
