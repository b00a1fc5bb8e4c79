/// Locates and reads the central directory (APPNOTE 4.3.12–4.3.16), including ZIP64 records.
enum ZipCentralDirectory {
    /// Where the central directory lies and which trailing records surround it.
    struct Location {
        var entryCount: Int
        var offset: Int
        var size: Int
        var isZip64: Bool
        /// Byte ranges no entry may overlap: the central directory and the end records.
        var reserved: [(range: Range<Int>, what: String)]
    }

    /// One central directory record, sizes and offset already resolved through ZIP64 extras.
    struct Record {
        var name: String
        var nameBytes: [UInt8]
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
        var recordOffset: Int
    }

    /// Offset of the end-of-central-directory record: the last signature within the final
    /// 22 + 65,535 bytes whose comment length reaches exactly to the end of the file.
    static func findEnd(in view: ByteView) -> Int? {
        let size = ZipFormat.endOfCentralDirectorySize
        guard view.count >= size else { return nil }
        let last = view.count - size
        let first = max(0, last - ZipFormat.maxCommentLength)
        var pos = last
        while pos >= first {
            if (try? view.u32(pos)) == ZipFormat.endOfCentralDirectorySignature,
               let comment = try? view.u16(pos + 20), Int(comment) == last - pos
            {
                return pos
            }
            pos -= 1
        }
        return nil
    }

    /// Reads the end record at `end` (and the ZIP64 locator/record before it, when present).
    ///
    /// - Throws: `USD_ZIP_UNSUPPORTED` for multi-disk archives; `USD_LIMIT_EXCEEDED` when the entry
    ///   count exceeds `limits.maxZipEntries`; `USD_ZIP_INVALID` for inconsistent records.
    static func locate(in view: ByteView, end: Int, limits: ParseLimits) throws(USDParseError) -> Location {
        let disk = try view.u16(end + 4)
        let directoryDisk = try view.u16(end + 6)
        let entriesOnDisk = try view.u16(end + 8)
        let totalEntries = try view.u16(end + 10)
        let size32 = try view.u32(end + 12)
        let offset32 = try view.u32(end + 16)

        var reserved: [(range: Range<Int>, what: String)] = [(end..<view.count, "end of central directory")]
        var count = Int(totalEntries)
        var size = Int(size32)
        var offset = Int(offset32)
        var structuresStart = end
        var isZip64 = false
        let locatorOffset = end - ZipFormat.zip64LocatorSize
        if locatorOffset >= 0, try view.u32(locatorOffset) == ZipFormat.zip64LocatorSignature {
            isZip64 = true
            // With ZIP64, 0xFFFF in the disk fields only says "see the zip64 record".
            if (disk != 0 && disk != ZipFormat.marker16) || (directoryDisk != 0 && directoryDisk != ZipFormat.marker16)
                || entriesOnDisk != totalEntries
            {
                throw unsupportedMultiDisk(end)
            }
            let recordDisk = try view.u32(locatorOffset + 4)
            let recordOffset64 = try view.u64(locatorOffset + 8)
            let totalDisks = try view.u32(locatorOffset + 16)
            if recordDisk != 0 || totalDisks > 1 { throw unsupportedMultiDisk(locatorOffset) }
            reserved.append((locatorOffset..<end, "zip64 end of central directory locator"))
            guard let recordOffset = ZipMath.int(recordOffset64),
                  view.contains(offset: recordOffset, length: ZipFormat.zip64EndOfCentralDirectorySize),
                  try view.u32(recordOffset) == ZipFormat.zip64EndOfCentralDirectorySignature
            else {
                throw .zip(.zipInvalid, "zip64 locator points at no zip64 end record (\(recordOffset64))",
                           offset: locatorOffset)
            }
            // The size field counts the bytes after itself (at least 44).
            guard let recordSize = ZipMath.int(try view.u64(recordOffset + 4)), recordSize >= 44,
                  let recordEnd = ZipMath.add(recordOffset, 12, recordSize), recordEnd <= locatorOffset
            else {
                throw .zip(.zipInvalid, "zip64 end of central directory record has a bad size", offset: recordOffset)
            }
            reserved.append((recordOffset..<recordEnd, "zip64 end of central directory"))
            structuresStart = recordOffset
            let disk64 = try view.u32(recordOffset + 16)
            let directoryDisk64 = try view.u32(recordOffset + 20)
            let onDisk64 = try view.u64(recordOffset + 24)
            let total64 = try view.u64(recordOffset + 32)
            if disk64 != 0 || directoryDisk64 != 0 || onDisk64 != total64 { throw unsupportedMultiDisk(recordOffset) }
            if totalEntries == ZipFormat.marker16 {
                guard let c = ZipMath.int(total64) else { throw tooMany(total64, limits, recordOffset) }
                count = c
            }
            if size32 == ZipFormat.marker32 {
                guard let s = ZipMath.int(try view.u64(recordOffset + 40)) else { throw badDirectory(recordOffset) }
                size = s
            }
            if offset32 == ZipFormat.marker32 {
                guard let o = ZipMath.int(try view.u64(recordOffset + 48)) else { throw badDirectory(recordOffset) }
                offset = o
            }
        } else if disk != 0 || directoryDisk != 0 || entriesOnDisk != totalEntries {
            throw unsupportedMultiDisk(end)
        }
        guard count <= limits.maxZipEntries else { throw tooMany(UInt64(count), limits, end) }
        guard let directoryEnd = ZipMath.add(offset, size), directoryEnd <= structuresStart else {
            throw .zip(.zipInvalid,
                       "central directory (\(size) bytes at \(offset)) does not end before the end records",
                       offset: end)
        }
        guard let minimum = ZipMath.multiply(count, ZipFormat.centralHeaderSize), minimum <= size else {
            throw .zip(.zipInvalid, "\(count) entries cannot fit in a \(size)-byte central directory", offset: offset)
        }
        if size > 0 { reserved.append((offset..<directoryEnd, "central directory")) }
        return Location(entryCount: count, offset: offset, size: size, isZip64: isZip64, reserved: reserved)
    }

    /// Reads every record of the central directory at `location`.
    ///
    /// - Throws: `USD_ZIP_INVALID` for records that leave the directory or lack their signature;
    ///   `USD_ZIP_UNSAFE_NAME`, `USD_ZIP_UNSUPPORTED` per entry (see `ZipArchive`).
    static func readRecords(in view: ByteView, at location: Location) throws(USDParseError) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(location.entryCount)  // bounded by maxZipEntries and the directory size
        let directoryEnd = location.offset + location.size
        var pos = location.offset
        for index in 0..<location.entryCount {
            guard let fixedEnd = ZipMath.add(pos, ZipFormat.centralHeaderSize), fixedEnd <= directoryEnd,
                  try view.u32(pos) == ZipFormat.centralHeaderSignature
            else {
                throw .zip(.zipInvalid, "central directory record \(index) at \(pos) is missing or truncated",
                           offset: pos)
            }
            let record = try readRecord(in: view, at: pos, directoryEnd: directoryEnd)
            records.append(record.record)
            pos = record.next
        }
        return records
    }

    private static func readRecord(
        in view: ByteView, at pos: Int, directoryEnd: Int
    ) throws(USDParseError) -> (record: Record, next: Int) {
        let flags = try view.u16(pos + 8)
        let method = try view.u16(pos + 10)
        let crc = try view.u32(pos + 16)
        let csize32 = try view.u32(pos + 20)
        let usize32 = try view.u32(pos + 24)
        let nameLength = Int(try view.u16(pos + 28))
        let extraLength = Int(try view.u16(pos + 30))
        let commentLength = Int(try view.u16(pos + 32))
        let diskStart16 = try view.u16(pos + 34)
        let offset32 = try view.u32(pos + 42)
        let nameStart = pos + ZipFormat.centralHeaderSize
        guard let extraStart = ZipMath.add(nameStart, nameLength),
              let next = ZipMath.add(extraStart, extraLength, commentLength), next <= directoryEnd
        else {
            throw .zip(.zipInvalid, "central directory record at \(pos) runs past the directory", offset: pos)
        }
        let nameBytes = try view.bytes(nameStart, nameLength)
        let name = try ZipNameValidator.validate(nameBytes, offset: pos)

        // ZIP64 extra (APPNOTE 4.5.3): only the fields whose 32/16-bit value is the marker, in order.
        var usize = Int(usize32)
        var csize = Int(csize32)
        var localOffset = Int(offset32)
        var diskStart = UInt32(diskStart16)
        let needs64 = usize32 == ZipFormat.marker32 || csize32 == ZipFormat.marker32
            || offset32 == ZipFormat.marker32 || diskStart16 == ZipFormat.marker16
        if needs64, let data = try ZipExtraField.find(ZipFormat.zip64ExtraID, in: view, start: extraStart,
                                                      length: extraLength) {
            var field = data.lowerBound
            func next64() throws(USDParseError) -> Int {
                guard field + 8 <= data.upperBound, let v = ZipMath.int(try view.u64(field)) else {
                    throw .zip(.zipInvalid, "zip64 extra field too short or out of range", entry: name, offset: pos)
                }
                field += 8
                return v
            }
            if usize32 == ZipFormat.marker32 { usize = try next64() }
            if csize32 == ZipFormat.marker32 { csize = try next64() }
            if offset32 == ZipFormat.marker32 { localOffset = try next64() }
            if diskStart16 == ZipFormat.marker16, field + 4 <= data.upperBound { diskStart = try view.u32(field) }
        }
        if diskStart != 0 {
            throw .zip(.zipUnsupported, "entry starts on disk \(diskStart): multi-disk archives are not supported",
                       entry: name, offset: pos)
        }
        try ZipArchive.checkSupported(name: name, flags: flags, method: method, compressedSize: csize,
                                      uncompressedSize: usize, offset: pos)
        let record = Record(
            name: name, nameBytes: nameBytes, flags: flags, method: method, crc32: crc, compressedSize: csize,
            uncompressedSize: usize, localHeaderOffset: localOffset, recordOffset: pos)
        return (record, next)
    }

    private static func unsupportedMultiDisk(_ offset: Int) -> USDParseError {
        .zip(.zipUnsupported, "multi-disk (split or spanned) archives are not supported", offset: offset)
    }

    private static func tooMany(_ count: UInt64, _ limits: ParseLimits, _ offset: Int) -> USDParseError {
        .zip(.limitExceeded, "archive declares \(count) entries; maxZipEntries is \(limits.maxZipEntries)",
             offset: offset)
    }

    private static func badDirectory(_ offset: Int) -> USDParseError {
        .zip(.zipInvalid, "zip64 central directory size or offset out of range", offset: offset)
    }
}
