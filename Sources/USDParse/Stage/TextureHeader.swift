/// Reads the pixel size a PNG or JPEG texture declares in its header, without decoding it, so a
/// texture that would take gigabytes to decode is refused before it reaches any consumer (the
/// thumbnailer decodes textures; viewers decode the ones embedded in the `.glb`).
enum TextureHeader {
    /// Width and height in pixels from a PNG `IHDR` chunk or a JPEG start-of-frame segment; nil
    /// for other formats or when the header cannot be found (consumers then report the texture).
    static func declaredSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
            return (be32(bytes, 16), be32(bytes, 20))
        }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpegSize(bytes) }
        return nil
    }

    /// Walks the JPEG marker segments up to the first start-of-frame (SOF0…SOF15 except DHT, JPG
    /// and DAC); stops at start-of-scan or end of image. Every read is bounds-checked.
    private static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 1 < bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            i += 2
            if marker == 0xFF {
                i -= 1  // fill byte
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            if marker == 0xD9 || marker == 0xDA { return nil }
            guard i + 2 <= bytes.count else { return nil }
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard i + 7 <= bytes.count else { return nil }
                let height = Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
                let width = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                return (width, height)
            }
            i += length
        }
        return nil
    }

    private static func be32(_ b: [UInt8], _ o: Int) -> Int {
        Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3])
    }
}
