import Foundation
import SceneModel

/// Structural checks of a `.glb` against the glTF 2.0 rules that apply to what the writer emits,
/// plus the project's own layout rules (layer and element extras). Returns every problem found,
/// as text; an empty list means the file passed.
enum GLTFStructuralValidator {
    /// A model with `EXT_meshopt_compression` is checked against that extension's rules, then
    /// decoded and checked as the uncompressed model a loader ends up with.
    static func validate(_ bytes: [UInt8]) -> [String] {
        var reader: GLBTestReader
        do { reader = try GLBTestReader(bytes) } catch { return ["container: \(error)"] }
        var problems: [String] = []
        func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { problems.append(message()) } }

        // Container.
        check(reader.version == 2, "version \(reader.version)")
        check(Int(reader.declaredLength) == bytes.count, "declared length \(reader.declaredLength) ≠ \(bytes.count)")
        check(reader.jsonChunk.count % 4 == 0, "JSON chunk length not a multiple of 4")
        let trailing = reader.jsonChunk.reversed().prefix { $0 == 0x20 }.count
        check(trailing < 4, "JSON padding of \(trailing) spaces")
        check(
            reader.jsonChunk.last.map { $0 == 0x20 || $0 == UInt8(ascii: "}") } ?? false, "JSON padding is not spaces")
        check(!reader.jsonChunk.contains(0), "NUL byte in JSON chunk")
        if let bin = reader.bin { check(bin.count % 4 == 0, "BIN chunk length not a multiple of 4") }
        let compressed = ((reader.json["extensionsUsed"] as? [String]) ?? []).contains("EXT_meshopt_compression")
        if compressed {
            let (meshopt, decoded) = MeshoptStructureCheck.check(reader)
            guard let decoded else { return problems + meshopt }
            reader = decoded
        }
        let json = reader.json

        // Top level.
        let asset = json["asset"] as? [String: Any]
        check(asset?["version"] as? String == "2.0", "asset.version missing or not 2.0")
        for key in [
            "scenes", "nodes", "meshes", "materials", "textures", "images", "samplers", "accessors",
            "bufferViews", "buffers", "extensionsUsed",
        ] where json[key] != nil {
            check((json[key] as? [Any])?.isEmpty == false, "\(key) present but empty")
        }
        // Besides the compression, the required extensions are EXT_texture_webp (WebP textures) and
        // KHR_mesh_quantization (byte normals).
        let required = (json["extensionsRequired"] as? [String]) ?? []
        check(required.allSatisfy { ["EXT_texture_webp", "KHR_mesh_quantization"].contains($0) || (compressed && $0 == "EXT_meshopt_compression") },
              "extensionsRequired \(required)")
        var usedExtensions = Set<String>()
        if compressed { usedExtensions.insert("EXT_meshopt_compression") }
        let nodes = reader.nodes
        let meshes = reader.meshes
        let accessors = reader.accessors
        let views = reader.bufferViews

        // Buffers and views.
        let buffers = reader.array("buffers")
        var bufferLength = 0
        if let bin = reader.bin {
            check(buffers.count == 1, "\(buffers.count) buffers with a BIN chunk")
            bufferLength = int(buffers.first?["byteLength"]) ?? -1
            check(bufferLength == bin.count, "buffer byteLength \(bufferLength) ≠ BIN length \(bin.count)")
            check(buffers.first?["uri"] == nil, "GLB buffer has a uri")
        } else {
            check(buffers.isEmpty, "buffers without a BIN chunk")
        }
        var ranges: [(Int, Int)] = []
        for (i, v) in views.enumerated() {
            let offset = int(v["byteOffset"]) ?? 0
            let length = int(v["byteLength"]) ?? 0
            check(int(v["buffer"]) == 0, "bufferView \(i) buffer")
            check(offset % 4 == 0, "bufferView \(i) offset \(offset) not 4-aligned")
            check(length >= 1 && offset + length <= bufferLength, "bufferView \(i) out of the buffer")
            if let stride = int(v["byteStride"]) {
                // Only a compressed model's vertex views state a stride (the codec's element size).
                check(compressed && int(v["target"]) == 34962 && stride % 4 == 0 && stride >= 4 && stride <= 252,
                      "bufferView \(i) byteStride \(stride)")
            }
            if let t = int(v["target"]) { check(t == 34962 || t == 34963, "bufferView \(i) target \(t)") }
            ranges.append((offset, offset + length))
        }
        let sortedRanges = ranges.sorted { $0.0 < $1.0 }
        for k in sortedRanges.indices.dropFirst() {
            check(sortedRanges[k].0 >= sortedRanges[k - 1].1, "bufferViews overlap")
        }

        // Accessors.
        for (i, a) in accessors.enumerated() {
            guard let view = int(a["bufferView"]), view >= 0, view < views.count,
                let ct = int(a["componentType"]), let size = GLBTestReader.componentSize[ct],
                let type = a["type"] as? String, let components = GLBTestReader.componentCount[type],
                let count = int(a["count"])
            else {
                problems.append("accessor \(i) missing bufferView/componentType/type/count")
                continue
            }
            check(count >= 1, "accessor \(i) count \(count)")
            let start = (int(views[view]["byteOffset"]) ?? 0) + (int(a["byteOffset"]) ?? 0)
            check(start % size == 0, "accessor \(i) not aligned to its component size")
            check(
                (int(a["byteOffset"]) ?? 0) + count * components * size <= int(views[view]["byteLength"]) ?? 0,
                "accessor \(i) overruns its bufferView")
            for key in ["min", "max"] where a[key] != nil {
                check((a[key] as? [Any])?.count == components, "accessor \(i) \(key) has the wrong length")
            }
            if ct == 5126, let data = try? reader.floats(i) {
                check(data.allSatisfy(\.isFinite), "accessor \(i) has non-finite floats")
                if let mins = a["min"] as? [Any], let maxs = a["max"] as? [Any], mins.count == components {
                    for c in 0..<components {
                        let column = stride(from: c, to: data.count, by: components).map { data[$0] }
                        let lo = column.min() ?? 0
                        let hi = column.max() ?? 0
                        // Compared as float32 (the accessor's type); Foundation's parser may be
                        // one double ulp off on long decimals.
                        check(double(mins[c]).map(Float.init) == lo, "accessor \(i) min[\(c)] \(mins[c]) ≠ \(lo)")
                        check(double(maxs[c]).map(Float.init) == hi, "accessor \(i) max[\(c)] \(maxs[c]) ≠ \(hi)")
                    }
                }
            }
        }

        // Meshes.
        func accessorInfo(_ index: Int?) -> (type: String, ct: Int, count: Int, view: Int)? {
            guard let index, index >= 0, index < accessors.count else { return nil }
            let a = accessors[index]
            guard let t = a["type"] as? String, let ct = int(a["componentType"]), let n = int(a["count"]),
                let v = int(a["bufferView"]), v < views.count
            else { return nil }
            return (t, ct, n, v)
        }
        for (m, mesh) in meshes.enumerated() {
            let primitives = mesh["primitives"] as? [[String: Any]] ?? []
            check(!primitives.isEmpty, "mesh \(m) has no primitives")
            for (p, prim) in primitives.enumerated() {
                let where_ = "mesh \(m) primitive \(p)"
                let attributes = prim["attributes"] as? [String: Any] ?? [:]
                check(attributes["POSITION"] != nil, "\(where_) has no POSITION")
                var vertexCount: Int?
                let expected = ["POSITION": "VEC3", "NORMAL": "VEC3", "TEXCOORD_0": "VEC2", "COLOR_0": "VEC4"]
                for (name, value) in attributes {
                    guard let info = accessorInfo(int(value)), let want = expected[name] else {
                        problems.append("\(where_) attribute \(name) invalid or unexpected")
                        continue
                    }
                    let a = accessors[int(value)!]
                    let byteNormal = name == "NORMAL" && info.ct == 5120 && a["normalized"] as? Bool == true
                    if byteNormal { usedExtensions.insert("KHR_mesh_quantization") }
                    check(info.type == want && (info.ct == 5126 || byteNormal), "\(where_) \(name) is \(info.type)/\(info.ct)")
                    check(int(views[info.view]["target"]) == 34962, "\(where_) \(name) view target")
                    if let n = vertexCount { check(n == info.count, "\(where_) attribute counts differ") }
                    vertexCount = info.count
                    if name == "POSITION" { check(a["min"] != nil && a["max"] != nil, "\(where_) POSITION min/max") }
                    if name == "NORMAL", let n = try? (byteNormal ? reader.normalizedBytes(int(value)!) : reader.floats(int(value)!)) {
                        for k in stride(from: 0, to: n.count, by: 3) {
                            let len = (n[k] * n[k] + n[k + 1] * n[k + 1] + n[k + 2] * n[k + 2]).squareRoot()
                            // Byte normals hold each component to 1/127.
                            if abs(len - 1) > (byteNormal ? 0.02 : 1e-4) {
                                problems.append("\(where_) normal \(k / 3) has length \(len)")
                                break
                            }
                        }
                    }
                    if name == "COLOR_0", let c = try? reader.floats(int(value)!) {
                        check(c.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(where_) COLOR_0 outside [0, 1]")
                    }
                }
                if let mode = int(prim["mode"]) { check(mode == 4, "\(where_) mode \(mode)") }
                if let info = accessorInfo(int(prim["indices"])),
                    let indices = try? reader.integers(int(prim["indices"])!)
                {
                    check(info.type == "SCALAR" && (info.ct == 5123 || info.ct == 5125), "\(where_) index type")
                    check(int(views[info.view]["target"]) == 34963, "\(where_) index view target")
                    check(info.count % 3 == 0, "\(where_) index count \(info.count) not a multiple of 3")
                    if let n = vertexCount { check(indices.allSatisfy { Int($0) < n }, "\(where_) index out of range") }
                    if info.ct == 5123 { check(!indices.contains(65535), "\(where_) u16 index 65535 (restart value)") }
                } else {
                    problems.append("\(where_) has no valid indices")
                }
                if let material = prim["material"] {
                    check((int(material) ?? -1) >= 0 && int(material)! < reader.materials.count, "\(where_) material")
                }
            }
        }

        // Materials, textures, images, samplers.
        func textureInfo(_ info: Any?, _ label: String) {
            guard let info else { return }
            guard let o = info as? [String: Any], let index = int(o["index"]) else {
                problems.append("\(label) malformed")
                return
            }
            check(index >= 0 && index < reader.textures.count, "\(label) texture \(index) out of range")
            if let ext = o["extensions"] as? [String: Any] {
                for key in ext.keys {
                    usedExtensions.insert(key)
                    check(key == "KHR_texture_transform", "\(label) unexpected extension \(key)")
                }
            }
        }
        for (i, m) in reader.materials.enumerated() {
            let pbr = m["pbrMetallicRoughness"] as? [String: Any] ?? [:]
            textureInfo(pbr["baseColorTexture"], "material \(i) baseColorTexture")
            textureInfo(pbr["metallicRoughnessTexture"], "material \(i) metallicRoughnessTexture")
            for slot in ["normalTexture", "occlusionTexture", "emissiveTexture"] {
                textureInfo(m[slot], "material \(i) \(slot)")
            }
            let factors =
                ((pbr["baseColorFactor"] as? [Any]) ?? []) + ((m["emissiveFactor"] as? [Any]) ?? [])
                + [pbr["metallicFactor"], pbr["roughnessFactor"]].compactMap { $0 }
            check(
                factors.allSatisfy { (double($0) ?? -1) >= 0 && (double($0) ?? 2) <= 1 }, "material \(i) factor range")
            let mode = m["alphaMode"] as? String ?? "OPAQUE"
            check(["OPAQUE", "MASK", "BLEND"].contains(mode), "material \(i) alphaMode \(mode)")
            check(m["alphaCutoff"] == nil || mode == "MASK", "material \(i) alphaCutoff without MASK")
        }
        var usedWebP = false
        let declared = Set((json["extensionsUsed"] as? [String]) ?? [])
        for (i, t) in reader.textures.enumerated() {
            let webp = ((t["extensions"] as? [String: Any])?["EXT_texture_webp"] as? [String: Any]).flatMap { int($0["source"]) }
            if let webp {
                check(webp >= 0 && webp < reader.images.count && t["source"] == nil, "texture \(i) EXT_texture_webp source")
                check(reader.images[webp]["mimeType"] as? String == "image/webp", "texture \(i) WebP image type")
                check(required.contains("EXT_texture_webp"), "texture \(i) WebP without the extension required")
                usedWebP = true
            } else {
                check((int(t["source"]) ?? -1) >= 0 && int(t["source"])! < reader.images.count, "texture \(i) source")
            }
            check((int(t["sampler"]) ?? -1) >= 0 && int(t["sampler"])! < reader.samplers.count, "texture \(i) sampler")
        }
        for (i, image) in reader.images.enumerated() {
            let mime = image["mimeType"] as? String ?? ""
            check(mime == "image/png" || mime == "image/jpeg" || mime == "image/webp", "image \(i) mimeType \(mime)")
            guard let v = int(image["bufferView"]), v >= 0, v < views.count, let bin = reader.bin else {
                problems.append("image \(i) bufferView")
                continue
            }
            check(views[v]["target"] == nil, "image \(i) view has a target")
            let start = int(views[v]["byteOffset"]) ?? 0
            let head = Array(bin[start..<min(start + 3, bin.count)])
            let signature: [UInt8] = mime == "image/png" ? [0x89, 0x50, 0x4E] : mime == "image/webp" ? [0x52, 0x49, 0x46] : [0xFF, 0xD8, 0xFF]
            check(head == signature, "image \(i) signature")
        }
        if usedWebP { usedExtensions.insert("EXT_texture_webp") }
        check(declared == usedExtensions, "extensionsUsed \(declared.sorted()) ≠ used \(usedExtensions.sorted())")
        check(Set(required).isSubset(of: declared), "extensionsRequired not all in extensionsUsed")
        for (i, s) in reader.samplers.enumerated() {
            for key in ["wrapS", "wrapT"] {
                check([10497, 33071, 33648].contains(int(s[key]) ?? 10497), "sampler \(i) \(key)")
            }
        }

        // Node forest.
        var parent = [Int?](repeating: nil, count: nodes.count)
        for (i, n) in nodes.enumerated() {
            let children = (n["children"] as? [Any] ?? []).compactMap(int)
            check(Set(children).count == children.count, "node \(i) has duplicate children")
            for c in children {
                guard c >= 0, c < nodes.count, c != i else {
                    problems.append("node \(i) child \(c) invalid")
                    continue
                }
                check(parent[c] == nil, "node \(c) has two parents")
                parent[c] = i
            }
            if let m = n["mesh"] { check((int(m) ?? -1) >= 0 && int(m)! < meshes.count, "node \(i) mesh") }
            if let matrix = n["matrix"] as? [Any] {
                check(n["translation"] == nil && n["rotation"] == nil && n["scale"] == nil, "node \(i) matrix + TRS")
                let e = matrix.compactMap(double)
                check(e.count == 16, "node \(i) matrix length")
                if e.count == 16 {
                    check(e != [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], "node \(i) identity matrix written")
                    check(e[3] == 0 && e[7] == 0 && e[11] == 0 && e[15] == 1, "node \(i) matrix not affine")
                    let cols = [SIMD3(e[0], e[1], e[2]), SIMD3(e[4], e[5], e[6]), SIMD3(e[8], e[9], e[10])]
                    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                        let la = (cols[a] * cols[a]).sum().squareRoot()
                        let lb = (cols[b] * cols[b]).sum().squareRoot()
                        if la > 0, lb > 0 {
                            check(abs((cols[a] * cols[b]).sum() / (la * lb)) <= 1e-5, "node \(i) matrix has shear")
                        }
                    }
                }
            }
        }
        let sceneIndex = int(json["scene"]) ?? -1
        let scenes = reader.array("scenes")
        check(sceneIndex >= 0 && sceneIndex < scenes.count, "scene index")
        let roots =
            sceneIndex >= 0 && sceneIndex < scenes.count
            ? (scenes[sceneIndex]["nodes"] as? [Any] ?? []).compactMap(int) : []
        var reached = [Bool](repeating: false, count: nodes.count)
        var stack = roots
        var steps = 0
        for r in roots { check(r >= 0 && r < nodes.count && parent[r] == nil, "scene root \(r) is invalid or a child") }
        while let n = stack.popLast(), steps <= nodes.count {
            steps += 1
            guard n >= 0, n < nodes.count, !reached[n] else { continue }
            reached[n] = true
            stack += (nodes[n]["children"] as? [Any] ?? []).compactMap(int)
        }
        check(steps <= nodes.count, "node hierarchy has a cycle")
        check(reached.allSatisfy { $0 }, "nodes not reachable from the scene")
        var meshUsed = [Bool](repeating: false, count: meshes.count)
        for n in nodes { if let m = int(n["mesh"]), m < meshes.count { meshUsed[m] = true } }
        check(meshUsed.allSatisfy { $0 }, "meshes not used by any node")

        // Project layout: layers are the roots and carry layer extras; elements carry element extras;
        // every name is one loaders keep (NodeName) and no two nodes share one.
        var named = Set<String>()
        for (i, n) in nodes.enumerated() {
            let name = n["name"] as? String ?? ""
            let extras = reader.crowdroom(i)
            if let given = n["name"] as? String {
                check(NodeName.isLoaderSafe(given), "node name \(given) is not loader-safe")
                check(named.insert(given).inserted, "node name \(given) is used twice")
            }
            if roots.contains(i) || extras?["kind"] as? String == "layer" {
                check(roots.contains(i), "layer node \(name) is not a scene root")
                check(extras?["kind"] as? String == "layer", "layer node \(name) lacks layer extras")
                let layer = (extras?["layer"] as? String).map { NodeName.layer(LayerID($0)) }
                check(layer.map { name.hasPrefix($0) } ?? false, "layer node \(name) extras.layer")
            }
            if extras?["kind"] as? String == "element" {
                let identifier = (extras?["identifier"] as? String).map(NodeName.element)
                check(identifier.map { name.hasPrefix($0.prefix(NodeName.maxLength - 4)) } ?? false,
                      "element node \(name) identifier")
                check(
                    parent[i].map { reader.crowdroom($0)?["kind"] as? String == "layer" } ?? false,
                    "element node \(name) is not a child of a layer node")
            }
        }
        return problems
    }
}
