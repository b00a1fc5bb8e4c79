import JSONCore

/// One glTF buffer view: a byte range of the BIN chunk.
struct BufferViewSpec: Equatable {
    var offset: Int
    var length: Int
    /// 34962 ARRAY_BUFFER (vertex attributes), 34963 ELEMENT_ARRAY_BUFFER (indices), nil (images).
    var target: Int?
    /// Bytes from one element to the next: set for vertex streams of a compressed model (the
    /// meshopt codec needs it, and octahedral normals are 3 bytes in a 4-byte element); nil means
    /// tightly packed.
    var stride: Int?
}

/// The measured layout of the BIN chunk: every view starts on a 4-byte boundary (so every
/// accessor, at offset 0 of its own view, is aligned to its component size), data is tightly
/// packed (no `byteStride`), and the total is padded to a multiple of 4.
struct BinaryLayout {
    static let arrayBuffer = 34962
    static let elementArrayBuffer = 34963

    private(set) var views: [BufferViewSpec] = []
    private(set) var end = 0

    /// Reserves `length` bytes at the next 4-byte boundary and returns the view index.
    mutating func add(length: Int, target: Int?, stride: Int? = nil) -> Int {
        let offset = (end + 3) & ~3
        views.append(BufferViewSpec(offset: offset, length: length, target: target, stride: stride))
        end = offset + length
        return views.count - 1
    }

    /// The BIN chunk length: the data padded to 4 bytes (also the buffer's `byteLength`).
    var paddedLength: Int { (end + 3) & ~3 }

    var json: [JSONValue] {
        views.map { v in
            var o = JSONObjectBuilder()
            o.set("buffer", .int(0))
            if v.offset != 0 { o.set("byteOffset", .int(v.offset)) }
            o.set("byteLength", .int(v.length))
            o.set("byteStride", v.stride.map { .int($0) })
            o.set("target", v.target.map { .int($0) })
            return o.value
        }
    }

    /// Writes zeros into every byte no view covers (alignment gaps and the tail padding).
    func zeroGaps(_ bin: BinaryWriter) {
        var cursor = 0
        for v in views {
            if v.offset > cursor { bin.zero(at: cursor, count: v.offset - cursor) }
            cursor = max(cursor, v.offset + v.length)
        }
        if paddedLength > cursor { bin.zero(at: cursor, count: paddedLength - cursor) }
    }
}

/// Little-endian stores into the BIN chunk's memory, which the GLB container owns for the duration
/// of the write. Offsets are bytes from the start of the chunk data; callers stay inside the
/// layout they measured.
struct BinaryWriter {
    let base: UnsafeMutableRawPointer
    let count: Int

    @inline(__always)
    func put(_ value: Float, at offset: Int) {
        assert(offset >= 0 && offset + 4 <= count, "BIN write out of range")
        base.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    func put(_ value: UInt32, at offset: Int) {
        assert(offset >= 0 && offset + 4 <= count, "BIN write out of range")
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    func put(_ value: UInt16, at offset: Int) {
        assert(offset >= 0 && offset + 2 <= count, "BIN write out of range")
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self)
    }

    /// Copies `values` as consecutive little-endian floats.
    func put(_ values: UnsafeBufferPointer<Float>, at offset: Int) {
        copyLittleEndian(values, at: offset) { put($0, at: $1) }
    }

    /// Copies `values` as consecutive little-endian 32-bit integers.
    func put(_ values: UnsafeBufferPointer<UInt32>, at offset: Int) {
        copyLittleEndian(values, at: offset) { put($0, at: $1) }
    }

    /// Copies `values` in one block on little-endian machines; elsewhere one by one with `putOne`
    /// (value, byte offset), which writes little-endian.
    private func copyLittleEndian<T>(_ values: UnsafeBufferPointer<T>, at offset: Int, putOne: (T, Int) -> Void) {
        let size = MemoryLayout<T>.stride
        precondition(offset >= 0 && offset + values.count * size <= count, "BIN write out of range")
        #if _endian(little)
            if let src = values.baseAddress { (base + offset).copyMemory(from: src, byteCount: values.count * size) }
        #else
            for (i, v) in values.enumerated() { putOne(v, offset + size * i) }
        #endif
    }

    /// Copies raw bytes (embedded images).
    func put(bytes: [UInt8], at offset: Int) {
        precondition(offset >= 0 && offset + bytes.count <= count, "BIN write out of range")
        bytes.withUnsafeBytes { src in
            if let p = src.baseAddress { (base + offset).copyMemory(from: p, byteCount: src.count) }
        }
    }

    /// Copies `n` already written bytes within the chunk (ranges must not overlap).
    func copy(from source: Int, to destination: Int, count n: Int) {
        precondition(
            source >= 0 && source + n <= count && destination >= 0 && destination + n <= count,
            "BIN copy out of range")
        (base + destination).copyMemory(from: base + source, byteCount: n)
    }

    func zero(at offset: Int, count n: Int) {
        precondition(offset >= 0 && offset + n <= count, "BIN write out of range")
        (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: n)
    }
}
