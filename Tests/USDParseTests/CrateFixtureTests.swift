import Foundation
import Testing
@testable import USDParse
import TestSupport

/// Locates fixtures and the shared corpus, and reads crate bytes.
enum CrateTestSupport {
    /// The package root (this file is `<root>/Tests/USDParseTests/CrateFixtureTests.swift`).
    static let packageRoot = TestPaths.packageRoot
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/crate")
    static let corpus = packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL

    static var corpusAvailable: Bool { FileManager.default.fileExists(atPath: corpus.path) }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func corpusFile(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: corpus.appendingPathComponent(relative)))
    }

    static func read(_ bytes: [UInt8], limits: ParseLimits = .default, budget: MemoryBudget? = nil) throws -> SdfLayer {
        try CrateReader.read(ByteView(bytes), identifier: "test.usdc", limits: limits,
                             budget: budget ?? MemoryBudget(limits: limits))
    }

    static func structure(_ bytes: [UInt8]) throws -> CrateReader.Structure {
        try CrateReader.readStructure(ByteView(bytes), identifier: "test.usdc", limits: .default,
                                      budget: MemoryBudget(limits: .default))
    }

    /// Expects `body` to throw a `USDParseError` and returns it.
    static func parseError(_ body: () throws -> Void) -> USDParseError? {
        do {
            try body()
            return nil
        } catch let e as USDParseError {
            return e
        } catch {
            Issue.record("unexpected error type \(type(of: error)): \(error)")
            return nil
        }
    }

    /// The ValueRep stored for `field` on the spec at `path`.
    static func rep(_ s: CrateReader.Structure, _ path: String, _ field: String) -> CrateValueRep? {
        let t = s.tables
        for i in 0..<t.specPathIndexes.count where t.paths[Int(t.specPathIndexes[i])].string == path {
            var j = Int(t.specFieldSetIndexes[i])
            while t.fieldSets[j] != CrateTables.invalidIndex {
                let f = Int(t.fieldSets[j])
                if t.tokens[Int(t.fieldNameTokens[f])] == field { return CrateValueRep(t.fieldReps[f]) }
                j += 1
            }
        }
        return nil
    }

    static func putU64(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt64) {
        for k in 0..<8 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
    }

    static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    static func half(_ values: [Float]) -> SdfStorage { .half(values.map(Half.fromFloat)) }
}

@Suite struct CrateFixtureTests {
    static let basicVersions = ["0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0"]

    static let basicDefaults: [String: SdfValue] = [
        "bigInts": .array(.int, .int32(Array(0...18) + [1_000_000])),
        "smallInts": .array(.int, .int32([5, -3, 7])),
        "bigUInts": .array(.uint, .uint32([4_000_000_000] + Array(1...17))),
        "bigInt64s": .array(.int64, .int64([1_099_511_627_776, -1_099_511_627_776] + Array(2...16) + [Int64.min])),
        "bigUInt64s": .array(.uint64, .uint64([UInt64.max] + Array(0...14))),
        "intFloats": .array(.float, .float((0...18).map { Float($0) } + [-19])),
        "lutFloats": .array(.float, .float(Array(repeating: [0.5, 1.25], count: 10).flatMap { $0 })),
        "lutDoubles": .array(.double, .double(Array(repeating: [0.1, 0.2], count: 8).flatMap { $0 })),
        "intHalfs": .array(.half, CrateTestSupport.half((0...17).map { Float($0) })),
        "rawFloats": .array(.float, .float([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7])),
        "emptyInts": .array(.int, .int32([])),
        "dOut": .scalar(.double, .double([0.1])),
        "dIn": .scalar(.double, .double([1.5])),
        "i64In": .scalar(.int64, .int64([-5])),
        "i64Out": .scalar(.int64, .int64([1_099_511_627_776])),
        "u64Out": .scalar(.uint64, .uint64([UInt64.max])),
        "vIn": .scalar(.float3, .float([1, -2, 3])),
        "vOut": .scalar(.float3, .float([1.5, 2, 3])),
        "h2": .scalar(.half2, CrateTestSupport.half([0.5, 1])),
        "h3": .scalar(.half3, CrateTestSupport.half([1, 2, 3])),
        "h3Out": .scalar(.half3, CrateTestSupport.half([0.5, 2, 3])),
        "mId": .scalar(.matrix4d, .double([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])),
        "mOut": .scalar(.matrix4d, .double([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1])),
        "m2": .scalar(.matrix2d, .double([2, 0, 0, -3])),
        "qf": .scalar(.quatf, .float([1, 2, 3, 0.5])),
        "qd": .scalar(.quatd, .double([0, 0, 0, 1])),
        "qh": .scalar(.quath, CrateTestSupport.half([0.25, 0, 1, 0.5])),
        "tok": .scalar(.token, .string(["hello"])),
        "str": .scalar(.string, .string(["world"])),
        "file": .scalar(.asset, .string(["./tex.png"])),
        "files": .array(.asset, .string(["a.png", "b.png"])),
        "strs": .array(.string, .string(["x", "y"])),
        "toks": .array(.token, .string(["p", "q"])),
        "flag": .scalar(.bool, .bool([true])),
        "flags": .array(.bool, .bool([true, false, true])),
        "uc": .scalar(.uchar, .uint8([200])),
        "u": .scalar(.uint, .uint32([4_000_000_000])),
        "i2": .scalar(.int2, .int32([1, 2])),
        "d3": .scalar(.double3, .double([0.1, 0.2, 0.3])),
        "pts": .array(.float3, .float([0, 0, 0, 1, 0, 0, 0, 1.5, 0])),
        "orient": .scalar(.token, .string(["rightHanded"])),
        "blocked": .valueBlock,
    ]

    @Test(arguments: basicVersions)
    func basicFixtureDecodesEveryValue(version: String) throws {
        let bytes = try CrateTestSupport.fixture("basic-\(version).usdc")
        #expect(bytes[9] == UInt8(version.split(separator: ".")[1])!)
        let layer = try CrateTestSupport.read(bytes)
        #expect(layer.warnings == [])
        #expect(layer.specs.count == 59)
        for (name, expected) in Self.basicDefaults {
            #expect(layer[SdfPath("/Root.\(name)")]?["default"] == expected, "\(name) @ \(version)")
        }
        #expect(layer[SdfPath("/Root.orient")]?["variability"] == .variability(.uniform))
        #expect(layer[SdfPath("/Root.pts")]?["typeName"] == .token("point3f[]"))
    }

    @Test(arguments: basicVersions)
    func basicFixtureLayerMetadata(version: String) throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("basic-\(version).usdc"))
        let root = try #require(layer[.root])
        #expect(root.type == .pseudoRoot)
        #expect(layer.defaultPrim == "Root")
        #expect(root["documentation"] == .string("basic fixture"))
        #expect(root["metersPerUnit"] == .double(0.01))
        #expect(root["upAxis"] == .token("Z"))
        #expect(root["timeCodesPerSecond"] == .double(24))
        #expect(root["subLayers"] == .stringVector(["./a.usda", "./b.usda"]))
        #expect(root["subLayerOffsets"] == .layerOffsetVector([SdfLayerOffset(offset: 10, scale: 2), .identity]))
        #expect(root["primChildren"] == .tokenVector(["Root", "Internal", "Class", "Ov"]))
        #expect(root["customLayerData"] == .dictionary([
            "creator": .string("gen-crate-fixtures"),
            "nested": .dictionary(["answer": .int(42), "ds": .array(.double, .double([0.5, 1.5]))]),
        ]))
    }

    @Test(arguments: basicVersions)
    func basicFixtureCompositionArcs(version: String) throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("basic-\(version).usdc"))
        let prim = try #require(layer[SdfPath("/Root")])
        #expect(prim.type == .prim)
        #expect(prim["specifier"] == .specifier(.def))
        #expect(prim["typeName"] == .token("Xform"))
        #expect(prim["kind"] == .token("component"))
        #expect(prim["apiSchemas"] == .tokenListOp(SdfListOp(prepended: ["MaterialBindingAPI"])))
        #expect(prim["customData"] == .dictionary([
            "b": .bool(true), "d": .double(0.1), "i": .int(5), "s": .string("v"), "t": .token("tok"),
        ]))
        #expect(prim["inheritPaths"] == .pathListOp(SdfListOp(explicit: [SdfPath("/Class")])))
        #expect(prim["payload"] == .payload(SdfPayload(assetPath: "./payload.usda", primPath: SdfPath("/P"))))
        #expect(prim["references"] == .referenceListOp(SdfListOp(prepended: [
            SdfReference(assetPath: "./ref.usda", primPath: SdfPath("/Src"),
                         layerOffset: SdfLayerOffset(offset: 5, scale: 2)),
            SdfReference(assetPath: "", primPath: SdfPath("/Internal")),
        ])))
        #expect(prim["variantSetNames"] == .stringListOp(SdfListOp(prepended: ["shading"])))
        #expect(prim["variantSelection"] == .variantSelection(["shading": "red"]))
        #expect(prim["variantSetChildren"] == .tokenVector(["shading"]))
        #expect(layer[SdfPath("/Root.inp")]?["connectionPaths"]
                == .pathListOp(SdfListOp(explicit: [SdfPath("/Root/Mat.outputs:x")])))
        let rel = try #require(layer[SdfPath("/Root.material:binding")])
        #expect(rel.type == .relationship)
        #expect(rel["targetPaths"] == .pathListOp(SdfListOp(explicit: [SdfPath("/Root/Mat")])))
        #expect(layer[SdfPath("/Internal")]?["permission"] == .permission(.private))
        #expect(layer[SdfPath("/Class")]?["specifier"] == .specifier(.class))
        #expect(layer[SdfPath("/Ov")]?.type == .prim)
        #expect(layer[SdfPath("/Ov")]?["specifier"] == nil)  // `over` is the fallback; writers omit it
    }

    @Test(arguments: basicVersions)
    func basicFixtureVariantPathsAndTimeSamples(version: String) throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("basic-\(version).usdc"))
        #expect(layer[SdfPath("/Root{shading=}")]?.type == .variantSet)
        #expect(layer[SdfPath("/Root{shading=}")]?["variantChildren"] == .tokenVector(["blue", "red"]))
        #expect(layer[SdfPath("/Root{shading=red}")]?.type == .variant)
        #expect(layer[SdfPath("/Root{shading=blue}")]?.type == .variant)
        #expect(layer[SdfPath("/Root{shading=red}Inner")]?["typeName"] == .token("Sphere"))
        #expect(layer[SdfPath("/Root{shading=red}Inner.radius")]?["default"] == .double(2))
        #expect(layer[SdfPath("/Root{shading=red}.v")]?["default"] == .float(1))
        let anim = try #require(layer[SdfPath("/Root.anim")])
        #expect(anim["custom"] == .bool(true))
        #expect(anim["timeSamples"] == .timeSamples(SdfTimeSamples(
            times: [0, 10, 20], values: [.float(1), .float(2.5), .valueBlock])))
        #expect(layer[SdfPath("/Root.xlate")]?["timeSamples"] == .timeSamples(SdfTimeSamples(
            times: [1, 2], values: [.scalar(.double3, .double([1, 2, 3.5])), .scalar(.double3, .double([1, 2, 3]))])))
    }

    @Test func richFixtureListOpsOfEveryItemType() throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("rich-0.8.0.usdc"))
        #expect(layer.warnings == [])
        let prim = try #require(layer[SdfPath("/Root")])
        #expect(prim["payload"] == .payloadListOp(SdfListOp(prepended: [
            SdfPayload(assetPath: "./p1.usda", primPath: SdfPath("/A"), layerOffset: SdfLayerOffset(offset: 3, scale: 1)),
            SdfPayload(assetPath: "./p2.usda"),
        ])))
        #expect(prim["references"] == .referenceListOp(SdfListOp(prepended: [
            SdfReference(assetPath: "./r.usda", customData: ["refData": .int(7)]),
        ])))
        var intOps = SdfListOp<Int64>(prepended: [1, -2])
        intOps.appendedItems = [3]
        var uintOps = SdfListOp<UInt64>()
        uintOps.deletedItems = [7]
        var uint64Ops = SdfListOp<UInt64>()
        uint64Ops.appendedItems = [1 << 63]
        var strOps = SdfListOp<String>()
        strOps.deletedItems = ["a"]
        #expect(prim["customData"] == .dictionary([
            "intOps": .intListOp(intOps),
            "int64Ops": .intListOp(SdfListOp(explicit: [1 << 40, -5])),
            "uintOps": .uintListOp(uintOps),
            "uint64Ops": .uintListOp(uint64Ops),
            "strOps": .stringListOp(strOps),
            "pathOps": .pathListOp(SdfListOp(explicit: [SdfPath("/A"), SdfPath("/A.b")])),
            "tokOps": .tokenListOp(SdfListOp(prepended: ["t"])),
            "unreg": .string("hi"),
        ]))
    }

    @Test func newerFixtureTimeCodesDurationsPathExpressionsRelocates() throws {
        let bytes = try CrateTestSupport.fixture("newer-0.16.0.usdc")
        #expect(Array(bytes[8..<11]) == [0, 16, 0])
        let layer = try CrateTestSupport.read(bytes)
        #expect(layer.warnings == [])
        func value(_ name: String) -> SdfValue? { layer[SdfPath("/Root.\(name)")]?["default"] }
        #expect(value("tc") == .scalar(.timecode, .double([12.5])))
        #expect(value("tcs") == .array(.timecode, .double([1, 2.5])))
        #expect(value("dur") == .scalar(.duration, .double([2])))
        #expect(value("durs") == .array(.duration, .double([1, 0.5])))
        #expect(value("pe") == .scalar(.pathExpression, .string(["/a/b //c"])))
        #expect(value("pes") == .array(.pathExpression, .string(["/x", "/y"])))
        #expect(layer.metadata["layerRelocates"] == .relocates([SdfPath("/Root/A"): SdfPath("/Root/B")]))
    }

    @Test func unsupportedValuesBecomeFieldLevelWarnings() throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("unsupported-0.14.0.usdc"))
        #expect(layer[SdfPath("/Root.plain")]?["default"] == .int(7))
        guard case .unsupported = layer[SdfPath("/Root.sp")]?["spline"] else {
            Issue.record("spline should be unsupported")
            return
        }
        guard case .unsupported = layer[SdfPath("/Root.ae")]?["default"] else {
            Issue.record("array edit should be unsupported")
            return
        }
        guard case .dictionary(let cd) = layer[SdfPath("/Root")]?["customData"], case .unsupported = cd["uvlo"] else {
            Issue.record("unregistered value list op should be unsupported")
            return
        }
        #expect(layer.warnings.count == 3)
        #expect(layer.warnings.contains { $0.contains("/Root.sp") && $0.contains("spline") })
        #expect(layer.warnings.contains { $0.contains("/Root.ae") && $0.contains("array edit") })
    }

    @Test func isCrateSniffsTheMagic() throws {
        #expect(CrateReader.isCrate(ByteView(try CrateTestSupport.fixture("mesh-0.8.0.usdc"))))
        #expect(!CrateReader.isCrate(ByteView(Array("#usda 1.0\n".utf8))))
        #expect(!CrateReader.isCrate(ByteView(Array("PXR-USD".utf8))))
    }

    @Test func crateInsideALargerBufferReadsFromItsSlice() throws {
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        let padded = [UInt8](repeating: 0xEE, count: 64) + bytes + [1, 2, 3]
        let slice = try ByteView(padded).slice(64, bytes.count)
        let layer = try CrateReader.read(slice, identifier: "inner.usdc", limits: .default,
                                         budget: MemoryBudget(limits: .default))
        #expect(layer.identifier == "inner.usdc")
        #expect(layer[SdfPath("/M.points")]?["default"] == .array(.float3, .float([0, 0, 0, 1, 0, 0, 0, 1.5, 0])))
    }
}
