/// The binary glTF container: a 12-byte header (`glTF`, version 2, total length), a JSON chunk
/// padded with spaces (0x20) to 4 bytes, and, when there is binary data, a BIN chunk padded with
/// zeros. All integers little-endian.
enum GLBContainer {
    static let magic: UInt32 = 0x4654_6C67  // "glTF"
    static let version: UInt32 = 2
    static let jsonChunkType: UInt32 = 0x4E4F_534A  // "JSON"
    static let binChunkType: UInt32 = 0x004E_4942  // "BIN\0"
    static let headerLength = 12
    static let chunkHeaderLength = 8
    /// Largest BIN chunk written: 2 GiB − 4 (readers address the buffer with 32-bit signed sizes).
    static let maxBinLength = Int(Int32.max) - 3

    /// Total file length for a JSON text of `jsonLength` bytes and a BIN chunk of `binLength`
    /// (already a multiple of 4; 0 for no BIN chunk).
    static func totalLength(jsonLength: Int, binLength: Int) -> Int {
        headerLength + chunkHeaderLength + padded(jsonLength) + (binLength > 0 ? chunkHeaderLength + binLength : 0)
    }

    static func padded(_ n: Int) -> Int { (n + 3) & ~3 }

    /// Allocates the file once at its final size, writes header and JSON, and lets `writeBin` fill
    /// the BIN chunk data in place (it must initialise all `binLength` bytes).
    static func assemble(json: [UInt8], binLength: Int, writeBin: (BinaryWriter) -> Void) throws -> [UInt8] {
        precondition(binLength % 4 == 0, "BIN length must be padded")
        guard binLength <= maxBinLength else {
            throw GLBWriterError.tooLarge("binary buffer of \(binLength) bytes exceeds the 2 GiB limit")
        }
        let total = totalLength(jsonLength: json.count, binLength: binLength)
        guard total <= Int(UInt32.max) else {
            throw GLBWriterError.tooLarge("file of \(total) bytes exceeds the 4 GiB GLB limit")
        }
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
            func put32(_ v: UInt32, _ at: Int) { raw.storeBytes(of: v.littleEndian, toByteOffset: at, as: UInt32.self) }
            put32(magic, 0)
            put32(version, 4)
            put32(UInt32(total), 8)
            let jsonPadded = padded(json.count)
            put32(UInt32(jsonPadded), 12)
            put32(jsonChunkType, 16)
            json.withUnsafeBytes { src in
                if let p = src.baseAddress { (raw + 20).copyMemory(from: p, byteCount: json.count) }
            }
            (raw + 20 + json.count).initializeMemory(as: UInt8.self, repeating: 0x20, count: jsonPadded - json.count)
            if binLength > 0 {
                let binHeader = 20 + jsonPadded
                put32(UInt32(binLength), binHeader)
                put32(binChunkType, binHeader + 4)
                writeBin(BinaryWriter(base: raw + binHeader + 8, count: binLength))
            }
            initialized = total
        }
    }
}
