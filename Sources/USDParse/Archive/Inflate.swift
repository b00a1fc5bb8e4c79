import CZlib

/// The package's only use of zlib: raw-deflate decoding for zip entries and CRC-32.
///
/// Deflated entries are not valid USDZ (USD refuses them), but zip utilities that re-pack packages
/// produce them, so `ZipArchive` inflates them with a warning. Output is bounded by the size the
/// central directory declares; callers charge that size to the memory budget before calling.
enum Inflate {
    /// Bytes handed to zlib per call (zlib's length fields are 32-bit).
    private static let chunk = 1 << 30

    private enum Outcome {
        case finished(produced: Int)
        case truncated(produced: Int)
        case overlong
        case failed(String)
    }

    /// Inflates the raw deflate stream in `input` (no zlib or gzip wrapper) and returns exactly
    /// `expectedSize` bytes.
    ///
    /// - Throws: `USD_DECOMPRESSION_FAILED` when the stream is malformed, ends early, or would produce
    ///   more or fewer bytes than `expectedSize`. Bytes after the end of the stream are ignored.
    static func raw(_ input: ByteView, expectedSize: Int, entry: String) throws(USDParseError) -> [UInt8] {
        guard expectedSize >= 0, let capacity = ZipMath.add(expectedSize, 1) else {
            throw .zip(.decompressionFailed, "invalid declared size \(expectedSize)", entry: entry)
        }
        guard input.count > 0 else {
            throw .zip(.decompressionFailed, "empty deflate stream", entry: entry)
        }
        // One spare byte: a stream that fills it produces more than declared.
        var output = [UInt8](repeating: 0, count: capacity)
        var stream = z_stream()
        let initStatus = inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else {
            throw .zip(.decompressionFailed, "zlib initialisation failed (\(initStatus))", entry: entry)
        }
        defer { inflateEnd(&stream) }

        let outcome: Outcome = input.storage.withUnsafeBytes { inRaw in
            output.withUnsafeMutableBytes { outRaw in
                guard let inBase = inRaw.baseAddress, let outBase = outRaw.baseAddress else {
                    return .failed("no buffer")
                }
                var inPos = input.base
                let inEnd = input.base + input.count
                var outPos = 0
                let outEnd = outRaw.count
                while true {
                    if stream.avail_in == 0, inPos < inEnd {
                        let n = min(inEnd - inPos, chunk)
                        stream.next_in = UnsafeMutablePointer(mutating: inBase.advanced(by: inPos)
                            .assumingMemoryBound(to: Bytef.self))
                        stream.avail_in = uInt(n)
                        inPos += n
                    }
                    if stream.avail_out == 0, outPos < outEnd {
                        let n = min(outEnd - outPos, chunk)
                        stream.next_out = outBase.advanced(by: outPos).assumingMemoryBound(to: Bytef.self)
                        stream.avail_out = uInt(n)
                        outPos += n
                    }
                    let status = inflate(&stream, Z_NO_FLUSH)
                    let produced = outPos - Int(stream.avail_out)
                    switch status {
                    case Z_STREAM_END:
                        return .finished(produced: produced)
                    case Z_OK:
                        continue
                    case Z_BUF_ERROR:
                        // No progress was possible: refill a buffer, or decide why not.
                        if stream.avail_out == 0, outPos >= outEnd { return .overlong }
                        if stream.avail_in == 0, inPos >= inEnd { return .truncated(produced: produced) }
                        if (stream.avail_in == 0 && inPos < inEnd) || (stream.avail_out == 0 && outPos < outEnd) {
                            continue
                        }
                        return .failed("no progress")
                    default:
                        let message = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                        return .failed(message)
                    }
                }
            }
        }

        switch outcome {
        case .finished(let produced) where produced == expectedSize:
            output.removeLast()
            return output
        case .finished(let produced) where produced < expectedSize:
            throw .zip(.decompressionFailed,
                       "deflate stream produced \(produced) bytes; \(expectedSize) declared", entry: entry)
        case .truncated(let produced) where produced < expectedSize:
            throw .zip(.decompressionFailed,
                       "deflate stream ends early after \(produced) of \(expectedSize) declared bytes", entry: entry)
        case .finished, .truncated, .overlong:
            throw .zip(.decompressionFailed,
                       "deflate stream does not end after the \(expectedSize) bytes declared", entry: entry)
        case .failed(let message):
            throw .zip(.decompressionFailed, "invalid deflate stream: \(message)", entry: entry)
        }
    }

    /// CRC-32 (ISO 3309, as used by zip) of the bytes of `view`.
    static func crc32(_ view: ByteView) -> UInt32 {
        view.storage.withUnsafeBytes { raw in crc32(raw, from: view.base, count: view.count) }
    }

    /// CRC-32 of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { raw in crc32(raw, from: 0, count: bytes.count) }
    }

    private static func crc32(_ raw: UnsafeRawBufferPointer, from start: Int, count: Int) -> UInt32 {
        var crc = CZlib.crc32(0, nil, 0)
        guard let base = raw.baseAddress, count > 0 else { return UInt32(truncatingIfNeeded: crc) }
        var pos = start
        var remaining = count
        while remaining > 0 {
            let n = min(remaining, chunk)
            crc = CZlib.crc32(crc, base.advanced(by: pos).assumingMemoryBound(to: Bytef.self), uInt(n))
            pos += n
            remaining -= n
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
