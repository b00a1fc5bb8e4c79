/// A forward cursor over the byte range `[offset, end)` of a crate file. Offsets are absolute
/// (relative to the first byte of the crate view), so errors name real file positions. Every read
/// is checked against `end` (a section's end, or the end of the file for value data) and throws
/// `USD_TRUNCATED` without moving the cursor.
struct CrateCursor {
    let view: ByteView
    private(set) var offset: Int
    let end: Int

    /// A cursor over `[offset, end)`; throws `USD_TRUNCATED` when the range is not inside the view.
    init(_ view: ByteView, offset: Int, end: Int) throws(USDParseError) {
        guard offset >= 0, end >= offset, end <= view.count else {
            throw USDParseError(
                .truncated, "range \(offset)..<\(end) is outside the \(view.count)-byte file", byteOffset: offset)
        }
        self.view = view
        self.offset = offset
        self.end = end
    }

    /// A cursor from `offset` to the end of the file.
    init(_ view: ByteView, at offset: Int) throws(USDParseError) {
        try self.init(view, offset: offset, end: view.count)
    }

    var remaining: Int { end - offset }

    @inline(__always)
    func need(_ length: Int, _ what: @autoclosure () -> String = "value") throws(USDParseError) {
        guard length >= 0, length <= end - offset else {
            throw USDParseError(
                .truncated, "\(what()) needs \(length) bytes at offset \(offset) but only \(max(0, end - offset)) remain",
                byteOffset: offset)
        }
    }

    @inline(__always) mutating func u8() throws(USDParseError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return try view.u8(offset)
    }

    @inline(__always) mutating func u32() throws(USDParseError) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return try view.u32(offset)
    }

    @inline(__always) mutating func u64() throws(USDParseError) -> UInt64 {
        try need(8)
        defer { offset += 8 }
        return try view.u64(offset)
    }

    @inline(__always) mutating func i32() throws(USDParseError) -> Int32 { Int32(bitPattern: try u32()) }
    @inline(__always) mutating func i64() throws(USDParseError) -> Int64 { Int64(bitPattern: try u64()) }
    @inline(__always) mutating func f64() throws(USDParseError) -> Double { Double(bitPattern: try u64()) }

    /// Skips `length` bytes.
    mutating func skip(_ length: Int) throws(USDParseError) {
        try need(length)
        offset += length
    }

    /// Moves to an absolute offset inside `[start of view, end]`.
    mutating func seek(_ to: Int) throws(USDParseError) {
        guard to >= 0, to <= end else {
            throw USDParseError(.truncated, "seek to \(to) past the end (\(end))", byteOffset: to)
        }
        offset = to
    }

    /// Reads a u64 size field (a byte length) and checks it fits in the remaining bytes.
    mutating func byteLength(_ what: String) throws(USDParseError) -> Int {
        let at = offset
        let raw = try u64()
        guard raw <= UInt64(max(0, end - offset)) else {
            offset = at
            throw USDParseError(
                .truncated, "\(what) of \(raw) bytes at offset \(at) runs past the end (\(end - at - 8) bytes remain)",
                byteOffset: at)
        }
        return Int(raw)
    }

    /// Reads a u64 element count, checks it against the limit `capName` (value `cap`) and, when
    /// `minItemBytes > 0`, against the bytes that remain (each item needs at least that many bytes).
    mutating func count(_ what: String, cap: Int, capName: String, minItemBytes: Int) throws(USDParseError) -> Int {
        let at = offset
        let raw = try u64()
        return try Self.checkCount(raw, what, at: at, cap: cap, capName: capName, minItemBytes: minItemBytes,
                                   remaining: end - offset)
    }

    /// Like `count` for a u32 count field.
    mutating func count32(_ what: String, cap: Int, capName: String, minItemBytes: Int) throws(USDParseError) -> Int {
        let at = offset
        let raw = try u32()
        return try Self.checkCount(UInt64(raw), what, at: at, cap: cap, capName: capName, minItemBytes: minItemBytes,
                                   remaining: end - offset)
    }

    static func checkCount(
        _ raw: UInt64, _ what: String, at: Int, cap: Int, capName: String, minItemBytes: Int, remaining: Int
    ) throws(USDParseError) -> Int {
        guard raw <= UInt64(max(0, cap)) else {
            throw USDParseError(
                .limitExceeded, "\(what) count \(raw) at offset \(at) exceeds limits.\(capName) (\(cap))", byteOffset: at)
        }
        let n = Int(raw)
        if minItemBytes > 0, n > remaining / minItemBytes {
            throw USDParseError(
                .truncated,
                "\(what) count \(n) at offset \(at) needs at least \(minItemBytes) bytes each but only \(remaining) remain",
                byteOffset: at)
        }
        return n
    }
}

extension ByteView {
    /// Gives `body` the raw bytes of `[offset, offset + length)` after one bounds check; `body`
    /// cannot throw, so callers report failures through its result.
    @inline(__always)
    func withCheckedBytes<R>(
        _ offset: Int, _ length: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(USDParseError) -> R {
        try check(offset, length)
        let start = base + offset
        return storage.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]))
        }
    }
}

/// Overflow-checked arithmetic on numbers read from a file. Each returns nil on overflow.
enum Checked {
    @inline(__always) static func mul(_ a: Int, _ b: Int) -> Int? {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : r
    }

    @inline(__always) static func add(_ a: Int, _ b: Int) -> Int? {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }

    /// `count * size`, or a `USD_LIMIT_EXCEEDED` error naming `what` when it overflows.
    static func bytes(_ count: Int, _ size: Int, _ what: @autoclosure () -> String) throws(USDParseError) -> Int {
        guard let r = mul(count, size) else {
            throw USDParseError(.limitExceeded, "\(what()): \(count) × \(size) bytes overflows")
        }
        return r
    }
}
