/// A crate file version `major.minor.patch` (patch does not affect the format).
struct CrateVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    var major: UInt8
    var minor: UInt8
    var patch: UInt8

    init(_ major: UInt8, _ minor: UInt8, _ patch: UInt8 = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    var description: String { "\(major).\(minor).\(patch)" }

    static func < (a: CrateVersion, b: CrateVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// True when this version is `major.minor.0` or newer.
    @inline(__always) func atLeast(_ major: UInt8, _ minor: UInt8) -> Bool { self >= CrateVersion(major, minor) }

    /// Oldest version this reader decodes (compressed structural sections).
    static let oldestSupported = CrateVersion(0, 4, 0)
    /// Newest version whose format is fully known; newer minors are read with a warning.
    static let newestKnown = CrateVersion(0, 16, 0)
}

/// The 88-byte header at offset 0: magic `PXR-USDC`, version bytes, TOC offset, reserved words.
struct CrateBootstrap {
    static let size = 88
    static let magic: [UInt8] = Array("PXR-USDC".utf8)

    var version: CrateVersion
    var tocOffset: Int

    /// Reads and validates the bootstrap.
    /// - Throws: `USD_UNRECOGNIZED_FORMAT` (no magic), `USD_TRUNCATED` (short file, TOC past the end),
    ///   `USD_UNSUPPORTED_VERSION` (major ≠ 0 or older than 0.4.0), `USD_CORRUPT` (TOC inside the header).
    static func read(_ view: ByteView, warnings: inout [String]) throws(USDParseError) -> CrateBootstrap {
        guard view.hasPrefix(magic) else {
            if view.count < magic.count, view.hasPrefix(Array(magic[0..<view.count])) {
                throw USDParseError(.truncated, "file is \(view.count) bytes, shorter than the crate magic", byteOffset: 0)
            }
            throw USDParseError(.unrecognizedFormat, "missing crate magic \"PXR-USDC\"", byteOffset: 0)
        }
        guard view.count >= size else {
            throw USDParseError(
                .truncated, "file is \(view.count) bytes; the crate bootstrap needs \(size)", byteOffset: 0)
        }
        let version = CrateVersion(try view.u8(8), try view.u8(9), try view.u8(10))
        guard version.major == 0, version >= CrateVersion.oldestSupported else {
            throw USDParseError(
                .unsupportedVersion,
                "crate version \(version) is not supported (supported: \(CrateVersion.oldestSupported) and newer 0.x)",
                byteOffset: 8)
        }
        if version.minor > CrateVersion.newestKnown.minor {
            warnings.append(
                "crate version \(version) is newer than \(CrateVersion.newestKnown); reading it as \(CrateVersion.newestKnown)")
        }
        let toc = try view.i64(16)
        guard toc >= Int64(size) else {
            throw USDParseError(.corrupt, "table of contents offset \(toc) lies inside the bootstrap", byteOffset: 16)
        }
        guard toc <= Int64(view.count) - 8 else {
            throw USDParseError(
                .truncated, "table of contents at offset \(toc) but the file is \(view.count) bytes", byteOffset: 16)
        }
        return CrateBootstrap(version: version, tocOffset: Int(toc))
    }
}
