import Foundation
import Testing
@testable import USDParse

/// Every crate file of the shared real-world corpus reads (the obsolete 0.0.1 file is refused with
/// `USD_UNSUPPORTED_VERSION`), and selected values match what usd-core 26.11 reports for them.
/// The corpus lives beside the checkout (`../shared/corpus`); these tests are skipped without it.
@Suite(.enabled(if: CrateTestSupport.corpusAvailable, "shared corpus not found beside the package (../shared/corpus)"))
struct CrateCorpusTests {
    static let obsolete = "malformed/openusd_obsolete_crate001_PTS_dev.1.usd"

    /// Corpus-relative paths of every file that starts with the crate magic.
    static let crateFiles: [String] = {
        let root = CrateTestSupport.corpus
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let ext = (relative as NSString).pathExtension
            guard ext == "usdc" || ext == "usd",
                  let handle = FileHandle(forReadingAtPath: root.appendingPathComponent(relative).path)
            else { continue }
            defer { try? handle.close() }
            if let head = try? handle.read(upToCount: 8), CrateReader.isCrate(ByteView([UInt8](head))) {
                found.append(relative)
            }
        }
        return found.sorted()
    }()

    @Test func corpusHoldsTheExpectedCrateFiles() {
        #expect(Self.crateFiles.count >= 22)
        #expect(Self.crateFiles.contains(Self.obsolete))
        #expect(Self.crateFiles.contains("usd/openusd/crate070_Table.maya.usd"))  // a crate file named .usd
    }

    @Test(arguments: crateFiles)
    func corpusCrateFileReads(relative: String) throws {
        let bytes = try CrateTestSupport.corpusFile(relative)
        if relative == Self.obsolete {
            let e = CrateTestSupport.parseError { _ = try CrateTestSupport.read(bytes) }
            #expect(e?.code == .unsupportedVersion)
            #expect(e?.message.contains("0.0.1") == true)
            return
        }
        let layer = try CrateTestSupport.read(bytes)
        #expect(layer[.root]?.type == .pseudoRoot)
        #expect(layer.specs.count > 1)
    }

    @Test func roomPlanCatalogChairMatchesUsdCore() throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.corpusFile("roomplan/catalog/DefaultChair.rooms.usdc"))
        #expect(layer.defaultPrim == "chair_Default")
        #expect(layer.metadata["upAxis"] == .token("Y"))
        #expect(layer.metadata["metersPerUnit"] == .double(1))
        #expect(layer.metadata["customLayerData"] == .dictionary(["creator": .string("SceneKit export preview 0.66")]))
        #expect(layer.specs.count == 31)
        let mesh = "/chair_Default/Geom/chair_Default/Geom/for_export/chair_Default"
        #expect(layer[SdfPath(mesh)]?["typeName"] == .token("Mesh"))
        func ints(_ name: String) throws -> [Int32] {
            guard case .array(.int, .int32(let a)) = try #require(layer[SdfPath("\(mesh).\(name)")]?["default"]) else {
                throw USDParseError(.typeMismatch, name)
            }
            return a
        }
        let counts = try ints("faceVertexCounts"), indices = try ints("faceVertexIndices")
        #expect((counts.count, counts.reduce(0, +), counts.max()) == (2282, 9072, 4))
        #expect((indices.count, indices.reduce(0) { $0 + Int($1) }, indices.max()) == (9072, 10_485_062, 2315))
        #expect(Array(indices.prefix(2)) == [10, 11])
        let normalIndices = try ints("primvars:normals:indices")
        #expect((normalIndices.count, normalIndices.reduce(0) { $0 + Int($1) }) == (9072, 41_146_056))
        let st = try ints("primvars:st:indices")
        #expect((st.count, st.reduce(0) { $0 + Int($1) }, st.max()) == (9072, 13_066_984, 2843))
        guard case .array(.float3, .float(let p)) = try #require(layer[SdfPath("\(mesh).points")]?["default"]) else {
            Issue.record("points are not float3[]")
            return
        }
        #expect(p.count == 2316 * 3)
        #expect(Array(p.prefix(6)) == [-30.010732650756836, 44.93820571899414, -21.684255599975586,
                                      -30.010732650756836, 44.93820571899414, -16.286653518676758])
        #expect(Array(p.suffix(3)) == [29.370712280273438, 45.655548095703125, 22.451305389404297])
        #expect(layer[SdfPath("\(mesh).extent")]?["default"] == .array(.float3, .float(
            [-31.974842, 0, -27.287073, 31.974842, 89.26721, 27.287073])))
        #expect(layer[SdfPath("/chair_Default/Materials/roomplan_matSG/surfaceShader.info:id")]?["default"]
                == .token("UsdPreviewSurface"))
        #expect(layer[SdfPath("/chair_Default/Materials/roomplan_matSG/surfaceShader.inputs:roughness")]?["default"]
                == .float(1))
    }

    @Test func mayaTableAtCrate070MatchesUsdCore() throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.corpusFile("usd/openusd/crate070_Table.maya.usd"))
        #expect(layer.defaultPrim == "Table")
        func value(_ path: String) -> SdfValue? { layer[SdfPath(path)]?["default"] }
        #expect(value("/Table/mesh.faceVertexIndices") == .array(.int, .int32(
            [0, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6, 6, 7, 1, 0, 1, 7, 5, 3, 6, 0, 2, 4])))
        #expect(value("/Table/mesh.creaseIndices") == .array(.int, .int32(
            [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 0, 7, 1])))
        #expect(value("/Table/mesh.creaseSharpnesses") == .array(.float, .float(Array(repeating: 5, count: 12))))
        #expect(value("/Table/mesh.primvars:st") == .array(.float2, .float(
            [0.375, 0, 0.625, 0, 0.625, 0.25, 0.375, 0.25, 0.625, 0.5, 0.375, 0.5, 0.625, 0.75, 0.375, 0.75,
             0.625, 1, 0.375, 1, 0.875, 0, 0.875, 0.25, 0.125, 0, 0.125, 0.25])))
        #expect(value("/Table/mesh.doubleSided") == .bool(true))
        #expect(value("/Table/Looks/TableMaterial/Felt.inputs:sheen") == .float(0.3595505654811859))
        #expect(value("/Table/Looks/TableMaterial/PxrFractal1.inputs:layers") == .int(2))
    }

    @Test func aousdMatrixAndTimeSampleFilesAtCrate0100() throws {
        let m = try CrateTestSupport.read(try CrateTestSupport.corpusFile("usd/aousd/gen_matrix4d_crate0100.usdc"))
        let single: [Double] = [1, 2, 3, 4, 2, 4, 6, 8, 3, 6, 9, 12, 4, 8, 12, 16]
        #expect(m[SdfPath("/root.single")]?["default"] == .scalar(.matrix4d, .double(single)))
        #expect(m[SdfPath("/root.array")]?["default"] == .array(.matrix4d, .double(single + single)))
        #expect(m[SdfPath("/root.inlined")]?["default"]
                == .scalar(.matrix4d, .double([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])))
        let t = try CrateTestSupport.read(try CrateTestSupport.corpusFile("usd/aousd/gen_timesamples_crate0100.usdc"))
        #expect(t[SdfPath("/root.animated")]?["timeSamples"] == .timeSamples(SdfTimeSamples(
            times: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11],
            values: (0...9).map { SdfValue.float(Float($0)) } + [.valueBlock])))
    }

    @Test func integerCompressedFloatsAndSinglePayloads() throws {
        let f = try CrateTestSupport.read(try CrateTestSupport.corpusFile("usd/mxpv/integer_compressed_floats.usdc"))
        #expect(f[SdfPath("/IntegerCompressedFloats.weights")]?["default"] == .array(.float, .float(
            [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1])))
        let p = try CrateTestSupport.read(
            try CrateTestSupport.corpusFile("usd/openusd/crate070_crate07SinglePayload.usdc"))
        #expect(p[SdfPath("/PayloadRef1")]?["payload"]
                == .payload(SdfPayload(assetPath: "Payload.usda", primPath: SdfPath("/Parent"))))
        #expect(p[SdfPath("/PayloadRef2")]?["payload"]
                == .payload(SdfPayload(assetPath: "Payload2.usda", primPath: SdfPath("/Parent"))))
        #expect(p[SdfPath("/PayloadRefNone")]?["payload"] == .payload(SdfPayload(assetPath: "")))
        #expect(p[SdfPath("/PayloadNoOpinion")]?["payload"] == nil)
    }
}
