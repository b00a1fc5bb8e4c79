/// USD's integer coding for crate integer tables and compressed integer arrays.
///
/// A coded buffer of `n` values of width `W` (4 or 8 bytes) is: the most common delta (`W` bytes,
/// signed), then `ceil(2n / 8)` bytes of 2-bit codes (element `i` in bits `2*(i%4)` of byte `i/4`),
/// then one signed little-endian delta for every element whose code is not 0. Code 0 means "the
/// common delta"; codes 1, 2, 3 select a delta of 1, 2, 4 bytes (W = 4) or 2, 4, 8 bytes (W = 8).
/// Values are the running (wrapping) sum of the deltas.
enum IntegerCoding {
    /// Size of the codes area for `count` elements.
    @inline(__always) static func codesSize(_ count: Int) -> Int { (count + 3) / 4 }

    /// Smallest coded size for `count` elements (every delta equal to the common one).
    static func minimumCodedSize(count: Int, width: Int) -> Int {
        count == 0 ? 0 : width + codesSize(count)
    }

    /// Largest coded size for `count` elements, or nil on overflow.
    static func worstCaseCodedSize(count: Int, width: Int) -> Int? {
        if count == 0 { return 0 }
        guard let values = Checked.mul(count, width), let a = Checked.add(width, codesSize(count)) else { return nil }
        return Checked.add(a, values)
    }

    /// Decodes `count` 32-bit values. Throws `USD_CORRUPT` when the buffer is too short for what its
    /// codes announce, or has bytes left over.
    static func decode32(_ coded: [UInt8], count: Int) throws(USDParseError) -> [Int32] {
        try decode(coded, count: count, as: Int32.self)
    }

    /// Decodes `count` 64-bit values. Throws `USD_CORRUPT` as `decode32`.
    static func decode64(_ coded: [UInt8], count: Int) throws(USDParseError) -> [Int64] {
        try decode(coded, count: count, as: Int64.self)
    }

    /// Decodes `count` values into an array of `T` (Int32, UInt32, Int64 or UInt64; unsigned values
    /// are the bit patterns of the signed sums).
    static func decode<T: FixedWidthInteger>(_ coded: [UInt8], count: Int, as: T.Type) throws(USDParseError) -> [T] {
        precondition(T.bitWidth == 32 || T.bitWidth == 64)
        var failure: String?
        let out = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard count > 0, let base = buffer.baseAddress else { return }
            let outRaw = UnsafeMutableRawPointer(base)
            coded.withUnsafeBytes { codedRaw in
                if T.bitWidth == 32 {
                    failure = decodeCore(codedRaw, count: count, into: outRaw.assumingMemoryBound(to: Int32.self))
                } else {
                    failure = decodeCore(codedRaw, count: count, into: outRaw.assumingMemoryBound(to: Int64.self))
                }
            }
            if failure == nil { initialized = count }
        }
        if let failure { throw USDParseError(.corrupt, "integer-coded data: \(failure)") }
        if count == 0, !coded.isEmpty {
            throw USDParseError(.corrupt, "integer-coded data: \(coded.count) bytes for zero values")
        }
        return out
    }

    /// Delta sizes in bytes for codes 0...3: 32-bit variant (0, 1, 2, 4), 64-bit variant (0, 2, 4, 8).
    @inline(__always) static func deltaSize(_ code: UInt8, width: Int) -> Int {
        code == 0 ? 0 : (width == 4 ? 1 : 2) << (Int(code) - 1)
    }

    /// Total delta bytes announced by each possible code byte (four codes), per width.
    static let codeByteSizes32: [UInt8] = codeByteSizes(width: 4)
    static let codeByteSizes64: [UInt8] = codeByteSizes(width: 8)

    /// Where the four deltas of each possible code byte lie, per width, one `UInt64` each: bits
    /// 0–7, 8–15 and 16–23 are the offsets of the second, third and fourth delta from the first,
    /// bits 24–31 the four deltas' total size, and bits 32–39 … 56–63 each delta's sign-extension
    /// shift, 64 − 8 × size mod 64.
    static let codeByteLayouts32: [UInt64] = codeByteLayouts(width: 4)
    static let codeByteLayouts64: [UInt64] = codeByteLayouts(width: 8)

    private static func codeByteLayouts(width: Int) -> [UInt64] {
        (0..<256).map { b in
            var entry: UInt64 = 0
            var offset = 0
            for k in 0..<4 {
                let size = deltaSize(UInt8((b >> (2 * k)) & 3), width: width)
                if k > 0 { entry |= UInt64(offset) << (8 * UInt64(k - 1)) }
                entry |= UInt64((64 - 8 * size) & 63) << (32 + 8 * UInt64(k))
                offset += size
            }
            return entry | UInt64(offset) << 24
        }
    }

    private static func codeByteSizes(width: Int) -> [UInt8] {
        (0..<256).map { b in
            UInt8((0..<4).reduce(0) { $0 + deltaSize(UInt8((b >> (2 * $1)) & 3), width: width) })
        }
    }

    /// The decoding loop. `out` must have room for `count` values. Returns a failure reason or nil.
    ///
    /// The codes are scanned first to total the delta bytes they announce; the buffer must hold
    /// exactly `width + codes + deltas` bytes. That single check bounds every delta read of the
    /// decoding pass, which then needs no per-element checks.
    @inline(__always)
    static func decodeCore<S: FixedWidthInteger & SignedInteger>(
        _ coded: UnsafeRawBufferPointer, count: Int, into out: UnsafeMutablePointer<S>
    ) -> String? {
        let width = S.bitWidth / 8
        let codesAt = width
        let codesLen = codesSize(count)
        guard coded.count >= width, coded.count - width >= codesLen, let base = coded.baseAddress else {
            return "\(coded.count) bytes cannot hold \(count) codes"
        }
        let codes = base.advanced(by: codesAt).assumingMemoryBound(to: UInt8.self)

        // Pass 1: total the delta bytes (full code bytes by table, the last partial byte by element).
        let fullBytes = count / 4
        var deltaBytes = 0
        let table = width == 4 ? codeByteSizes32 : codeByteSizes64
        table.withUnsafeBufferPointer { sizes in
            for b in 0..<fullBytes { deltaBytes &+= Int(sizes[Int(codes[b])]) }
        }
        if count % 4 != 0 {
            let last = codes[fullBytes]
            for k in 0..<(count % 4) { deltaBytes &+= deltaSize((last >> (2 * UInt8(k))) & 3, width: width) }
        }
        let vintsAt = codesAt + codesLen
        guard deltaBytes <= coded.count - vintsAt else {
            return "codes announce \(deltaBytes) delta bytes but only \(coded.count - vintsAt) remain"
        }
        guard deltaBytes == coded.count - vintsAt else {
            return "\(coded.count - vintsAt - deltaBytes) bytes left over after \(count) values"
        }

        // Pass 2: decode. Every read below lies inside [vintsAt, coded.count) by the check above.
        let common = S(littleEndian: coded.loadUnaligned(fromByteOffset: 0, as: S.self))
        let end = coded.count
        // Delta byte sizes for codes 0...3, one per byte: (0, 1, 2, 4) or (0, 2, 4, 8).
        let sizeTable: UInt32 = width == 4 ? 0x0402_0100 : 0x0804_0200
        var vp = vintsAt
        var prev: S = 0
        var i = 0
        /// The delta in the low bytes of `raw` (an unaligned 8-byte load at the delta), sign-extended
        /// by `shift` = 64 − 8 × size (mod 64); code 0 selects the common delta.
        @inline(__always) func delta(_ raw: UInt64, shift: UInt64, code: UInt8) -> S {
            let d = S(truncatingIfNeeded: Int64(bitPattern: raw &<< shift) &>> shift)
            return code == 0 ? common : d
        }
        @inline(__always) func load(_ at: Int) -> UInt64 {
            UInt64(littleEndian: coded.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        /// The next delta, reading byte by byte (used near the end of the buffer).
        @inline(__always) func careful(_ code: UInt8) -> S {
            let size = Int((sizeTable >> (8 * UInt32(code))) & 0xFF)
            if size == 0 { return common }
            var v: UInt64 = 0
            for k in 0..<size { v |= UInt64(coded[vp + k]) << (8 * UInt64(k)) }
            let shift = UInt64(64 - 8 * size)
            vp &+= size
            return S(truncatingIfNeeded: Int64(bitPattern: v &<< shift) &>> shift)
        }
        var b = 0
        // A code byte consumes at most 4 × width bytes; while that many (and 8) remain, no
        // per-element check is needed. Each code byte's layout (where its four deltas start, their
        // total and their sign-extension shifts) is one table entry, so the four loads do not wait
        // on one another.
        let maxPerByte = max(8, 4 * width)
        (width == 4 ? codeByteLayouts32 : codeByteLayouts64).withUnsafeBufferPointer { layouts in
            while b < fullBytes {
                let codeByte = codes[b]
                if codeByte == 0 {  // four common deltas read nothing, however few bytes remain
                    out[i] = prev &+ common
                    out[i + 1] = out[i] &+ common
                    out[i + 2] = out[i + 1] &+ common
                    out[i + 3] = out[i + 2] &+ common
                    prev = out[i + 3]
                } else if end - vp < maxPerByte + 8 {
                    // Near the end of the deltas: this code byte's deltas byte by byte.
                    for k in 0..<4 {
                        prev = prev &+ careful((codeByte >> (2 * UInt8(k))) & 3)
                        out[i + k] = prev
                    }
                } else {
                    let e = layouts[Int(codeByte)]
                    let r0 = load(vp)
                    let r1 = load(vp &+ Int(e & 0xFF))
                    let r2 = load(vp &+ Int((e >> 8) & 0xFF))
                    let r3 = load(vp &+ Int((e >> 16) & 0xFF))
                    vp &+= Int((e >> 24) & 0xFF)
                    prev = prev &+ delta(r0, shift: (e >> 32) & 0xFF, code: codeByte & 3)
                    out[i] = prev
                    prev = prev &+ delta(r1, shift: (e >> 40) & 0xFF, code: (codeByte >> 2) & 3)
                    out[i + 1] = prev
                    prev = prev &+ delta(r2, shift: (e >> 48) & 0xFF, code: (codeByte >> 4) & 3)
                    out[i + 2] = prev
                    prev = prev &+ delta(r3, shift: e >> 56, code: codeByte >> 6)
                    out[i + 3] = prev
                }
                i &+= 4
                b &+= 1
            }
        }
        while i < count {
            let codeByte = codes[i >> 2]
            prev = prev &+ careful((codeByte >> (2 * UInt8(i & 3))) & 3)
            out[i] = prev
            i &+= 1
        }
        return nil
    }
}

extension CrateCursor {
    /// Reads a "compressed integer block" (u64 compressed size, then a TfFastCompression stream of
    /// integer-coded data) holding `count` values of `T` (Int32/UInt32 use 32-bit coding,
    /// Int64/UInt64 64-bit coding). The count comes from the caller and must already be capped;
    /// here it is also checked against what the compressed bytes could possibly encode.
    mutating func compressedIntegers<T: FixedWidthInteger>(
        _ count: Int, as: T.Type, what: String, budget: MemoryBudget
    ) throws(USDParseError) -> [T] {
        let at = offset
        let compressedSize = try byteLength("\(what) compressed size")
        let dataAt = offset
        let width = T.bitWidth / 8
        if count == 0 {
            try skip(compressedSize)
            return []
        }
        guard let producible = FastCompression.maxOutput(forCompressed: compressedSize),
              IntegerCoding.minimumCodedSize(count: count, width: width) <= producible,
              let worst = IntegerCoding.worstCaseCodedSize(count: count, width: width)
        else {
            throw USDParseError(
                .corrupt, "\(what): \(count) values cannot be encoded in \(compressedSize) compressed bytes",
                byteOffset: at)
        }
        let coded = try FastCompression.decompress(
            view, offset: dataAt, length: compressedSize, capacity: worst, exact: false, what: what, budget: budget)
        if compressedSize >= 1 << 16 { view.discard(dataAt, compressedSize) }
        try budget.charge(try Checked.bytes(count, width, what), what)
        let values: [T]
        do {
            values = try IntegerCoding.decode(coded, count: count, as: T.self)
        } catch {
            throw USDParseError(.corrupt, "\(what): \(error.message)", byteOffset: dataAt)
        }
        try seek(dataAt + compressedSize)
        return values
    }
}
