import Foundation
import Testing
import FuzzHarness

/// Replays every input the fuzzers found (`Tests/Fixtures/fuzz/<target>/`) through the same
/// target body the fuzz binaries run: each must return, with a typed error or a result.
@Suite struct FuzzFixtureTests {
    /// The package root (this file is `<root>/Tests/FuzzHarnessTests/FuzzFixtureTests.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
