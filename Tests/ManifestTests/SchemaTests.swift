import Foundation
import Testing
import Manifest

/// The committed schema: its own shape, and that it rejects broken manifests.
@Suite struct SchemaTests {
    let schema: JSONDocument
    let validator: SchemaValidator
    let golden: JSONDocument

    init() throws {
        schema = try ManifestTestSupport.schema()
        validator = try SchemaValidator(schema: schema)
        golden = try JSONDocument.parse([UInt8](Data(contentsOf: ManifestTestSupport.goldenURL)))
    }

    @Test func schemaDeclaresDraft2020_12AndItsId() {
        #expect(schema["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        #expect(schema["$id"] == .string("https://crowdroom.app/schemas/layer_manifest.schema.json"))
        #expect(schema["properties"]?["schema_version"]?["const"] == .number(Double(ManifestBuilder.schemaVersion)))
    }

    /// Every object shape the schema defines is closed and lists all its keys as required (the
    /// builder always writes every key, null when absent).
    @Test func everyDefinedObjectIsClosedAndFullyRequired() {
        var checked = 0
        func walk(_ s: JSONDocument, _ path: String) {
            guard case .object(let members) = s else { return }
            if s["type"] == .string("object"), let props = s["properties"]?.objectValue {
                checked += 1
                #expect(s["additionalProperties"] == .bool(false), "\(path) is not closed")
                let required = Set(s["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                #expect(required == Set(props.map(\.key)), "\(path) does not require every key")
            }
            for m in members {
                if let items = m.value.arrayValue {
                    for (i, item) in items.enumerated() { walk(item, "\(path)/\(m.key)/\(i)") }
                } else {
                    walk(m.value, "\(path)/\(m.key)")
                    for sub in m.value.objectValue ?? [] where m.key == "properties" || m.key == "$defs" {
                        walk(sub.value, "\(path)/\(m.key)/\(sub.key)")
                    }
                }
            }
        }
        walk(schema, "#")
        #expect(checked >= 20)
    }

    @Test func goldenManifestIsValid() {
        #expect(validator.validate(golden) == [])
    }

    static let negativeCases: [(String, [JSONDocument.PathComponent], JSONDocument?, String)] = [
        ("missing top-level key", ["layers"], nil, "missing required key layers"),
        ("missing element key", ["elements", 0, "identifier"], nil, "missing required key identifier"),
        ("schema_version as string", ["schema_version"], .string("1"), "constant"),
        ("node as string", ["elements", 0, "node"], .string("3"), "expected type integer or null"),
        ("node negative", ["layers", 0, "node"], .number(-1), "minimum"),
        ("node fractional", ["layers", 0, "node"], .number(1.5), "expected type integer"),
        ("unknown top-level key", ["created_at"], .string("2026-01-01T00:00:00Z"), "unexpected key created_at"),
        ("unknown element key", ["elements", 0, "colour"], .string("red"), "unexpected key colour"),
        ("upper-case hash", ["glb", "sha256"], .string(String(repeating: "A", count: 64)), "does not match"),
        ("short hash", ["inputs", 0, "sha256"], .string("abc"), "does not match"),
        ("unknown geometry", ["elements", 1, "geometry"], .string("mesh"), "is not one of"),
        ("unknown layer kind", ["layers", 0, "kind"], .string("ceilings"), "is not one of"),
        ("bad grade", ["quality", "grade"], .string("D"), "is not one of"),
        ("vec3 with 4 numbers", ["sections", 0, "center"], .array([.number(0), .number(0), .number(0), .number(0)]),
         "no value is allowed"),
        ("vec3 with 2 numbers", ["bounds", "min"], .array([.number(0), .number(0)]), "fewer than 3"),
        ("transform with 15 numbers", ["elements", 0, "transform"], .array(Array(repeating: .number(0), count: 15)),
         "fewer than 16"),
        ("absolute glb path", ["glb", "path"], .string("/model.glb"), "does not match"),
        ("parent path escape", ["thumbnails", 0, "path"], .string("../hero.webp"), "does not match"),
        ("identifier with space", ["elements", 0, "identifier"], .string("a b"), "matches none of anyOf"),
        ("bad version id", ["version_id"], .string("9b0c"), "matches none of anyOf"),
        ("story key not an integer", ["metrics", "counts_per_story", "x"], .number(1), "does not match"),
        ("layer count key not a layer id", ["metrics", "counts_per_layer", "ceilings"], .number(1), "does not match"),
        ("negative count", ["stats", "triangles"], .number(-1), "minimum"),
        ("camera with both projections", ["thumbnails", 1, "camera", "fov_degrees"], .number(40), "oneOf"),
        ("camera with neither projection", ["thumbnails", 0, "camera", "fov_degrees"], .null, "oneOf"),
        ("attribute value not a string", ["elements", 5, "attributes", "ChairType"], .number(1), "expected type string"),
        ("wrong output units", ["units", "output"], .string("centimetres"), "constant"),
        ("share above 1", ["quality", "high_confidence_wall_share"], .number(1.2), "maximum"),
        ("width zero", ["thumbnails", 0, "width"], .number(0), "minimum"),
    ]

    @Test(arguments: 0..<negativeCases.count)
    func brokenManifestsAreRejected(caseIndex: Int) {
        let (name, path, value, message) = Self.negativeCases[caseIndex]
        let broken = golden.setting(path, to: value)
        #expect(broken != golden, "\(name): the edit did not apply")
        let errors = validator.validate(broken)
        #expect(!errors.isEmpty, "\(name): accepted")
        #expect(errors.contains { $0.contains(message) }, "\(name): \(errors)")
    }
}

/// The validator itself, keyword by keyword, so a passing schema check means something.
@Suite struct SchemaValidatorTests {
    func errors(_ schema: String, _ instance: String) throws -> [String] {
        try SchemaValidator(schema: try JSONDocument.parse(schema)).validate(try JSONDocument.parse(instance))
    }

    @Test(arguments: [
        (#"{"type": "integer"}"#, "3", true), (#"{"type": "integer"}"#, "3.0", true), (#"{"type": "integer"}"#, "3.5", false),
        (#"{"type": ["string", "null"]}"#, "null", true), (#"{"type": ["string", "null"]}"#, "1", false),
        (#"{"type": "boolean"}"#, "0", false), (#"{"type": "number"}"#, "true", false),
        (#"{"enum": ["a", null]}"#, "null", true), (#"{"enum": ["a", null]}"#, "\"b\"", false),
        (#"{"const": {"a": [1, 2]}}"#, #"{"a": [1, 2.0]}"#, true), (#"{"const": 1}"#, "2", false),
        (#"{"minimum": 0, "maximum": 1}"#, "1", true), (#"{"minimum": 0, "maximum": 1}"#, "-0.5", false),
        (#"{"exclusiveMinimum": 0}"#, "0", false), (#"{"exclusiveMaximum": 180}"#, "179.9", true),
        (#"{"minLength": 2, "maxLength": 3}"#, "\"é😀\"", true), (#"{"minLength": 2}"#, "\"é\"", false),
        (#"{"pattern": "^[0-9a-f]{4}$"}"#, "\"00af\"", true), (#"{"pattern": "^[0-9a-f]{4}$"}"#, "\"00AF\"", false),
        (#"{"pattern": "b"}"#, "\"abc\"", true),
        (#"{"minItems": 1, "maxItems": 2}"#, "[]", false), (#"{"maxItems": 2}"#, "[1, 2, 3]", false),
        (#"{"items": {"type": "number"}}"#, #"[1, "x"]"#, false),
        (#"{"prefixItems": [{"type": "string"}], "items": false}"#, #"["a"]"#, true),
        (#"{"prefixItems": [{"type": "string"}], "items": false}"#, #"["a", 1]"#, false),
        (#"{"prefixItems": [{"type": "string"}], "items": {"type": "number"}}"#, #"["a", 1]"#, true),
        (#"{"required": ["a"], "properties": {"a": {"type": "number"}}}"#, "{}", false),
        (#"{"properties": {"a": {"type": "number"}}, "additionalProperties": false}"#, #"{"a": 1, "b": 2}"#, false),
        (#"{"properties": {"a": {}}, "additionalProperties": {"type": "string"}}"#, #"{"a": 1, "b": "x"}"#, true),
        (#"{"patternProperties": {"^x": {"type": "number"}}, "additionalProperties": false}"#, #"{"x1": 1}"#, true),
        (#"{"patternProperties": {"^x": {"type": "number"}}, "additionalProperties": false}"#, #"{"y": 1}"#, false),
        (#"{"propertyNames": {"pattern": "^[0-9]+$"}}"#, #"{"12": 0, "a": 1}"#, false),
        (##"{"$defs": {"n": {"type": "number"}}, "$ref": "#/$defs/n"}"##, "\"x\"", false),
        (##"{"$defs": {"n": {"type": "number"}}, "items": {"$ref": "#/$defs/n"}}"##, "[1, 2]", true),
        (#"{"anyOf": [{"type": "string"}, {"type": "null"}]}"#, "1", false),
        (#"{"oneOf": [{"minimum": 0}, {"maximum": 10}]}"#, "5", false),
        (#"{"oneOf": [{"minimum": 0}, {"maximum": 10}]}"#, "50", true),
        (#"{"allOf": [{"minimum": 0}, {"maximum": 10}]}"#, "50", false),
        (#"{"not": {"type": "null"}}"#, "null", false),
    ])
    func keyword(schema: String, instance: String, valid: Bool) throws {
        let e = try errors(schema, instance)
        #expect(e.isEmpty == valid, "\(schema) on \(instance): \(e)")
    }

    @Test func unknownKeywordsAreRefused() throws {
        #expect(throws: SchemaValidator.UnsupportedKeyword.self) {
            try SchemaValidator(schema: try JSONDocument.parse(#"{"properties": {"a": {"uniqueItems": true}}}"#))
        }
        #expect(throws: SchemaValidator.UnsupportedKeyword.self) {
            try SchemaValidator(schema: try JSONDocument.parse(##"{"$ref": "#/$defs/missing"}"##))
        }
    }
}
