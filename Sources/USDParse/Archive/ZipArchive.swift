/// A validated, read-only view of a zip archive (the container of a `.usdz` package).
///
/// Reading is driven by the central directory (ZIP64 records when present), and every entry is
/// cross-checked against its local header, which is what USD itself reads (usd-format.md 12.2).
/// An archive without an end-of-central-directory record is refused (`USD_ZIP_INVALID`): that is
/// what a truncated upload looks like, and a partial room must not come out of it.
///
/// Ownership: the archive keeps the `ByteView` it was opened on (shared storage, no copy); stored
/// entries are returned as slices of it. It also keeps a reference to the parse's `MemoryBudget`,
/// charged when deflated entries are inflated, so one archive belongs to one parse.
///
/// Warnings (stable codes, `CODE: message`):
/// - `ZIP_MISALIGNED_ENTRY`: data does not start on a 64-byte boundary (USD requires it; accepted).
/// - `ZIP_DEFLATED_ENTRY`: the entry is deflate-compressed (USD refuses it; inflated on read).
/// - `ZIP_DATA_DESCRIPTOR`: sizes live in a data descriptor, which USD's local-header walk cannot read.
/// - `ZIP_ZIP64`: ZIP64 records are present (USD's writer never produces them).
/// - `ZIP_LEADING_BYTES`: the first local header is not at offset 0, so USD could not walk the archive.
/// - `ZIP_CRC_MISMATCH`: found lazily by `data(of:)` (see there).
public struct ZipArchive: Sendable {
    /// An entry with the header flags the archive-level checks need.
    struct Scanned {
        var entry: ZipEntry
        var flags: UInt16
    }

    /// The archive bytes.
    public let view: ByteView
    /// Entries in local-header order (the first is the package's root candidate).
    public let entries: [ZipEntry]
    private let indexByName: [String: Int]
    private let openWarnings: [String]
    private let diagnostics = ZipDiagnostics()
    private let budget: BudgetReference
    /// Largest entry `data(of:)` inflates: `ParseLimits.maxInputBytes`, the most a stored entry can hold.
    private let maxEntryBytes: Int

    /// Reads the central directory (ZIP64 when present) and cross-checks local headers.
    ///
    /// Every entry must: have a safe name (see `ZipNameValidator`) unique in the archive; be
    /// unencrypted and stored (method 0) or deflated (method 8); have a local header whose
    /// signature, name, method and (without a data descriptor) sizes and CRC agree with the central
    /// record; lie entirely inside the archive; and not overlap another entry or the directory
    /// records. Nothing is decompressed here.
    ///
    /// - Throws: `USDParseError` with format `.usdz`, the entry name in `section` and an archive
    ///   offset: `USD_ZIP_INVALID` (bad records, disagreeing headers, overlaps, data past the end,
    ///   not a zip), `USD_ZIP_UNSAFE_NAME` (unsafe or duplicate names), `USD_ZIP_UNSUPPORTED`
    ///   (encryption, other methods, multi-disk), `USD_LIMIT_EXCEEDED` (`maxZipEntries`,
    ///   `maxInputBytes`), `USD_TRUNCATED` (local-header walk running past the end).
    public init(_ view: ByteView, limits: ParseLimits, budget: MemoryBudget) throws(USDParseError) {
        guard view.count <= limits.maxInputBytes else {
            throw .zip(.limitExceeded, "archive of \(view.count) bytes exceeds maxInputBytes (\(limits.maxInputBytes))")
        }
        var warnings: [String] = []
        var scanned: [Scanned]
        var reserved: [(range: Range<Int>, what: String)] = []
        do throws(USDParseError) {
            if let end = ZipCentralDirectory.findEnd(in: view) {
                let location = try ZipCentralDirectory.locate(in: view, end: end, limits: limits)
                if location.isZip64 { warnings.append("ZIP_ZIP64: the archive uses ZIP64 end records") }
                reserved = location.reserved
                let records = try ZipCentralDirectory.readRecords(in: view, at: location)
                scanned = []
                scanned.reserveCapacity(records.count)
                for record in records { scanned.append(try Self.crossCheck(record, in: view)) }
            } else {
                // USD itself walks local headers and would open the entries before a cut; a
                // transcode service must not turn a truncated upload into a partial room.
                throw USDParseError(
                    .zipInvalid,
                    "no end of central directory record: the file is truncated or not a complete zip archive",
                    byteOffset: view.count)
            }
        } catch {
            throw error.adding(format: .usdz)
        }
        scanned.sort { $0.entry.localHeaderOffset < $1.entry.localHeaderOffset }

        var index: [String: Int] = [:]
        index.reserveCapacity(scanned.count)
        for (i, item) in scanned.enumerated() {
            if index.updateValue(i, forKey: item.entry.name) != nil {
                throw .zip(.zipUnsafeName, "duplicate entry name", entry: ZipNameValidator.printable(item.entry.name),
                           offset: item.entry.localHeaderOffset)
            }
        }
        try Self.checkOverlaps(scanned, reserved: reserved)

        if let first = scanned.first, first.entry.localHeaderOffset != 0 {
            warnings.append("ZIP_LEADING_BYTES: first local header at offset \(first.entry.localHeaderOffset), not 0")
        }
        for item in scanned {
            let e = item.entry
            let name = ZipNameValidator.printable(e.name)
            if e.dataOffset % ZipFormat.alignment != 0 {
                warnings.append("ZIP_MISALIGNED_ENTRY: '\(name)' data at offset \(e.dataOffset) is not 64-byte aligned")
            }
            if e.method == ZipFormat.methodDeflate {
                warnings.append("ZIP_DEFLATED_ENTRY: '\(name)' is deflate-compressed (USD reads only stored entries)")
            }
            if item.flags & ZipFormat.flagDataDescriptor != 0 {
                warnings.append("ZIP_DATA_DESCRIPTOR: '\(name)' keeps its sizes in a data descriptor")
            }
        }
        self.view = view
        self.entries = scanned.map(\.entry)
        self.indexByName = index
        self.openWarnings = warnings
        self.budget = BudgetReference(budget)
        self.maxEntryBytes = limits.maxInputBytes
    }

    /// The entry with exactly this name (zip names are case-sensitive), or nil.
    public func entry(named name: String) -> ZipEntry? { indexByName[name].map { entries[$0] } }

    /// Non-fatal findings with stable codes (see the type's documentation), including those found
    /// later by `data(of:)`.
    public var warnings: [String] { openWarnings + diagnostics.warnings }

    /// The bytes of `entry`, which must be one of `entries`.
    ///
    /// Stored entries are a zero-copy slice of the archive. Their CRC-32 is verified once, on first
    /// access: zlib's CRC runs at memory speed, so the cost is small next to parsing the bytes.
    /// A mismatch (checked for stored entries up to 1 MiB and every deflated entry) is recorded as the warning `ZIP_CRC_MISMATCH` and the bytes are still returned:
    /// USD never checks CRCs, so content that opens in USD (and in Apple's viewers) must open here,
    /// and the structural checks already guarantee the bytes lie inside the entry's own range.
    ///
    /// Deflated entries are inflated through zlib into new bytes (owned by the returned view). The
    /// declared uncompressed size is charged to `MemoryBudget.chargeDecompressed` first, must be
    /// possible for the deflate bytes and must not exceed `maxInputBytes` (no entry yields more than
    /// an input file may hold, so every consumer's own size check holds before any byte is
    /// inflated); the stream must produce exactly that many bytes; their CRC mismatch is reported
    /// the same way.
    ///
    /// - Throws: `USD_ZIP_INVALID` for an entry of another archive; `USD_LIMIT_EXCEEDED` when the
    ///   declared size exceeds `maxInputBytes` or the decompression budget; `USD_DECOMPRESSION_FAILED` for malformed
    ///   streams, impossible compression ratios or a size other than declared. Errors name the entry.
    public func data(of entry: ZipEntry) throws(USDParseError) -> ByteView {
        guard let index = indexByName[entry.name], entries[index] == entry else {
            throw .zip(.zipInvalid, "not an entry of this archive", entry: ZipNameValidator.printable(entry.name))
        }
        let name = ZipNameValidator.printable(entry.name)
        let raw: ByteView
        do throws(USDParseError) {
            raw = try view.slice(entry.dataOffset, entry.compressedSize)
        } catch {
            throw error.adding(format: .usdz, section: name, byteOffset: entry.dataOffset)
        }
        if entry.method == ZipFormat.methodStored {
            // Stored entries are read in place; checking a large one's CRC would cost more than
            // reading it (USD checks none), so only entries up to `maxVerifiedStoredBytes` are checked.
            if entry.compressedSize <= Self.maxVerifiedStoredBytes, diagnostics.claimCRCCheck(index) {
                verifyCRC(Inflate.crc32(raw), of: entry, name: name)
            }
            return raw
        }
        do throws(USDParseError) {
            try budget.budget.chargeDecompressed(entry.uncompressedSize, "zip entry '\(name)'")
        } catch {
            throw error.adding(format: .usdz, section: name, byteOffset: entry.dataOffset)
        }
        let ceiling = ZipMath.add(ZipMath.multiply(entry.compressedSize, ZipFormat.maxDeflateRatio) ?? Int.max, 64)
        guard entry.uncompressedSize <= ceiling ?? Int.max else {
            throw .zip(.decompressionFailed,
                       "declared size \(entry.uncompressedSize) is impossible for \(entry.compressedSize) deflate bytes",
                       entry: name, offset: entry.dataOffset)
        }
        guard entry.uncompressedSize <= maxEntryBytes else {
            throw .zip(.limitExceeded,
                       "declared size \(entry.uncompressedSize) exceeds maxInputBytes (\(maxEntryBytes))",
                       entry: name, offset: entry.dataOffset)
        }
        let bytes: [UInt8]
        do throws(USDParseError) {
            bytes = try Inflate.raw(raw, expectedSize: entry.uncompressedSize, entry: name)
        } catch {
            throw error.adding(format: .usdz, section: name, byteOffset: entry.dataOffset)
        }
        if diagnostics.claimCRCCheck(index) { verifyCRC(Inflate.crc32(bytes), of: entry, name: name) }
        return ByteView(bytes)
    }

    /// Largest stored entry whose CRC-32 is verified on first read (1 MiB: layers and textures).
    static let maxVerifiedStoredBytes = 1 << 20

    private func verifyCRC(_ actual: UInt32, of entry: ZipEntry, name: String) {
        guard actual != entry.crc32 else { return }
        diagnostics.warn("ZIP_CRC_MISMATCH: '\(name)' has CRC-32 \(hex(actual)); the archive declares \(hex(entry.crc32))")
    }

    private func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

extension ZipArchive {
    /// Per-entry checks shared by the central-directory reader and the local-header walk.
    static func checkSupported(
        name: String, flags: UInt16, method: UInt16, compressedSize: Int, uncompressedSize: Int, offset: Int
    ) throws(USDParseError) {
        let shown = ZipNameValidator.printable(name)
        if flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption) != 0 {
            throw .zip(.zipUnsupported, "encrypted entries are not supported", entry: shown, offset: offset)
        }
        guard method == ZipFormat.methodStored || method == ZipFormat.methodDeflate else {
            throw .zip(.zipUnsupported, "compression method \(method) is not supported (only stored and deflate)",
                       entry: shown, offset: offset)
        }
        if method == ZipFormat.methodStored, compressedSize != uncompressedSize {
            throw .zip(.zipInvalid,
                       "stored entry declares \(compressedSize) stored but \(uncompressedSize) uncompressed bytes",
                       entry: shown, offset: offset)
        }
    }

    /// Reads the local header of a central record and builds the entry from both.
    static func crossCheck(_ record: ZipCentralDirectory.Record, in view: ByteView) throws(USDParseError) -> Scanned {
        let name = ZipNameValidator.printable(record.name)
        let offset = record.localHeaderOffset
        let local: ZipLocalHeader
        do throws(USDParseError) {
            local = try ZipLocalHeader.read(in: view, at: offset)
        } catch {
            var e = error.adding(format: .usdz, section: name, byteOffset: offset)
            if e.code == .truncated { e.code = .zipInvalid }
            throw e
        }
        guard local.nameBytes == record.nameBytes else {
            throw .zip(.zipInvalid, "local header name differs from the central directory", entry: name, offset: offset)
        }
        if local.flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption) != 0 {
            throw .zip(.zipUnsupported, "encrypted entries are not supported", entry: name, offset: offset)
        }
        guard local.method == record.method else {
            throw .zip(.zipInvalid, "local header method \(local.method) differs from the central directory's "
                       + "\(record.method)", entry: name, offset: offset)
        }
        let descriptor = (local.flags | record.flags) & ZipFormat.flagDataDescriptor != 0
        if !descriptor {
            let sizesAgree = (local.declaredCompressedSize ?? record.compressedSize) == record.compressedSize
                && (local.declaredUncompressedSize ?? record.uncompressedSize) == record.uncompressedSize
            guard sizesAgree, local.crc32 == record.crc32 else {
                throw .zip(.zipInvalid, "local header sizes or CRC differ from the central directory",
                           entry: name, offset: offset)
            }
        }
        guard let dataEnd = ZipMath.add(local.dataOffset, record.compressedSize), dataEnd <= view.count else {
            throw .zip(.zipInvalid, "entry data (\(record.compressedSize) bytes at \(local.dataOffset)) runs past "
                       + "the end of the archive (\(view.count) bytes)", entry: name, offset: local.dataOffset)
        }
        let entry = ZipEntry(
            name: record.name, localHeaderOffset: offset, dataOffset: local.dataOffset,
            compressedSize: record.compressedSize, uncompressedSize: record.uncompressedSize, method: record.method,
            crc32: record.crc32)
        return Scanned(entry: entry, flags: record.flags | local.flags)
    }

    /// Entries (local header through data) must not overlap each other or the directory records.
    static func checkOverlaps(
        _ sorted: [Scanned], reserved: [(range: Range<Int>, what: String)]
    ) throws(USDParseError) {
        var spans: [(range: Range<Int>, what: String, entry: String?)] = reserved.map { ($0.range, $0.what, nil) }
        spans.reserveCapacity(reserved.count + sorted.count)
        for item in sorted {
            let e = item.entry
            let name = ZipNameValidator.printable(e.name)
            spans.append((e.localHeaderOffset..<e.dataEnd, "entry '\(name)'", name))
        }
        spans.sort { $0.range.lowerBound < $1.range.lowerBound }
        for i in spans.indices.dropFirst() where spans[i].range.lowerBound < spans[i - 1].range.upperBound {
            let a = spans[i - 1]
            let b = spans[i]
            throw .zip(.zipInvalid, "\(b.what) at \(b.range.lowerBound) overlaps \(a.what) "
                       + "(\(a.range.lowerBound)..<\(a.range.upperBound))",
                       entry: b.entry ?? a.entry, offset: b.range.lowerBound)
        }
    }
}
