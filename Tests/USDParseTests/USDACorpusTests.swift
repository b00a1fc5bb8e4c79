import Foundation
import Testing
@testable import USDParse

/// Every USDA layer of the real-world corpus (`../shared/corpus`: `.usda` files, `#usda`-headed `.usd`
/// files, and `#usda` entries of `.usdz` packages, nested packages included) parses, and matches the
/// facts usd-core reports for it (Tests/Fixtures/usda/corpus-facts.json, written by
/// scripts/gen-usda-fixtures.py --corpus).
@Suite(.enabled(if: USDATest.corpusPresent, "../shared/corpus is not present"))
struct USDACorpusTests {
    /// Entries of a zip whose members are stored (USDZ), found by walking local headers only.
    static func storedEntries(_ bytes: [UInt8]) -> [(name: String, data: [UInt8])] {
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        var out: [(String, [UInt8])] = []
        var p = 0
        while p + 30 <= bytes.count, u32(p) == 0x0403_4B50 {
            let method = u16(p + 8)
            let size = u32(p + 18)
            let nameLength = u16(p + 26)
            let extraLength = u16(p + 28)
            let dataStart = p + 30 + nameLength + extraLength
            guard method == 0, dataStart + size <= bytes.count else { break }
            let name = String(decoding: bytes[(p + 30)..<(p + 30 + nameLength)], as: UTF8.self)
            out.append((name, Array(bytes[dataStart..<(dataStart + size)])))
            p = dataStart + size
        }
        return out
    }

    /// Every USDA layer of the corpus, keyed like the facts file (`pkg.usdz!entry[!entry]`).
    static func layers() throws -> [(key: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        func walk(_ bytes: [UInt8], _ prefix: String) {
            for (name, data) in storedEntries(bytes) {
                let key = prefix + "!" + name
                if data.starts(with: Array("#usda".utf8)) {
                    out.append((key, data))
                } else if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                    walk(data, key)
                }
            }
        }
        let root = USDATest.corpus.resolvingSymlinksInPath()
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard !url.hasDirectoryPath, let data = FileManager.default.contents(atPath: url.path) else { continue }
            let bytes = Array(data)
            let key = String(url.resolvingSymlinksInPath().path.dropFirst(root.path.count + 1))
            if bytes.starts(with: Array("#usda".utf8)) {
                out.append((key, bytes))
            } else if url.pathExtension == "usdz" {
                walk(bytes, key)
            }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// Field names usd-core's Sdf schema registers (unregistered metadata such as Omniverse's
    /// `hide_in_stage_window` is stored by both readers but not listed by `pxr`).
    static func isRegistered(_ field: String) -> Bool {
        let structural: Set<String> = [
            "specifier", "typeName", "default", "timeSamples", "connectionPaths", "targetPaths", "variability",
            "custom", "primChildren", "properties", "variantSetChildren", "variantChildren", "subLayers",
            "subLayerOffsets", "layerRelocates", "primOrder", "propertyOrder", "spline",
        ]
        return structural.contains(field) || USDAMetadataSchema.registeredFields.contains(field)
    }

    static func facts() throws -> [String: USDAJSON] {
        let data = try Data(contentsOf: USDATest.fixtures.appendingPathComponent("corpus-facts.json"))
        guard case .object(let facts) = try JSONDecoder().decode(USDAJSON.self, from: data) else { return [:] }
        return facts
    }

    @Test func everyCorpusLayerParsesAndMatchesUsdCore() throws {
        let layers = try Self.layers()
        let facts = try Self.facts()
        #expect(layers.count >= 80)
        #expect(Set(layers.map(\.key)) == Set(facts.keys), "the walk finds exactly the layers usd-core saw")
        for (key, bytes) in layers {
            let layer: SdfLayer
            do {
                layer = try USDAParser.parse(ByteView(bytes), identifier: key, limits: .default,
                                             budget: MemoryBudget(limits: .default))
            } catch {
                Issue.record("\(key): \(error)")
                continue
            }
            guard case .object(let fact)? = facts[key] else { continue }
            #expect(fact["specCount"] == .number(Double(layer.specs.count)), "\(key) spec count")
            var types: [String: USDAJSON] = [:]
            for spec in layer.specs.values {
                let name = USDAJSON.specTypeNames[spec.type] ?? "?"
                if case .number(let n)? = types[name] { types[name] = .number(n + 1) } else { types[name] = .number(1) }
            }
            #expect(fact["specTypes"] == .object(types), "\(key) spec types")
            let fieldCount = layer.specs.values.reduce(0) { $0 + $1.fields.keys.filter(Self.isRegistered).count }
            #expect(fact["fieldCount"] == .number(Double(fieldCount)), "\(key) field count")
            guard case .object(let specs)? = fact["specs"] else { continue }
            for (path, expected) in specs {
                guard case .object(let e) = expected, let spec = layer[SdfPath(path)] else {
                    Issue.record("\(key): missing spec \(path)")
                    continue
                }
                let registered = Set(spec.fields.keys.filter(Self.isRegistered))
                if case .array(let names)? = e["fieldNames"] {  // names only (RoomPlan captures)
                    #expect(registered == Set(names.compactMap { if case .string(let s) = $0 { s } else { nil } }),
                            "\(key) \(path) field names")
                    continue
                }
                guard case .object(let fields)? = e["fields"] else { continue }
                #expect(registered == Set(fields.keys), "\(key) \(path) field names")
                for (name, value) in fields {
                    guard let ours = spec.fields[name] else { continue }
                    #expect(USDAJSON.encode(ours) == value, "\(key) \(path) \(name)")
                }
            }
        }
    }

    @Test func roomPlanParametricExportFacts() throws {
        let layers = try Self.layers()
        let pkg = "roomplan/usdz/sekhar_room_parametric_2sections.usdz!"
        let room = try #require(layers.first { $0.key == pkg + "Room.usda" })
        let layer = try USDATest.parse(bytes: room.bytes)
        #expect(layer.defaultPrim == "Room")
        #expect(layer.metadata["metersPerUnit"] == .double(1))
        #expect(layer.metadata["upAxis"] == .token("Y"))
        let wall0 = try #require(layer[SdfPath("/Room/Parametric_grp/Arch_grp/Wall_0_grp")])
        #expect(wall0["kind"] == .token("group"))
        #expect(wall0["references"] == .referenceListOp(SdfListOp(prepended: [
            SdfReference(assetPath: "./assets/Parametric/Walls/Wall0/Wall0.usda"),
            SdfReference(assetPath: "./assets/Parametric/Walls/Wall0/Door1.usda"),
            SdfReference(assetPath: "./assets/Parametric/Walls/Wall0/Door2.usda"),
        ])))
        let door = try #require(layers.first { $0.key == pkg + "assets/Parametric/Walls/Wall0/Door2.usda" })
        let doorLayer = try USDATest.parse(bytes: door.bytes)
        guard case .dictionary(let customData)? = doorLayer[SdfPath("/Door2")]?["customData"] else {
            Issue.record("customData")
            return
        }
        #expect(customData["Category"] == .string("Door(Isopen: False)"))
        #expect(customData["UUID"]?.string?.count == 36)
        #expect(doorLayer[SdfPath("/Door2/Door2.xformOp:scale")]?["default"] == .scalar(.double3, .double([
            0.8036838173866272, 2.2481765747070312, 0.0005000000237487257,
        ])))
        #expect(doorLayer[SdfPath("/Door2/Door2_color/surfaceShader.inputs:diffuseColor")]?["default"]
            == .scalar(.float3, .float([0.33, 0.33, 0.33])))
    }

    @Test func pointInstancerLayerFacts() throws {
        let url = USDATest.corpus.appendingPathComponent("usd/openusd/pi_basic.usda")
        let layer = try USDATest.parse(bytes: Array(try Data(contentsOf: url)))
        #expect(layer.metadata["upAxis"] == .token("Z"))
        #expect(layer.metadata["startFrame"] == .double(1))
        #expect(layer[SdfPath("/Root/depth1.prototypes")]?["targetPaths"] == .pathListOp(SdfListOp(explicit: [
            SdfPath("/Root/depth1/prototypes/proto1"), SdfPath("/Root/depth1/prototypes/proto2"),
        ])))
        #expect(layer[SdfPath("/Root/depth1/prototypes/proto2/sphereX.xformOp:translate")]?["timeSamples"]
            == .timeSamples(SdfTimeSamples(times: [1, 2], values: [
                .scalar(.float3, .float([0, 0, 0])), .scalar(.float3, .float([0, 0, 1])),
            ])))
    }
}
