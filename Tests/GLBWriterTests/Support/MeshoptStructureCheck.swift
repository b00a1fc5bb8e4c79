import Foundation

/// The `EXT_meshopt_compression` rules a compressed model must follow, and the model a loader sees
/// once it has decoded it: the same document with every compressed view decoded into one plain
/// buffer, which the rest of the structural validator then checks like an uncompressed model.
enum MeshoptStructureCheck {
    static let filters = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"]

    /// Problems with the compression's structure, and the decoded model (nil when it does not decode).
    static func check(_ reader: GLBTestReader) -> (problems: [String], decoded: GLBTestReader?) {
        var problems: [String] = []
        func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { problems.append(message()) } }
        let required = Set((reader.json["extensionsRequired"] as? [String]) ?? [])
        check(required.contains("EXT_meshopt_compression"), "EXT_meshopt_compression not required")
        let buffers = reader.array("buffers")
        let bin = reader.bin ?? []
        check(buffers.count == 2, "\(buffers.count) buffers, expected the BIN buffer and one fallback buffer")
        guard buffers.count == 2 else { return (problems, nil) }
        check(int(buffers[0]["byteLength"]) == bin.count && buffers[0]["uri"] == nil, "buffer 0 is not the BIN chunk")
        let fallback = (buffers[1]["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any]
        check(fallback?["fallback"] as? Bool == true && buffers[1]["uri"] == nil, "buffer 1 is not a fallback buffer")
        let fallbackLength = int(buffers[1]["byteLength"]) ?? 0
        var compressedRanges: [(Int, Int)] = []
        for (i, view) in reader.bufferViews.enumerated() {
            let offset = int(view["byteOffset"]) ?? 0, length = int(view["byteLength"]) ?? 0
            guard let ext = (view["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any] else {
                check(int(view["buffer"]) == 0 && offset + length <= bin.count, "bufferView \(i) outside the BIN chunk")
                check(view["target"] == nil, "bufferView \(i) holds vertex or index data uncompressed")
                continue
            }
            let label = "bufferView \(i)"
            check(int(view["buffer"]) == 1 && offset + length <= fallbackLength, "\(label) outside the fallback buffer")
            let dataOffset = int(ext["byteOffset"]) ?? 0, dataLength = int(ext["byteLength"]) ?? -1
            check(int(ext["buffer"]) == 0, "\(label) data not in the BIN chunk")
            check(dataOffset % 4 == 0 && dataLength > 0 && dataOffset + dataLength <= bin.count, "\(label) data range")
            compressedRanges.append((dataOffset, dataOffset + max(dataLength, 0)))
            let stride = int(ext["byteStride"]) ?? 0, count = int(ext["count"]) ?? 0
            check(count * stride == length, "\(label) count × byteStride ≠ byteLength")
            let mode = ext["mode"] as? String ?? ""
            let filter = ext["filter"] as? String ?? "NONE"
            check(filters.contains(filter), "\(label) filter \(filter)")
            switch mode {
            case "ATTRIBUTES":
                check(stride % 4 == 0 && stride >= 4 && stride <= 256, "\(label) attribute stride \(stride)")
                check(int(view["byteStride"]) == stride, "\(label) byteStride differs from the compressed stride")
                check(int(view["target"]) == 34962, "\(label) attributes without the vertex target")
                if filter == "OCTAHEDRAL" { check(stride == 4 || stride == 8, "\(label) OCTAHEDRAL stride \(stride)") }
                if filter == "QUATERNION" { check(stride == 8, "\(label) QUATERNION stride \(stride)") }
            case "TRIANGLES", "INDICES":
                check(stride == 2 || stride == 4, "\(label) index stride \(stride)")
                check(mode == "INDICES" || count % 3 == 0, "\(label) triangle count")
                check(filter == "NONE", "\(label) index data with filter \(filter)")
                check(int(view["target"]) == 34963, "\(label) indices without the index target")
            default:
                problems.append("\(label) mode \(mode)")
            }
        }
        let sorted = compressedRanges.sorted { $0.0 < $1.0 }
        for k in sorted.indices.dropFirst() where sorted[k].0 < sorted[k - 1].1 {
            problems.append("compressed data ranges overlap")
        }
        guard problems.isEmpty else { return (problems, nil) }
        do {
            return (problems, try decodedModel(reader, logical: MeshoptTestDecoder(reader).logical))
        } catch {
            return (problems + ["does not decode: \(error)"], nil)
        }
    }

    /// The model as a loader holds it after decoding: one buffer with the decoded fallback data,
    /// then the views stored uncompressed (images); the extension lists are kept as declared.
    static func decodedModel(_ reader: GLBTestReader, logical: [UInt8]) throws -> GLBTestReader {
        var json = reader.json
        var buffer = logical
        var views = reader.bufferViews
        let bin = reader.bin ?? []
        for i in views.indices {
            if var ext = views[i]["extensions"] as? [String: Any], ext["EXT_meshopt_compression"] != nil {
                ext["EXT_meshopt_compression"] = nil
                views[i]["extensions"] = ext.isEmpty ? nil : ext
                views[i]["buffer"] = 0
                continue
            }
            let offset = int(views[i]["byteOffset"]) ?? 0, length = int(views[i]["byteLength"]) ?? 0
            buffer += [UInt8](repeating: 0, count: (4 - buffer.count % 4) % 4)
            views[i]["byteOffset"] = buffer.count
            buffer += bin[offset..<(offset + length)]
        }
        buffer += [UInt8](repeating: 0, count: (4 - buffer.count % 4) % 4)
        json["bufferViews"] = views
        json["buffers"] = [["byteLength": buffer.count]]
        var text = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        text += Data(repeating: 0x20, count: (4 - text.count % 4) % 4)
        var glb: [UInt8] = []
        func u32(_ v: Int) { glb += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        glb += Array("glTF".utf8)
        u32(2)
        u32(12 + 8 + text.count + 8 + buffer.count)
        u32(text.count)
        glb += Array("JSON".utf8)
        glb += text
        u32(buffer.count)
        glb += Array("BIN".utf8) + [0]
        glb += buffer
        return try GLBTestReader(glb)
    }
}
