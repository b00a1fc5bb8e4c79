/// The fallback used when an archive has no end-of-central-directory record: walk local file headers
/// from offset 0, each followed by its data, until a signature does not match. This is exactly how
/// USD's own reader finds entries (usd-format.md 12.1), so a package that USD can open still opens
/// here when its central directory is missing (for example a truncated download whose entries are
/// complete). The walk is bounded by `limits.maxZipEntries`, every size comes from the local header,
/// and entries using a data descriptor are refused because their size is unknown without the
/// central directory.
enum ZipLocalWalk {
    /// Entries found by the walk, in file order.
    ///
    /// - Throws: `USD_ZIP_INVALID` when offset 0 holds no local header; `USD_TRUNCATED` when a header
    ///   or its data runs past the end; `USD_LIMIT_EXCEEDED` past `limits.maxZipEntries` entries;
    ///   `USD_ZIP_UNSUPPORTED` for data-descriptor, encrypted or non-stored/deflate entries;
    ///   `USD_ZIP_UNSAFE_NAME` for unsafe names.
    static func walk(_ view: ByteView, limits: ParseLimits) throws(USDParseError) -> [ZipArchive.Scanned] {
        var found: [ZipArchive.Scanned] = []
        var pos = 0
        while view.contains(offset: pos, length: 4), try view.u32(pos) == ZipFormat.localHeaderSignature {
            guard found.count < limits.maxZipEntries else {
                throw .zip(.limitExceeded, "more than maxZipEntries (\(limits.maxZipEntries)) local headers",
                           offset: pos)
            }
            let header = try ZipLocalHeader.read(in: view, at: pos)
            let name = try ZipNameValidator.validate(header.nameBytes, offset: pos)
            if header.flags & ZipFormat.flagDataDescriptor != 0 {
                throw .zip(.zipUnsupported,
                           "entry sizes are in a data descriptor and the archive has no central directory",
                           entry: name, offset: pos)
            }
            guard let csize = header.declaredCompressedSize, let usize = header.declaredUncompressedSize else {
                throw .zip(.zipInvalid, "zip64 sizes missing from the local header", entry: name, offset: pos)
            }
            try ZipArchive.checkSupported(name: name, flags: header.flags, method: header.method,
                                          compressedSize: csize, uncompressedSize: usize, offset: pos)
            guard let dataEnd = ZipMath.add(header.dataOffset, csize), dataEnd <= view.count else {
                throw .zip(.truncated, "entry data (\(csize) bytes at \(header.dataOffset)) runs past the end",
                           entry: name, offset: header.dataOffset)
            }
            let entry = ZipEntry(
                name: name, localHeaderOffset: pos, dataOffset: header.dataOffset, compressedSize: csize,
                uncompressedSize: usize, method: header.method, crc32: header.crc32)
            found.append(ZipArchive.Scanned(entry: entry, flags: header.flags))
            pos = dataEnd
        }
        guard !found.isEmpty else {
            throw .zip(.zipInvalid, "not a zip archive: no end of central directory and no local header at 0",
                       offset: 0)
        }
        return found
    }
}
