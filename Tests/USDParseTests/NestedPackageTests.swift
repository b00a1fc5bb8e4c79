import Foundation
import Testing
@testable import USDParse

/// Packages stored inside packages, on the fixtures `scripts/gen-nested-packages.py` writes with
/// usd-core (Tests/Fixtures/zip/nested-packages, with usd-core's answers in expected.json).
@Suite struct NestedPackageTests {
    static let directory = ZipTestFiles.fixtures.appendingPathComponent("nested-packages")

    static func expected() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: directory.appendingPathComponent("expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    }

    static func open(_ name: String, limits: ParseLimits = .default) throws -> USDParser.OpenedStage {
        let bytes = try ZipTestFiles.bytes(directory.appendingPathComponent(name))
        return try USDParser.openStage(bytes, name: name, limits: limits)
    }

    /// `[path, type, points]` of every composed prim, pre-order, as usd-core's answer lists them.
    static func primSummary(_ stage: UsdStage) -> [String] {
        stage.prims.dropFirst().map { prim in
            var line = "\(prim.path.string) \(prim.typeName)"
            if prim.typeName == "Mesh", case .array(let type, let storage)? = prim.attributes["points"]?.defaultValue {
                line += " \(storage.count / max(type.components, 1))"
            }
            return line
        }
    }

    static func primSummary(_ answer: [String: Any]) -> [String] {
        (answer["prims"] as? [[String: Any]] ?? []).map { prim in
            var line = "\(prim["path"] as? String ?? "") \(prim["type"] as? String ?? "")"
            if let points = prim["points"] as? Int { line += " \(points)" }
            return line
        }
    }

    static let matchingCases = ["ref_package.usdz", "sublayer_payload.usdz", "three_levels.usdz", "self_named.usdz",
                                "depth_4.usdz"]

    @Test func everyFixtureIsChecked() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".usdz") }
        #expect(Set(names) == Set(try Self.expected().keys))
        #expect(Set(names) == Set(Self.matchingCases + ["depth_5.usdz", "not_a_zip.usdz", "deflated_inner.usdz"]))
    }

    @Test(arguments: matchingCases)
    func composedStageMatchesUsdCore(_ name: String) throws {
        let answer = try #require(try Self.expected()[name]?["usd_core"] as? [String: Any])
        let opened = try Self.open(name)
        #expect(Self.primSummary(opened.stage) == Self.primSummary(answer))
        // usd-core names a package reached by name by the package (`inner.usdz`); we name its root
        // layer (`inner.usdz[root.usda]`). Every other layer has the same package path in both.
        let package = try #require(opened.provider as? USDZPackage)
        let theirs = try (answer["layers"] as? [String] ?? []).map { layer in
            layer == "(package)" ? package.rootLayerPath : try package.layerPath(for: layer)
        }
        #expect(Set(opened.stage.layerIdentifiers) == Set(theirs))
        #expect(opened.stage.layerIdentifiers.count == theirs.count)
    }

    @Test func relativePathsInsideANestedPackageResolveThere() throws {
        let opened = try Self.open("ref_package.usdz")
        let layers = opened.stage.layerIdentifiers
        // inner.usdz's root layer references ./parts/tri.usda and parts/quad.usda (inside inner.usdz,
        // not the outer package); quad.usda's ./tri.usda resolves beside it.
        #expect(layers.contains("inner.usdz[root.usda]"))
        #expect(layers.contains("inner.usdz[parts/tri.usda]"))
        #expect(layers.contains("inner.usdz[parts/quad.usda]"))
        #expect(opened.stage.warnings.isEmpty, "\(opened.stage.warnings)")
        let scene = try USDParser.parseScene(
            ZipTestFiles.bytes(Self.directory.appendingPathComponent("ref_package.usdz")), name: "ref_package.usdz")
        #expect(scene.scene.meshes.count >= 1)
    }

    @Test func sublayersAndPayloadsReachNestedPackages() throws {
        let opened = try Self.open("sublayer_payload.usdz")
        #expect(opened.stage.layerIdentifiers.contains("base.usdz[base.usda]"))
        #expect(opened.stage.prim(at: SdfPath("/Base"))?.typeName == "Mesh")
        #expect(opened.stage.prim(at: SdfPath("/World/Loaded"))?.typeName == "Mesh")
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        let error = expectZipError(.limitExceeded) { _ = try Self.open("depth_5.usdz") }
        let path = "depth_5.usdz[l1.usdz[l2.usdz[l3.usdz[l4.usdz[l5.usdz]]]]]"
        #expect(error?.section == path)
        #expect(error?.message.contains("maxPackageDepth") == true)
        #expect(error?.message.contains(path) == true)
        #expect(error?.layer == "l1.usdz[l2.usdz[l3.usdz[l4.usdz[l5.usdz]]]]")

        // One more level allowed: the same stage usd-core composes.
        var limits = ParseLimits()
        limits.maxPackageDepth = 5
        let answer = try #require(try Self.expected()["depth_5.usdz"]?["usd_core"] as? [String: Any])
        #expect(Self.primSummary(try Self.open("depth_5.usdz", limits: limits).stage) == Self.primSummary(answer))
        // And the four-level chain stops when the limit is three.
        limits.maxPackageDepth = 3
        expectZipError(.limitExceeded) { _ = try Self.open("depth_4.usdz", limits: limits) }
    }

    @Test func nestedPackageThatIsNotAZipIsATypedErrorNamingIt() throws {
        let error = expectZipError(.zipInvalid) { _ = try Self.open("not_a_zip.usdz") }
        #expect(error?.format == .usdz)
        #expect(error?.section == "not_a_zip.usdz[broken.usdz]")
        #expect(error?.message.contains("not_a_zip.usdz[broken.usdz]") == true)
        #expect(error?.layer == "broken.usdz")
        // Opened without a file name, the package path starts at the entry.
        let package = try USDZPackage.open(
            ByteView(try ZipTestFiles.bytes(Self.directory.appendingPathComponent("not_a_zip.usdz"))),
            limits: .default, budget: MemoryBudget(limits: .default))
        let unnamed = expectZipError(.zipInvalid) { _ = try package.layerPath(for: "broken.usdz") }
        #expect(unnamed?.section == "broken.usdz")
    }

    @Test func anEntryNamedLikeItsPackageStaysInsideThatPackage() throws {
        let opened = try Self.open("self_named.usdz")
        // inner.usdz's `@inner.usdz@` names its own entry, never the package holding it.
        #expect(opened.stage.layerIdentifiers.contains("inner.usdz[inner.usdz[root.usda]]"))
        #expect(opened.stage.prim(at: SdfPath("/World"))?.typeName == "Mesh")
        // only_outside.usda exists in the outer package only: unresolved from inside inner.usdz.
        #expect(opened.stage.warnings.contains { $0.code == "USD_REFERENCE_UNRESOLVED" && $0.message.contains("only_outside.usda") })
        #expect(!opened.stage.layerIdentifiers.contains("only_outside.usda"))
    }

    @Test func nestedPackagesShareTheOuterBudgetsAndOpenOnce() throws {
        let expected = try Self.expected()
        let inflated = try #require((expected["deflated_inner.usdz"]?["ours"] as? [String: Any])?["inflated_bytes"] as? Int)
        let bytes = try ZipTestFiles.bytes(Self.directory.appendingPathComponent("deflated_inner.usdz"))
        let budget = MemoryBudget(limits: .default)
        let opened = try USDParser.openStage(bytes, name: "deflated_inner.usdz", budget: budget)
        let reference = try Self.open("ref_package.usdz")
        #expect(Self.primSummary(opened.stage) == Self.primSummary(reference.stage))
        // Three layers and several arcs reach inner.usdz; it and the deflated parts/quad.usda inside
        // it are inflated (and charged to the one budget) once each.
        #expect(budget.decompressed == inflated)
        #expect(opened.containerWarnings.contains { $0.hasPrefix("ZIP_DEFLATED_ENTRY: 'inner.usdz'") })
        // Findings inside a nested package reached by reference name that package.
        #expect(opened.containerWarnings.contains {
            $0.hasPrefix("ZIP_DEFLATED_ENTRY: 'parts/quad.usda'") && $0.hasSuffix("(in inner.usdz)")
        })

        var limits = ParseLimits()
        limits.maxUncompressedBytes = inflated - 1
        expectZipError(.limitExceeded) {
            _ = try USDParser.openStage(bytes, name: "deflated_inner.usdz", limits: limits)
        }
        // Layers inside nested packages count against the stage's layer limit.
        limits = ParseLimits()
        limits.maxLayers = 3
        expectZipError(.limitExceeded) { _ = try Self.open("ref_package.usdz", limits: limits) }
    }

    @Test func packagePathsNestTheWayOpenUSDJoinsThem() {
        #expect(PackagePath.nest("b.usdz", in: "a.usdz") == "a.usdz[b.usdz]")
        #expect(PackagePath.nest("c.usda", in: "a.usdz[b.usdz]") == "a.usdz[b.usdz[c.usda]]")
        #expect(PackagePath.nest("x", in: "") == "x")
        #expect(PackagePath.nest("c.usdz", in: "a\\[1\\].usdz[b.usdz]") == "a\\[1\\].usdz[b.usdz[c.usdz]]")
        #expect(PackagePath.nest("c.usdz", in: "a\\[1\\].usdz") == "a\\[1\\].usdz[c.usdz]")
    }
}
