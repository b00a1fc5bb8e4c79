import Foundation

/// A small, independent `.glb` reader for the tests: splits the container, parses the JSON chunk
/// with `JSONSerialization`, and decodes accessor data. It trusts nothing it reads: every offset is
/// checked, and malformed input throws `GLBReadError`.
struct GLBTestReader {
    struct GLBReadError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    let bytes: [UInt8]
    let version: UInt32
    let declaredLength: UInt32
    /// JSON chunk data including its padding.
    let jsonChunk: [UInt8]
    /// BIN chunk data including its padding; nil when the file has no BIN chunk.
    let bin: [UInt8]?
    let json: [String: Any]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard bytes.count >= 20 else { throw GLBReadError("file shorter than header + chunk header") }
        guard Self.u32(bytes, 0) == 0x4654_6C67 else { throw GLBReadError("bad magic") }
        version = Self.u32(bytes, 4)
        declaredLength = Self.u32(bytes, 8)
        let jsonLength = Int(Self.u32(bytes, 12))
        guard Self.u32(bytes, 16) == 0x4E4F_534A else { throw GLBReadError("first chunk is not JSON") }
        guard 20 + jsonLength <= bytes.count else { throw GLBReadError("JSON chunk overruns the file") }
        jsonChunk = Array(bytes[20..<(20 + jsonLength)])
        var cursor = 20 + jsonLength
        if cursor < bytes.count {
            guard cursor + 8 <= bytes.count else { throw GLBReadError("truncated BIN chunk header") }
            let binLength = Int(Self.u32(bytes, cursor))
            guard Self.u32(bytes, cursor + 4) == 0x004E_4942 else { throw GLBReadError("second chunk is not BIN") }
            guard cursor + 8 + binLength <= bytes.count else { throw GLBReadError("BIN chunk overruns the file") }
            bin = Array(bytes[(cursor + 8)..<(cursor + 8 + binLength)])
            cursor += 8 + binLength
        } else {
            bin = nil
        }
        guard cursor == bytes.count else { throw GLBReadError("\(bytes.count - cursor) trailing bytes after chunks") }
        guard let object = try JSONSerialization.jsonObject(with: Data(jsonChunk)) as? [String: Any] else {
            throw GLBReadError("JSON chunk is not an object")
        }
        json = object
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    // MARK: JSON access

    func array(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
    var nodes: [[String: Any]] { array("nodes") }
    var meshes: [[String: Any]] { array("meshes") }
    var accessors: [[String: Any]] { array("accessors") }
    var bufferViews: [[String: Any]] { array("bufferViews") }
    var materials: [[String: Any]] { array("materials") }
    var textures: [[String: Any]] { array("textures") }
    var images: [[String: Any]] { array("images") }
    var samplers: [[String: Any]] { array("samplers") }
    var jsonText: String { String(decoding: jsonChunk, as: UTF8.self).trimmingCharacters(in: .whitespaces) }

    /// glTF index of the first node with this name.
    func node(named name: String) -> Int? { nodes.firstIndex { $0["name"] as? String == name } }

    /// `extras.crowdroom` of node `i`.
    func crowdroom(_ i: Int) -> [String: Any]? {
        (nodes[i]["extras"] as? [String: Any])?["crowdroom"] as? [String: Any]
    }

    /// The bytes of an accessor's elements (tightly packed views only, as the writer emits).
    func accessorBytes(_ index: Int) throws -> (bytes: ArraySlice<UInt8>, count: Int, components: Int, type: Int) {
        let a = accessors[index]
        guard let viewIndex = int(a["bufferView"]), viewIndex < bufferViews.count else {
            throw GLBReadError("accessor \(index) has no valid bufferView")
        }
        let view = bufferViews[viewIndex]
        guard let bin, let count = int(a["count"]), let type = a["type"] as? String,
            let componentType = int(a["componentType"]), let length = int(view["byteLength"])
        else { throw GLBReadError("accessor \(index) incomplete") }
        let start = (int(view["byteOffset"]) ?? 0) + (int(a["byteOffset"]) ?? 0)
        let components = Self.componentCount[type] ?? 0
        let size = count * components * (Self.componentSize[componentType] ?? 0)
        guard size <= length, start + size <= bin.count else { throw GLBReadError("accessor \(index) overruns") }
        return (bin[start..<(start + size)], count, components, componentType)
    }

    /// Float elements of an accessor (component type 5126).
    func floats(_ index: Int) throws -> [Float] {
        let (raw, count, components, type) = try accessorBytes(index)
        guard type == 5126 else { throw GLBReadError("accessor \(index) is not float") }
        let base = raw.startIndex
        return (0..<(count * components)).map { i in
            Float(bitPattern: Self.u32(Array(raw[(base + 4 * i)..<(base + 4 * i + 4)]), 0))
        }
    }

    /// Elements of a normalized signed-byte accessor as floats in [-1, 1] (the view's byteStride
    /// respected).
    func normalizedBytes(_ index: Int) throws -> [Float] {
        let (raw, count, components, type) = try accessorBytes(index)
        guard type == 5120 else { throw GLBReadError("accessor \(index) is not signed bytes") }
        let view = bufferViews[int(accessors[index]["bufferView"]) ?? 0]
        let stride = int(view["byteStride"]) ?? components
        let b = Array(bin ?? [])
        let start = raw.startIndex
        guard count == 0 || start + (count - 1) * stride + components <= b.count else {
            throw GLBReadError("accessor \(index) overruns the buffer")
        }
        return (0..<count).flatMap { k in
            (0..<components).map { c in max(Float(Int8(bitPattern: b[start + k * stride + c])) / 127, -1) }
        }
    }

    /// Integer elements of an index accessor (5121, 5123 or 5125).
    func integers(_ index: Int) throws -> [UInt32] {
        let (raw, count, _, type) = try accessorBytes(index)
        let b = Array(raw)
        switch type {
        case 5121: return b.map { UInt32($0) }
        case 5123: return (0..<count).map { UInt32(b[2 * $0]) | UInt32(b[2 * $0 + 1]) << 8 }
        case 5125: return (0..<count).map { Self.u32(b, 4 * $0) }
        default: throw GLBReadError("accessor \(index) is not an integer type")
        }
    }

    static let componentCount = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16]
    static let componentSize = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4]
}

/// True for a JSON `true`/`false` (Foundation bridges JSON numbers to `Bool` too, so check the type).
func isJSONBool(_ any: Any?) -> Bool {
    guard let any else { return false }
    return String(describing: type(of: any)).contains("Boolean") || type(of: any) == Bool.self
}

/// A boolean from a JSON `true`/`false` only.
func bool(_ any: Any?) -> Bool? { isJSONBool(any) ? any as? Bool : nil }

/// An integer from a JSON number (rejects non-integral values and booleans).
func int(_ any: Any?) -> Int? {
    if isJSONBool(any) { return nil }
    guard let n = any as? NSNumber else { return nil }
    let d = n.doubleValue
    return d == d.rounded() ? Int(d) : nil
}

/// A double from a JSON number.
func double(_ any: Any?) -> Double? {
    if isJSONBool(any) { return nil }
    return (any as? NSNumber)?.doubleValue
}
