/// An immutable, bounds-checked view of a byte range of a shared buffer. Slicing shares storage
/// (no copy). All reads are little-endian, unaligned-safe and throw `USD_TRUNCATED` when they
/// would leave the view. Offsets are relative to the view's first byte.
public struct ByteView: Sendable {
    /// The whole underlying buffer (shared, copy-on-write; never mutated).
    public let storage: [UInt8]
    /// First byte of this view inside `storage`.
    public let base: Int
    /// Length of the view in bytes.
    public let count: Int

    public init(_ bytes: [UInt8]) {
        self.storage = bytes
        self.base = 0
        self.count = bytes.count
    }

    private init(storage: [UInt8], base: Int, count: Int) {
        self.storage = storage
        self.base = base
        self.count = count
    }

    /// True when `[offset, offset + length)` lies inside the view (overflow-safe).
    @inline(__always)
    public func contains(offset: Int, length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= count && length <= count - offset
    }

    @inline(__always)
    func check(_ offset: Int, _ length: Int) throws(USDParseError) {
        guard contains(offset: offset, length: length) else {
            throw USDParseError(.truncated, "read of \(length) bytes at offset \(offset) past the end (\(count) bytes)",
                                byteOffset: offset)
        }
    }

    /// A sub-view `[offset, offset + length)`.
    public func slice(_ offset: Int, _ length: Int) throws(USDParseError) -> ByteView {
        try check(offset, length)
        return ByteView(storage: storage, base: base + offset, count: length)
    }

    /// Copies `length` bytes at `offset`.
    public func bytes(_ offset: Int, _ length: Int) throws(USDParseError) -> [UInt8] {
        try check(offset, length)
        return Array(storage[(base + offset)..<(base + offset + length)])
    }

    /// The view's bytes as a new array.
    public var array: [UInt8] { Array(storage[base..<(base + count)]) }

    /// Gives `body` the raw bytes of `[offset, offset + length)`.
    public func withBytes<R>(
        _ offset: Int, _ length: Int, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try check(offset, length)
        return try storage.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[(base + offset)..<(base + offset + length)]))
        }
    }

    @inline(__always)
    public func u8(_ o: Int) throws(USDParseError) -> UInt8 {
        try check(o, 1)
        return storage[base + o]
    }

    @inline(__always)
    public func u16(_ o: Int) throws(USDParseError) -> UInt16 {
        try check(o, 2)
        let p = base + o
        return UInt16(storage[p]) | UInt16(storage[p + 1]) << 8
    }

    @inline(__always)
    public func u32(_ o: Int) throws(USDParseError) -> UInt32 {
        try check(o, 4)
        return storage.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: base + o, as: UInt32.self)) }
    }

    @inline(__always)
    public func u64(_ o: Int) throws(USDParseError) -> UInt64 {
        try check(o, 8)
        return storage.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: base + o, as: UInt64.self)) }
    }

    @inline(__always) public func i32(_ o: Int) throws(USDParseError) -> Int32 { Int32(bitPattern: try u32(o)) }
    @inline(__always) public func i64(_ o: Int) throws(USDParseError) -> Int64 { Int64(bitPattern: try u64(o)) }
    @inline(__always) public func f32(_ o: Int) throws(USDParseError) -> Float { Float(bitPattern: try u32(o)) }
    @inline(__always) public func f64(_ o: Int) throws(USDParseError) -> Double { Double(bitPattern: try u64(o)) }

    /// True when the view starts with `prefix`.
    public func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard prefix.count <= count else { return false }
        for (i, b) in prefix.enumerated() where storage[base + i] != b { return false }
        return true
    }
}

/// A forward cursor over a `ByteView`. Reads advance `offset`; a failed read throws and leaves
/// the cursor where it was.
public struct ByteReader: Sendable {
    public let view: ByteView
    public var offset: Int

    public init(_ view: ByteView, offset: Int = 0) {
        self.view = view
        self.offset = offset
    }

    public var remaining: Int { view.count - offset }

    public mutating func u8() throws(USDParseError) -> UInt8 { let v = try view.u8(offset); offset += 1; return v }
    public mutating func u16() throws(USDParseError) -> UInt16 { let v = try view.u16(offset); offset += 2; return v }
    public mutating func u32() throws(USDParseError) -> UInt32 { let v = try view.u32(offset); offset += 4; return v }
    public mutating func u64() throws(USDParseError) -> UInt64 { let v = try view.u64(offset); offset += 8; return v }
    public mutating func i32() throws(USDParseError) -> Int32 { let v = try view.i32(offset); offset += 4; return v }
    public mutating func i64() throws(USDParseError) -> Int64 { let v = try view.i64(offset); offset += 8; return v }
    public mutating func f32() throws(USDParseError) -> Float { let v = try view.f32(offset); offset += 4; return v }
    public mutating func f64() throws(USDParseError) -> Double { let v = try view.f64(offset); offset += 8; return v }

    /// A sub-view of the next `length` bytes; advances past them.
    public mutating func slice(_ length: Int) throws(USDParseError) -> ByteView {
        let v = try view.slice(offset, length)
        offset += length
        return v
    }

    /// Moves to an absolute offset inside the view.
    public mutating func seek(_ to: Int) throws(USDParseError) {
        guard to >= 0, to <= view.count else {
            throw USDParseError(.truncated, "seek to \(to) outside \(view.count) bytes", byteOffset: to)
        }
        offset = to
    }
}
