import Foundation
import SceneModel
import Testing

@testable import USDParse
import TestSupport

/// The whole reader (container → layers → composition → scene) on damaged inputs: truncated and
/// byte-flipped copies of fixtures must end in a typed `USDParseError` or a valid scene, never a
/// crash, and truncated packages and crates must always be refused.
@Suite struct PipelineRobustnessTests {
    static let packageRoot = TestPaths.packageRoot

    static func fixture(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent(relative)))
    }

    /// Parses to a scene; returns nil on success, the error otherwise. Any non-USDParseError fails.
    @discardableResult
    func parse(_ bytes: [UInt8], name: String) -> USDParseError? {
        do {
            let result = try USDParser.parseScene(bytes, name: name)
            #expect(SceneValidator.validate(result.scene).filter { $0.severity == .error }.isEmpty,
                    "a scene that parsed must validate")
            return nil
        } catch let e as USDParseError {
            return e
        } catch {
            Issue.record("untyped error \(error) for \(name)")
            return nil
        }
    }

    @Test(arguments: ["samples/room.usdz", "Tests/Fixtures/crate/mesh-0.8.0.usdc", "Tests/Fixtures/crate/rich-0.8.0.usdc",
                      "Tests/Fixtures/usda/roomplan_root.usdc"])
    func fixturesParseIntact(_ path: String) throws {
        let bytes = try Self.fixture(path)
        #expect(parse(bytes, name: (path as NSString).lastPathComponent) == nil)
    }

    @Test(arguments: ["samples/room.usdz", "Tests/Fixtures/crate/mesh-0.8.0.usdc", "Tests/Fixtures/crate/rich-0.8.0.usdc"])
    func everyTruncationIsRefused(_ path: String) throws {
        let bytes = try Self.fixture(path)
        let name = (path as NSString).lastPathComponent
        // Every prefix of small files; an even sample of at most ~3,000 prefixes of larger ones.
        let step = max(1, bytes.count / 3000)
        var accepted: [Int] = []
        for n in stride(from: 0, to: bytes.count, by: step) where parse(Array(bytes[0..<n]), name: name) == nil {
            accepted.append(n)
        }
        #expect(accepted.isEmpty, "prefixes that parsed: \(accepted.prefix(10))")
    }

    @Test(arguments: ["samples/room.usdz", "Tests/Fixtures/crate/mesh-0.8.0.usdc", "Tests/Fixtures/usda/roomplan_root.usda"])
    func seededByteFlipsNeverCrash(_ path: String) throws {
        let original = try Self.fixture(path)
        let name = (path as NSString).lastPathComponent
        var rng = SplitMix64(seed: 0xC0FFEE)
        // Every refusal is one of the parser's documented codes with a message; a flip that
        // parses yields a scene that validates (checked in `parse`). Both happen.
        let known = Set(USDParseError.Code.allCases.map(\.rawValue))
        var refused: [String: Int] = [:], parsed = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            if let error = parse(bytes, name: name) {
                refused[error.code.rawValue, default: 0] += 1
                #expect(!error.message.isEmpty)
            } else {
                parsed += 1
            }
        }
        #expect(Set(refused.keys).isSubset(of: known), "undocumented codes: \(Set(refused.keys).subtracting(known))")
        #expect(!refused.isEmpty, "no flip of \(name) was refused")
        #expect(parsed > 0, "every flip of \(name) was refused (\(refused)); the test would not see a bad scene slip through")
    }
}
