/// A parsed local file header (APPNOTE 4.3.7): the record USD itself walks.
struct ZipLocalHeader {
    var offset: Int
    var flags: UInt16
    var method: UInt16
    var crc32: UInt32
    /// The 32-bit size fields as stored (may be 0 with a data descriptor, or the ZIP64 marker).
    var compressedSize32: UInt32
    var uncompressedSize32: UInt32
    /// Sizes from a ZIP64 extra field in the local header, when present.
    var zip64Compressed: Int?
    var zip64Uncompressed: Int?
    var nameBytes: [UInt8]
    /// First data byte: `offset + 30 + nameLength + extraLength` (overflow-checked).
    var dataOffset: Int

    /// Reads the header at `offset`.
    ///
    /// - Throws: `USD_ZIP_INVALID` when the signature is wrong; `USD_TRUNCATED` when the fixed part,
    ///   name or extra field runs past the end of the archive.
    static func read(in view: ByteView, at offset: Int) throws(USDParseError) -> ZipLocalHeader {
        guard view.contains(offset: offset, length: ZipFormat.localHeaderSize) else {
            throw .zip(.truncated, "local file header at \(offset) runs past the end of the archive", offset: offset)
        }
        guard try view.u32(offset) == ZipFormat.localHeaderSignature else {
            throw .zip(.zipInvalid, "no local file header signature at offset \(offset)", offset: offset)
        }
        let flags = try view.u16(offset + 6)
        let method = try view.u16(offset + 8)
        let crc = try view.u32(offset + 14)
        let csize = try view.u32(offset + 18)
        let usize = try view.u32(offset + 22)
        let nameLength = Int(try view.u16(offset + 26))
        let extraLength = Int(try view.u16(offset + 28))
        let nameStart = offset + ZipFormat.localHeaderSize  // cannot overflow: contains() checked it
        guard let extraStart = ZipMath.add(nameStart, nameLength),
              let dataOffset = ZipMath.add(extraStart, extraLength),
              dataOffset <= view.count
        else {
            throw .zip(.truncated, "local file header name/extra at \(offset) runs past the end of the archive",
                       offset: offset)
        }
        let nameBytes = try view.bytes(nameStart, nameLength)
        var header = ZipLocalHeader(
            offset: offset, flags: flags, method: method, crc32: crc, compressedSize32: csize,
            uncompressedSize32: usize, zip64Compressed: nil, zip64Uncompressed: nil, nameBytes: nameBytes,
            dataOffset: dataOffset)
        if usize == ZipFormat.marker32 || csize == ZipFormat.marker32,
           let data = try ZipExtraField.find(ZipFormat.zip64ExtraID, in: view, start: extraStart, length: extraLength)
        {
            // In a local header the ZIP64 field holds both sizes, uncompressed first (APPNOTE 4.5.3).
            if data.count >= 16 {
                header.zip64Uncompressed = ZipMath.int(try view.u64(data.lowerBound))
                header.zip64Compressed = ZipMath.int(try view.u64(data.lowerBound + 8))
            }
        }
        return header
    }

    /// The compressed size this header declares, resolving the ZIP64 marker; nil when unknown.
    var declaredCompressedSize: Int? {
        compressedSize32 == ZipFormat.marker32 ? zip64Compressed : Int(compressedSize32)
    }

    /// The uncompressed size this header declares, resolving the ZIP64 marker; nil when unknown.
    var declaredUncompressedSize: Int? {
        uncompressedSize32 == ZipFormat.marker32 ? zip64Uncompressed : Int(uncompressedSize32)
    }
}

/// Extra-field lookup (APPNOTE 4.5): a sequence of `id(2) size(2) data(size)` blocks.
enum ZipExtraField {
    /// The data range of the first block with `id` inside `[start, start + length)`, or nil.
    /// A block whose size runs past the area ends the scan (treated as absent).
    static func find(_ id: UInt16, in view: ByteView, start: Int, length: Int) throws(USDParseError) -> Range<Int>? {
        guard let end = ZipMath.add(start, length), view.contains(offset: start, length: length) else { return nil }
        var pos = start
        while pos + 4 <= end {
            let blockID = try view.u16(pos)
            let size = Int(try view.u16(pos + 2))
            let dataStart = pos + 4
            guard dataStart + size <= end else { return nil }
            if blockID == id { return dataStart..<(dataStart + size) }
            pos = dataStart + size
        }
        return nil
    }
}
