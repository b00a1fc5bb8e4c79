import Foundation
import Testing
@testable import USDParse
import TestSupport

/// Helpers shared by the USDA test suites.
enum USDATest {
    static func parse(_ text: String, limits: ParseLimits = .default, identifier: String = "test.usda") throws
        -> SdfLayer
    {
        try USDAParser.parse(ByteView(Array(text.utf8)), identifier: identifier, limits: limits,
                             budget: MemoryBudget(limits: limits))
    }

    static func parse(bytes: [UInt8], limits: ParseLimits = .default) throws -> SdfLayer {
        try USDAParser.parse(ByteView(bytes), identifier: "test.usda", limits: limits, budget: MemoryBudget(limits: limits))
    }

    /// Parses `#usda 1.0` + a prim `P` whose body is `body`, returning the layer.
    static func prim(_ body: String) throws -> SdfLayer {
        try parse("#usda 1.0\ndef \"P\"\n{\n" + body + "\n}\n")
    }

    /// The `default` of `/P.<name>` after parsing `body` inside prim `P`.
    static func value(_ body: String, _ name: String = "a") throws -> SdfValue? {
        try prim(body)[SdfPath("/P." + name)]?["default"]
    }

    /// The error thrown by parsing `text`, or nil.
    static func error(_ text: String, limits: ParseLimits = .default) -> USDParseError? {
        error(bytes: Array(text.utf8), limits: limits)
    }

    static func error(bytes: [UInt8], limits: ParseLimits = .default) -> USDParseError? {
        do {
            _ = try parse(bytes: bytes, limits: limits)
            return nil
        } catch let e as USDParseError {
            return e
        } catch {
            Issue.record("non-USDParseError thrown: \(error)")
            return nil
        }
    }

    /// Package root (`/work/main`) from this file's path.
    static let packageRoot: URL = TestPaths.packageRoot

    /// `../shared/corpus` next to the package, when present.
    static let corpus: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    static var corpusPresent: Bool { FileManager.default.fileExists(atPath: corpus.path) }

    static let fixtures: URL = packageRoot.appendingPathComponent("Tests/Fixtures/usda")
}
