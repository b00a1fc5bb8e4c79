/// Immutable bytes in memory that never move: an owned copy, or memory supplied by the caller
/// (for example a read-only file mapping) together with the function that releases it.
public final class ByteStorage: @unchecked Sendable {
    /// The bytes. Valid for the lifetime of this object; never written.
    public let bytes: UnsafeRawBufferPointer
    private let release: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    private let discarder: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    private let owned: UnsafeMutableRawBufferPointer?

    /// Copies `array` into storage owned by this object.
    public init(copying array: [UInt8]) {
        let m = UnsafeMutableRawBufferPointer.allocate(byteCount: max(array.count, 1), alignment: 16)
        array.withUnsafeBytes { src in
            if let b = src.baseAddress, src.count > 0 { m.baseAddress!.copyMemory(from: b, byteCount: src.count) }
        }
        self.bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(m)[0..<array.count])
        self.owned = m
        self.release = nil
        self.discarder = nil
    }

    /// Adopts memory the caller set up (e.g. `mmap`); `release` runs once when the storage dies.
    /// `discard`, when given, may drop whole pages of a range from memory after the parser copied
    /// them out (a read-only file mapping re-reads them from the file if they are touched again).
    public init(
        adopting bytes: UnsafeRawBufferPointer, release: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        discard: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        self.bytes = bytes
        self.release = release
        self.discarder = discard
        self.owned = nil
    }

    /// Hints that `[offset, offset + length)` will not be read again soon (see `init(adopting:)`).
    public func discard(_ offset: Int, _ length: Int) {
        guard let discarder, offset >= 0, length > 0, offset <= bytes.count - length else { return }
        discarder(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
    }

    deinit {
        owned?.deallocate()
        release?(bytes)
    }

    /// Calls `body` with all the bytes.
    @inline(__always)
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(bytes)
    }
}

/// An immutable, bounds-checked view of a byte range of shared storage. Slicing shares storage
/// (no copy). All reads are little-endian, unaligned-safe and throw `USD_TRUNCATED` when they
/// would leave the view. Offsets are relative to the view's first byte.
public struct ByteView: Sendable {
    /// The whole underlying storage (shared; never mutated).
    public let storage: ByteStorage
    /// First byte of this view inside `storage`.
    public let base: Int
    /// Length of the view in bytes.
    public let count: Int

    /// A view of a copy of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.storage = ByteStorage(copying: bytes)
        self.base = 0
        self.count = bytes.count
    }

    /// A view of all of `storage`.
    public init(storage: ByteStorage) {
        self.storage = storage
        self.base = 0
        self.count = storage.bytes.count
    }

    private init(storage: ByteStorage, base: Int, count: Int) {
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
        return Array(UnsafeRawBufferPointer(rebasing: storage.bytes[(base + offset)..<(base + offset + length)]))
    }

    /// The view's bytes as a new array.
    public var array: [UInt8] { Array(UnsafeRawBufferPointer(rebasing: storage.bytes[base..<(base + count)])) }

    /// Gives `body` the raw bytes of `[offset, offset + length)`.
    public func withBytes<R>(
        _ offset: Int, _ length: Int, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try check(offset, length)
        return try body(UnsafeRawBufferPointer(rebasing: storage.bytes[(base + offset)..<(base + offset + length)]))
    }

    @inline(__always)
    public func u8(_ o: Int) throws(USDParseError) -> UInt8 {
        try check(o, 1)
        return storage.bytes[base + o]
    }

    @inline(__always)
    public func u16(_ o: Int) throws(USDParseError) -> UInt16 {
        try check(o, 2)
        return UInt16(littleEndian: storage.bytes.loadUnaligned(fromByteOffset: base + o, as: UInt16.self))
    }

    @inline(__always)
    public func u32(_ o: Int) throws(USDParseError) -> UInt32 {
        try check(o, 4)
        return UInt32(littleEndian: storage.bytes.loadUnaligned(fromByteOffset: base + o, as: UInt32.self))
    }

    @inline(__always)
    public func u64(_ o: Int) throws(USDParseError) -> UInt64 {
        try check(o, 8)
        return UInt64(littleEndian: storage.bytes.loadUnaligned(fromByteOffset: base + o, as: UInt64.self))
    }

    @inline(__always) public func i32(_ o: Int) throws(USDParseError) -> Int32 { Int32(bitPattern: try u32(o)) }
    @inline(__always) public func i64(_ o: Int) throws(USDParseError) -> Int64 { Int64(bitPattern: try u64(o)) }
    @inline(__always) public func f32(_ o: Int) throws(USDParseError) -> Float { Float(bitPattern: try u32(o)) }
    @inline(__always) public func f64(_ o: Int) throws(USDParseError) -> Double { Double(bitPattern: try u64(o)) }

    /// Hints that `[offset, offset + length)` of this view was copied out and need not stay in
    /// memory (effective for file mappings only; a no-op otherwise and for out-of-range requests).
    public func discard(_ offset: Int, _ length: Int) {
        guard contains(offset: offset, length: length) else { return }
        storage.discard(base + offset, length)
    }

    /// True when the view starts with `prefix`.
    public func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard prefix.count <= count else { return false }
        for (i, b) in prefix.enumerated() where storage.bytes[base + i] != b { return false }
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
