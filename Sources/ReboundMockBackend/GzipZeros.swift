/// A gzip stream (RFC 1952) that inflates to a given number of zero bytes, made by hand: a
/// compression bomb of any size for ``LoopbackFault/compressionBomb(inflatedSize:)``.
///
/// The deflate data (RFC 1951) is one block with the fixed Huffman codes: a literal zero, then
/// back-references of 258 bytes at distance 1, 13 bits each, so the stream is about 1/160 of
/// what it inflates to (1 MiB from 6.4 KiB). The module has no zlib to ask, and needs none for
/// this one shape.
enum GzipZeros {
    /// The gzip stream of `count` zero bytes (at least 1).
    static func stream(inflatingTo count: Int) -> [UInt8] {
        let count = max(1, count)
        // ID1 ID2, CM = deflate, no flags, no modification time, no extra flags, OS unknown.
        var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL: the last block
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.writeCode(0x30, length: 8)  // the literal byte 0
        let (references, literals) = (count - 1).quotientAndRemainder(dividingBy: 258)
        for _ in 0..<references {
            bits.writeCode(0xC5, length: 8)  // length 258 (symbol 285), no extra bits
            bits.writeCode(0, length: 5)  // distance 1 (code 0), no extra bits
        }
        for _ in 0..<literals {
            bits.writeCode(0x30, length: 8)
        }
        bits.writeCode(0, length: 7)  // end of block (symbol 256)
        bytes += bits.finish()
        bytes += littleEndian(crc32OfZeros(count))
        bytes += littleEndian(UInt32(truncatingIfNeeded: count))
        return bytes
    }

    /// The CRC-32 (the gzip and zlib polynomial) of `count` zero bytes.
    private static func crc32OfZeros(_ count: Int) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count {
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Packs bits as deflate does: from the least significant bit of each byte up.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var used = 0

        /// Writes the low `count` bits of `value`, least significant first (header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count {
                append(bit: (value >> UInt32(index)) & 1)
            }
        }

        /// Writes a Huffman code of `length` bits, most significant first, as RFC 1951 stores them.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) {
                append(bit: (code >> UInt32(index)) & 1)
            }
        }

        private mutating func append(bit: UInt32) {
            current |= bit << UInt32(used)
            used += 1
            if used == 8 {
                bytes.append(UInt8(current))
                (current, used) = (0, 0)
            }
        }

        /// The bytes written, the last one padded with zero bits.
        mutating func finish() -> [UInt8] {
            if used > 0 {
                bytes.append(UInt8(current))
                (current, used) = (0, 0)
            }
            return bytes
        }
    }
}
