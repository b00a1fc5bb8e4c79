import Foundation
import Testing
import FuzzHarness
import TestSupport

/// Replays every input the fuzzers found (`Tests/Fixtures/fuzz/<target>/`) through the same
/// target body the fuzz binaries run: each must return, with a typed error or a result.
@Suite struct FuzzFixtureTests {
    /// The package root (this file is `<root>/Tests/FuzzHarnessTests/FuzzFixtureTests.swift`).
    static let packageRoot = TestPaths.packageRoot
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/fuzz")

    /// `target/file` of every fixture.
    static let cases: [String] = FuzzTarget.all.flatMap { target in
        let dir = fixtures.appendingPathComponent(target.name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(target.name)/\($0)" }
    }

    static func run(_ fixture: String) throws -> FuzzOutcome {
        let target = try #require(FuzzTarget.named(String(fixture.prefix { $0 != "/" })))
        let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(fixture)))
        return target.run(bytes)
    }

    @Test(arguments: cases)
    func fixtureReturns(_ fixture: String) throws {
        let outcome = try Self.run(fixture)
        #expect(outcome.code != "UNTYPED_ERROR", "\(fixture): \(outcome)")
    }

    /// Outcomes pinned for particular fixtures (the others only have to return).
    @Test func pinnedOutcomes() throws {
        // A crate layer of 968 bytes whose prims nest 10,000 deep, a mesh at the bottom: its paths
        // and the composed stage are linear in the depth, but the scene's source paths (quadratic
        // in the depth) pass `maxPathStringBytes`, and nothing recurses on the Swift stack on the way.
        #expect(try Self.run("compose/deep-10000-prims.usdc").code == "USD_LIMIT_EXCEEDED")
        // RoomPlan JSON whose floor is centred in the room but whose transform holds 1e30: its
        // corners lie 1e30 m away. The plan once wrote that floor's area through `Int(_:)` and
        // trapped; now the floor is left out of the plan and the conversion succeeds.
        #expect(try Self.run("convert/plan-far-floor.json").code == nil)
    }

    /// The bodies reach the code under test: known inputs give their known outcomes.
    @Test func bodiesReachTheCodeUnderTest() throws {
        func file(_ relative: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: Self.packageRoot.appendingPathComponent(relative)))
        }
        #expect(FuzzTarget.zip.run(try file("Tests/Fixtures/zip/dotdot_name.usdz")).code == "USD_ZIP_UNSAFE_NAME")
        #expect(FuzzTarget.zip.run(try file("Tests/Fixtures/zip/nested.usdz")).code == nil)
        #expect(FuzzTarget.crate.run(try file("Tests/Fixtures/crate/basic-0.8.0.usdc")).code == nil)
        #expect(FuzzTarget.crate.run(Array("PXR-USDC".utf8)).code == "USD_TRUNCATED")
        #expect(FuzzTarget.usda.run(try file("Tests/Fixtures/usda/values_composition.usda")).code == nil)
        #expect(FuzzTarget.usda.run(Array("#usda 1.0\ndef \"A\" {".utf8)).code == "USD_SYNTAX")
        let cycle = FuzzSections.join([
            ("root.usda", Array("#usda 1.0\n(subLayers = [@a.usda@])\n".utf8)),
            ("a.usda", Array("#usda 1.0\n(subLayers = [@root.usda@])\n".utf8)),
        ])
        #expect(FuzzTarget.compose.run(cycle).code == "USD_COMPOSITION_CYCLE")
        #expect(FuzzTarget.roomplan.run(try file("samples/roomplan/ios16_mesh.json")).code == nil)
        #expect(FuzzTarget.roomplan.run(Array("[".utf8)).code?.hasPrefix("ROOMPLAN_") == true)
        #expect(FuzzTarget.texture.run(try file("samples/textured/redacted/textures/albedo.png")).code == nil)
        #expect(FuzzTarget.texture.run(Array("GIF89a".utf8)).code == "THUMB_TEXTURE_UNSUPPORTED")
        #expect(FuzzTarget.convert.run(try file("samples/room.usdz")).code == nil)
        let pair = FuzzSections.join([
            ("root.usdz", try file("samples/roomplan/parametric_two_sections.usdz")),
            ("room.json", try file("samples/roomplan/parametric_two_sections.json")),
        ])
        #expect(FuzzTarget.convert.run(pair).code == nil)
    }

    @Test func everyTargetIsNamedOnce() {
        #expect(Set(FuzzTarget.all.map(\.name)).count == FuzzTarget.all.count)
        #expect(FuzzTarget.all.map(\.name) == ["zip", "crate", "usda", "compose", "roomplan", "texture", "convert"])
    }

    @Test func sectionsRoundTrip() {
        let files: [(name: String, bytes: [UInt8])] = [
            ("root.usda", Array("#usda 1.0\n(subLayers = [@a.usda@])\n".utf8)),
            ("a.usda", Array("#usda 1.0\n".utf8)),
            ("room.json", Array("{}".utf8)),
        ]
        let split = FuzzSections.split(FuzzSections.join(files))
        #expect(split.map(\.name) == files.map(\.name))
        #expect(split.map(\.bytes) == files.map(\.bytes))
        #expect(FuzzSections.split([]).map(\.name) == ["root.usda"])
    }
}
