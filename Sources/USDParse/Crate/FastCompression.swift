import CLZ4

/// TfFastCompression, the framing USD puts around LZ4 blocks in crate files:
///
/// * byte 0 = `0`: the rest of the stream is one raw LZ4 block;
/// * byte 0 = `n` in 1...127: `n` chunks follow, each an `i32` chunk size and that many bytes of an
///   independent raw LZ4 block decoding to at most `maxChunkSize` bytes.
///
/// The LZ4 block decoding itself is `LZ4_decompress_safe` from liblz4 (this is the only file that
/// touches the C library). Every size is checked before any allocation, and a stream that does not
/// decode to the expected size throws `USD_DECOMPRESSION_FAILED`.
enum FastCompression {
    /// Largest input of one LZ4 call (`LZ4_MAX_INPUT_SIZE`) and so the largest output of one chunk.
    static let maxChunkSize = 0x7E00_0000
    /// Most chunks a stream may declare.
    static let maxChunks = 127

    /// Upper bound on what `compressed` bytes of LZ4 can produce (each input byte yields at most
    /// ~255 output bytes), or nil on overflow.
    static func maxOutput(forCompressed compressed: Int) -> Int? {
        guard let m = Checked.mul(compressed, 255) else { return nil }
        return Checked.add(m, 16)
    }

    /// Decompresses the stream of `length` bytes at `offset` in `view`.
    ///
    /// - Parameters:
    ///   - capacity: the output size. When `exact` is true the stream must produce exactly this many
    ///     bytes; otherwise it is an upper bound (it is further capped by `255 × length + 16`) and the
    ///     returned array holds what was produced.
    ///   - what: names the data in error messages.
    /// - Throws: `USD_TRUNCATED` (stream outside the view), `USD_DECOMPRESSION_FAILED` (bad framing,
    ///   bad LZ4 data, wrong output size, impossible declared size), `USD_LIMIT_EXCEEDED`
    ///   (maxUncompressedBytes) and `USD_MEMORY_BUDGET_EXCEEDED`; the budget is charged before allocating.
    static func decompress(
        _ view: ByteView, offset: Int, length: Int, capacity: Int, exact: Bool, what: String, budget: MemoryBudget
    ) throws(USDParseError) -> [UInt8] {
        guard view.contains(offset: offset, length: length) else {
            throw USDParseError(
                .truncated, "\(what): compressed stream of \(length) bytes at offset \(offset) runs past the end",
                byteOffset: offset)
        }
        guard length >= 1 else {
            throw USDParseError(.decompressionFailed, "\(what): empty compressed stream", byteOffset: offset)
        }
        guard capacity >= 0, let bound = maxOutput(forCompressed: length) else {
            throw USDParseError(.decompressionFailed, "\(what): invalid output size \(capacity)", byteOffset: offset)
        }
        var outSize = capacity
        if capacity > bound {
            guard !exact else {
                throw USDParseError(
                    .decompressionFailed,
                    "\(what): declared size \(capacity) cannot come from \(length) compressed bytes (max \(bound))",
                    byteOffset: offset)
            }
            outSize = bound
        }
        try budget.chargeDecompressed(outSize, what)
        try budget.charge(outSize, what)

        var failure: String?
        let start = view.base + offset
        let output = [UInt8](unsafeUninitializedCapacity: outSize) { out, initialized in
            initialized = 0
            view.storage.withUnsafeBytes { raw in
                let input = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                switch decodeStream(input, into: UnsafeMutableRawBufferPointer(out)) {
                case .success(let produced): initialized = produced
                case .failure(let reason): failure = reason
                }
            }
        }
        if let failure {
            throw USDParseError(.decompressionFailed, "\(what): \(failure)", byteOffset: offset)
        }
        if exact, output.count != capacity {
            throw USDParseError(
                .decompressionFailed, "\(what): produced \(output.count) bytes, expected \(capacity)", byteOffset: offset)
        }
        return output
    }

    enum Outcome { case success(Int), failure(String) }

    /// Decodes a whole TfFastCompression stream into `out`; returns the number of bytes produced.
    static func decodeStream(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Outcome {
        guard let first = input.first else { return .failure("empty compressed stream") }
        let nChunks = Int(first)
        if nChunks == 0 {
            guard out.count <= maxChunkSize else {
                return .failure("single-chunk stream cannot produce \(out.count) bytes")
            }
            return decodeBlock(UnsafeRawBufferPointer(rebasing: input[1...]), into: out)
        }
        guard nChunks <= maxChunks else { return .failure("chunk count byte \(nChunks) exceeds \(maxChunks)") }
        var pos = 1
        var produced = 0
        for chunk in 0..<nChunks {
            guard input.count - pos >= 4 else { return .failure("chunk \(chunk) header runs past the end") }
            let size = Int(Int32(littleEndian: input.loadUnaligned(fromByteOffset: pos, as: Int32.self)))
            pos += 4
            guard size > 0, size <= input.count - pos, size <= maxChunkSize else {
                return .failure("chunk \(chunk) size \(size) is invalid (\(input.count - pos) bytes remain)")
            }
            let room = min(out.count - produced, maxChunkSize)
            let dst = UnsafeMutableRawBufferPointer(rebasing: out[produced..<(produced + room)])
            switch decodeBlock(UnsafeRawBufferPointer(rebasing: input[pos..<(pos + size)]), into: dst) {
            case .success(let n): produced += n
            case .failure(let reason): return .failure("chunk \(chunk): \(reason)")
            }
            pos += size
        }
        guard pos == input.count else { return .failure("\(input.count - pos) trailing bytes after the last chunk") }
        return .success(produced)
    }

    /// Walks the block's sequence headers (not the data) and reports a match offset of 0. The LZ4
    /// format forbids it, but liblz4 accepts it and then copies not-yet-written output bytes, which
    /// would leak uninitialized memory into decoded values. Also reports headers that run past the
    /// input. Cost: one step per sequence, plus one per length-extension byte.
    static func zeroOffsetScan(_ input: UnsafeRawBufferPointer) -> String? {
        let n = input.count
        var ip = 0
        while ip < n {
            let token = input[ip]
            ip += 1
            var literals = Int(token >> 4)
            if literals == 15 {
                var b: UInt8
                repeat {
                    guard ip < n else { return "LZ4 literal length runs past the end" }
                    b = input[ip]
                    ip += 1
                    literals += Int(b)
                } while b == 255
            }
            guard literals <= n - ip else { return "LZ4 literals run past the end" }
            ip += literals
            if ip == n { return nil }
            guard n - ip >= 2 else { return "LZ4 match offset runs past the end" }
            if input[ip] == 0 && input[ip + 1] == 0 { return "LZ4 match offset 0" }
            ip += 2
            if token & 0x0F == 0x0F {
                var b: UInt8
                repeat {
                    guard ip < n else { return "LZ4 match length runs past the end" }
                    b = input[ip]
                    ip += 1
                } while b == 255
            }
        }
        return "LZ4 block ends with a match"
    }

    /// Decodes one raw LZ4 block (no frame header) into `out` with `LZ4_decompress_safe`.
    static func decodeBlock(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Outcome {
        guard input.count <= Int(Int32.max), out.count <= Int(Int32.max) else {
            return .failure("LZ4 block too large")
        }
        guard let src = input.baseAddress, input.count > 0 else { return .failure("empty LZ4 block") }
        if let problem = zeroOffsetScan(input) { return .failure(problem) }
        var scratch: UInt8 = 0
        let n: Int32 = withUnsafeMutablePointer(to: &scratch) { scratchPtr in
            let dst = out.baseAddress ?? UnsafeMutableRawPointer(scratchPtr)
            return LZ4_decompress_safe(
                src.assumingMemoryBound(to: CChar.self), dst.assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(out.count))
        }
        guard n >= 0 else { return .failure("malformed LZ4 block (liblz4 error \(n))") }
        return .success(Int(n))
    }
}
