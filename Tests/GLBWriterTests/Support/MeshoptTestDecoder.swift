import Foundation

@testable import GLBWriter

/// What a loader does with an `EXT_meshopt_compression` model: decodes every compressed buffer
/// view with meshoptimizer's own decoders into the fallback buffer, and reads accessors from it.
struct MeshoptTestDecoder {
    struct DecodeError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    let reader: GLBTestReader
    /// The fallback buffer (buffer 1) with every compressed view decoded into place.
    let logical: [UInt8]

    init(_ reader: GLBTestReader) throws {
        self.reader = reader
        let buffers = reader.array("buffers")
        guard buffers.count == 2, let length = int(buffers[1]["byteLength"]), let bin = reader.bin else {
            throw DecodeError("expected the BIN buffer and one fallback buffer")
        }
        var out = [UInt8](repeating: 0, count: length)
        for (i, view) in reader.bufferViews.enumerated() {
            guard let ext = (view["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any] else {
                continue
            }
            guard int(view["buffer"]) == 1, let offset = Optional(int(view["byteOffset"]) ?? 0),
                let count = int(ext["count"]), let stride = int(ext["byteStride"]), let mode = ext["mode"] as? String,
                let dataLength = int(ext["byteLength"])
            else { throw DecodeError("bufferView \(i): incomplete EXT_meshopt_compression") }
            let dataOffset = int(ext["byteOffset"]) ?? 0
            let data = Array(bin[dataOffset..<(dataOffset + dataLength)])
            var decoded: [UInt8]
            switch mode {
            case "ATTRIBUTES":
                guard let d = MeshoptCodec.decodeVertices(data, count: count, stride: stride) else {
                    throw DecodeError("bufferView \(i): vertex data does not decode")
                }
                decoded = d
                switch ext["filter"] as? String {
                case nil: break
                case "OCTAHEDRAL": MeshoptCodec.decodeOctahedral(&decoded, count: count, stride: stride)
                case "EXPONENTIAL": MeshoptCodec.decodeExponential(&decoded, count: count, stride: stride)
                case let other: throw DecodeError("bufferView \(i): filter \(other ?? "")")
                }
            case "TRIANGLES":
                guard let d = MeshoptCodec.decodeTriangles(data, count: count, indexSize: stride) else {
                    throw DecodeError("bufferView \(i): index data does not decode")
                }
                decoded = d
            default: throw DecodeError("bufferView \(i): mode \(mode)")
            }
            guard offset + decoded.count <= out.count else { throw DecodeError("bufferView \(i) overruns") }
            out.replaceSubrange(offset..<(offset + decoded.count), with: decoded)
        }
        logical = out
    }

    /// Element `k` of accessor `index` as doubles (floats as they are, normalized integers scaled
    /// to [-1, 1] or [0, 1], other integers as they are).
    func values(_ index: Int) throws -> [[Double]] {
        let a = reader.accessors[index]
        guard let viewIndex = int(a["bufferView"]), let count = int(a["count"]), let type = a["type"] as? String,
            let ct = int(a["componentType"]), let components = GLBTestReader.componentCount[type],
            let size = GLBTestReader.componentSize[ct]
        else { throw DecodeError("accessor \(index) incomplete") }
        let view = reader.bufferViews[viewIndex]
        let fromLogical = int(view["buffer"]) == 1
        let base = (int(view["byteOffset"]) ?? 0) + (int(a["byteOffset"]) ?? 0)
        let stride = int(view["byteStride"]) ?? components * size
        let buffer = fromLogical ? logical : (reader.bin ?? [])
        let normalized = a["normalized"] as? Bool ?? false
        return (0..<count).map { k in
            (0..<components).map { c in
                let at = base + k * stride + c * size
                switch ct {
                case 5126: return Double(Float(bitPattern: GLBTestReader.u32(buffer, at)))
                case 5120:
                    let v = Double(Int8(bitPattern: buffer[at]))
                    return normalized ? max(v / 127, -1) : v
                case 5123: return Double(UInt16(buffer[at]) | UInt16(buffer[at + 1]) << 8)
                case 5125: return Double(GLBTestReader.u32(buffer, at))
                default: return .nan
                }
            }
        }
    }
}
