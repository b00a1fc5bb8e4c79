import Foundation
import Testing
@testable import Manifest

/// Paths and helpers shared by the manifest tests. Files are found through `#filePath`, so the tests
/// read the committed schema (`schemas/layer_manifest.schema.json`) and golden files in place.
///
/// With `MANIFEST_DUMP_DIR=/some/dir`, every manifest a test builds is also written there, so the
/// reference validator can check them too: `scripts/validate-manifest.py /some/dir/*.json`.
enum ManifestTestSupport {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let schemaURL = packageRoot.appendingPathComponent("schemas/layer_manifest.schema.json")
    static let goldenURL = testsDirectory.appendingPathComponent("Fixtures/layer_manifest.golden.json")

    static func schema() throws -> JSONDocument {
        try JSONDocument.parse(Array(try Data(contentsOf: schemaURL)))
    }

    static func validator() throws -> SchemaValidator { try SchemaValidator(schema: try schema()) }

    /// Builds the manifest, parses it back and validates it against the schema; every manifest a
    /// test produces goes through here.
    @discardableResult
    static func buildValidated(
        _ input: ManifestInput, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (bytes: [UInt8], document: JSONDocument) {
        let bytes = try ManifestBuilder.build(input)
        if let dir = ProcessInfo.processInfo.environment["MANIFEST_DUMP_DIR"] {
            // For cross-checking with scripts/validate-manifest.py; named by content so runs agree.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            let name = "manifest-" + String(hash, radix: 16) + ".json"
            try Data(bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(name))
        }
        let document = try JSONDocument.parse(bytes)
        let errors = try validator().validate(document)
        #expect(errors.isEmpty, "schema violations: \(errors)", sourceLocation: sourceLocation)
        return (bytes, document)
    }

    /// Every object in `document` has unique keys in strictly ascending code-point order.
    static func keysAreSorted(_ document: JSONDocument) -> Bool {
        switch document {
        case .object(let members):
            let keys = members.map(\.key)
            let sorted = zip(keys, keys.dropFirst()).allSatisfy {
                $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars)
            }
            return sorted && members.allSatisfy { keysAreSorted($0.value) }
        case .array(let items):
            return items.allSatisfy(keysAreSorted)
        default:
            return true
        }
    }
}
