/// One file of a zip archive, as validated by `ZipArchive`.
///
/// All offsets are byte offsets from the first byte of the archive view the entry was read from.
/// Values are only meaningful together with the `ZipArchive` that produced them: `ZipArchive.data(of:)`
/// refuses an entry that is not one of its own.
public struct ZipEntry: Hashable, Sendable {
    /// Entry name as stored (UTF-8, `/`-separated, validated to be relative and free of `..`).
    public var name: String
    /// Offset of the entry's local file header.
    public var localHeaderOffset: Int
    /// Offset of the entry's first data byte (after the local header's name and extra fields).
    public var dataOffset: Int
    /// Number of stored bytes (equal to `uncompressedSize` for stored entries).
    public var compressedSize: Int
    /// Number of bytes after decompression, as declared by the central directory.
    public var uncompressedSize: Int
    /// Compression method: 0 (stored) or 8 (deflate); other methods are refused when the archive is read.
    public var method: UInt16
    /// CRC-32 declared for the uncompressed bytes.
    public var crc32: UInt32

    public init(
        name: String, localHeaderOffset: Int, dataOffset: Int, compressedSize: Int, uncompressedSize: Int,
        method: UInt16, crc32: UInt32
    ) {
        self.name = name
        self.localHeaderOffset = localHeaderOffset
        self.dataOffset = dataOffset
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
        self.method = method
        self.crc32 = crc32
    }

    /// True for method 0 (the only method USD itself reads).
    public var isStored: Bool { method == ZipFormat.methodStored }

    /// One past the last data byte (validated not to overflow when the archive was read).
    var dataEnd: Int { dataOffset + compressedSize }
}

/// Constants of the zip format (PKWARE APPNOTE) used by the reader.
enum ZipFormat {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endOfCentralDirectorySignature: UInt32 = 0x0605_4B50
    static let zip64EndOfCentralDirectorySignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50

    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endOfCentralDirectorySize = 22
    static let zip64EndOfCentralDirectorySize = 56
    static let zip64LocatorSize = 20
    static let maxCommentLength = 65_535

    static let zip64ExtraID: UInt16 = 0x0001
    static let marker16: UInt16 = 0xFFFF
    static let marker32: UInt32 = 0xFFFF_FFFF

    static let methodStored: UInt16 = 0
    static let methodDeflate: UInt16 = 8

    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagStrongEncryption: UInt16 = 1 << 6

    /// USD requires every entry's data to start on this boundary (usd-format.md 12.1).
    static let alignment = 64

    /// Deflate cannot expand data by more than about 1032:1; a larger declared ratio is impossible.
    static let maxDeflateRatio = 1_032
}

/// Overflow-checked arithmetic for offsets and sizes read from untrusted bytes.
enum ZipMath {
    @inline(__always)
    static func add(_ a: Int, _ b: Int) -> Int? {
        let (r, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : r
    }

    @inline(__always)
    static func add(_ a: Int, _ b: Int, _ c: Int) -> Int? {
        guard let ab = add(a, b) else { return nil }
        return add(ab, c)
    }

    @inline(__always)
    static func multiply(_ a: Int, _ b: Int) -> Int? {
        let (r, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : r
    }

    /// A non-negative `Int` for a 64-bit field, or nil when it does not fit.
    @inline(__always)
    static func int(_ v: UInt64) -> Int? { Int(exactly: v) }
}

extension USDParseError {
    /// A `.usdz` error naming the entry (`section`) and archive byte offset.
    static func zip(_ code: Code, _ message: String, entry: String? = nil, offset: Int? = nil) -> USDParseError {
        USDParseError(code, message, format: .usdz, section: entry, byteOffset: offset)
    }
}
