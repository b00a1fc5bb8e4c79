import Testing
@testable import USDParse

/// The worked example of usd-format.md §10.1 (the Mesh "M" file written by usd-core), and the
/// path-tree rebuild on crafted inputs.
@Suite struct CrateStructureTests {
    static let exampleTokens = [
        ";-)", "", "M", "primChildren", "specifier", "Mesh", "typeName", "points", "properties", "point3f[]", "default",
    ]

    @Test func workedExampleBootstrapAndTOC() throws {
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        #expect(bytes.count == 699)
        #expect(Array(bytes[0..<11]) == Array("PXR-USDC".utf8) + [0, 8, 0])
        let s = try CrateTestSupport.structure(bytes)
        #expect(s.bootstrap.version == CrateVersion(0, 8, 0))
        #expect(s.bootstrap.tocOffset == 0x1F3)
        #expect(s.toc.sections == [
            CrateSection(name: "TOKENS", start: 0x9C, size: 0x68),
            CrateSection(name: "STRINGS", start: 0x104, size: 0x08),
            CrateSection(name: "FIELDS", start: 0x10C, size: 0x4E),
            CrateSection(name: "FIELDSETS", start: 0x15A, size: 0x1F),
            CrateSection(name: "PATHS", start: 0x179, size: 0x40),
            CrateSection(name: "SPECS", start: 0x1B9, size: 0x3A),
        ])
        // FIELDS name-token block and the whole FIELDSETS section, byte for byte as annotated.
        #expect(Array(bytes[0x114..<0x128]) == [0x0C, 0, 0, 0, 0, 0, 0, 0] + [0x00, 0xA0, 0x02, 0, 0, 0, 0x05, 0x05,
                                                                          0x03, 0x01, 0xFE, 0x04])
        #expect(Array(bytes[0x15A..<0x179]) == [0x09, 0, 0, 0, 0, 0, 0, 0, 0x0F, 0, 0, 0, 0, 0, 0, 0]
                + [0x00, 0xD0, 0x01, 0x00, 0x00, 0x00, 0x15, 0x14, 0x01, 0x00, 0xFF, 0x02, 0xFC, 0x05, 0xFA])
    }

    @Test func workedExampleTables() throws {
        let s = try CrateTestSupport.structure(try CrateTestSupport.fixture("mesh-0.8.0.usdc"))
        let t = s.tables
        #expect(t.tokens == Self.exampleTokens)
        #expect(t.strings == [])
        #expect(t.fieldNameTokens == [3, 4, 6, 8, 6, 10])
        #expect(t.fieldReps == [
            0x0029_0000_0000_0058,  // primChildren: TokenVector @0x58
            0x402A_0000_0000_0000,  // specifier: inline def
            0x400B_0000_0000_0005,  // typeName: inline token 5 (Mesh)
            0x0029_0000_0000_0064,  // properties: TokenVector @0x64
            0x400B_0000_0000_0009,  // typeName: inline token 9 (point3f[])
            0x8018_0000_0000_0070,  // default: Vec3f[] @0x70
        ])
        let end = CrateTables.invalidIndex
        #expect(t.fieldSets == [0, end, 1, 2, 3, end, 4, 5, end])
        #expect(t.paths == [SdfPath("/"), SdfPath("/M"), SdfPath("/M.points")])
        #expect(t.specPathIndexes == [0, 1, 2])
        #expect(t.specFieldSetIndexes == [0, 2, 6])
        #expect(t.specTypes == [7, 6, 1])
    }

    @Test func workedExampleLayer() throws {
        let layer = try CrateTestSupport.read(try CrateTestSupport.fixture("mesh-0.8.0.usdc"))
        #expect(layer.specs.count == 3)
        #expect(layer[.root]?.type == .pseudoRoot)
        #expect(layer[.root]?["primChildren"] == .tokenVector(["M"]))
        let mesh = try #require(layer[SdfPath("/M")])
        #expect(mesh.type == .prim)
        #expect(mesh.fields == [
            "specifier": .specifier(.def), "typeName": .token("Mesh"), "properties": .tokenVector(["points"]),
        ])
        let points = try #require(layer[SdfPath("/M.points")])
        #expect(points.type == .attribute)
        #expect(points.fields == [
            "typeName": .token("point3f[]"),
            "default": .array(.float3, .float([0, 0, 0, 1, 0, 0, 0, 1.5, 0])),
        ])
    }

    // MARK: Path tree

    static func build(_ slots: [UInt32], _ tokens: [Int32], _ jumps: [Int32], numPaths: Int? = nil) throws -> [SdfPath] {
        try CratePathTree.build(
            pathIndexes: slots, elementTokens: tokens, jumps: jumps, numPaths: numPaths ?? slots.count,
            tokens: ["", "A", "B", "x", "{v=a}", "C", "[/T]", "a/b", "{v}", "[/T"], budget: MemoryBudget(limits: .default))
    }

    @Test func pathTreeBuildsSiblingsChildrenPropertiesAndVariants() throws {
        // /, /A, /A.x, /A{v=a}, /A{v=a}C, /B  (A has children and its sibling B at 1 + 4)
        let paths = try Self.build([0, 1, 2, 3, 4, 5], [1, 1, -3, 4, 5, 2], [-1, 4, 0, -1, -2, -2])
        #expect(paths.map(\.string) == ["/", "/A", "/A.x", "/A{v=a}", "/A{v=a}C", "/B"])
    }

    @Test func pathTreeLeavesUnassignedSlotsEmptyAndHonoursSlots() throws {
        let paths = try Self.build([2, 0], [1, 1], [-1, -2], numPaths: 3)
        #expect(paths == [SdfPath("/A"), .empty, .root])
    }

    @Test func pathTreeAcceptsTargetElements() throws {
        let paths = try Self.build([0, 1, 2, 3], [1, 1, -3, 6], [-1, -1, -1, -2])
        #expect(paths.last == SdfPath("/A.x[/T]"))
    }

    @Test func pathTreeRejectsHostileShapes() {
        let cases: [(String, [UInt32], [Int32], [Int32])] = [
            ("child and sibling coincide", [0, 1, 2, 3], [1, 1, 2, 5], [-1, 1, 1, -2]),
            ("all jumps 1", [0, 1, 2, 3], [1, 1, 2, 5], [1, 1, 1, 1]),
            ("INT32_MIN element token", [0, 1], [1, Int32.min], [-1, -2]),
            ("token out of range", [0, 1], [1, 99], [-1, -2]),
            ("negative token out of range", [0, 1], [1, -99], [-1, -2]),
            ("slot out of range", [0, 7], [1, 1], [-1, -2]),
            ("slot assigned twice", [0, 0], [1, 1], [-1, -2]),
            ("jump below -2", [0, 1], [1, 1], [-1, -3]),
            ("sibling jump past the end", [0, 1, 2], [1, 1, 2], [-1, 9, -2]),
            ("entry never reached", [0, 1, 2], [1, 1, 2], [-1, -2, -2]),
            ("child past the end", [0, 1], [1, 1], [-1, -1]),
            ("root with a sibling", [0, 1], [1, 1], [0, -2]),
            ("property under a property", [0, 1, 2, 3], [1, 1, -3, -3], [-1, -1, -1, -2]),
            ("prim under a property", [0, 1, 2, 3], [1, 1, -3, 2], [-1, -1, -1, -2]),
            ("empty element name", [0, 1, 2], [1, 1, 0], [-1, -1, -2]),
            ("name with a slash", [0, 1], [1, 7], [-1, -2]),
            ("property name with a slash", [0, 1, 2], [1, 1, -7], [-1, -1, -2]),
            ("variant selection under the root", [0, 1], [1, 4], [-1, -2]),
            ("property under the root", [0, 1], [1, -3], [-1, -2]),
            ("target under a prim", [0, 1, 2], [1, 1, 6], [-1, -1, -2]),
            ("variant selection without '='", [0, 1, 2], [1, 1, 8], [-1, -1, -2]),
            ("unterminated target", [0, 1, 2, 3], [1, 1, -3, 9], [-1, -1, -1, -2]),
        ]
        for (name, slots, tokens, jumps) in cases {
            let e = CrateTestSupport.parseError { _ = try Self.build(slots, tokens, jumps) }
            #expect(e?.code == .corrupt, "\(name)")
        }
    }

    @Test func pathTreeChargesDeepChainsToTheBudget() {
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 10_000
        let n = 2_000
        let e = CrateTestSupport.parseError {
            _ = try CratePathTree.build(
                pathIndexes: (0..<n).map { UInt32($0) }, elementTokens: [1] + Array(repeating: 2, count: n - 1),
                jumps: Array(repeating: -1, count: n - 1) + [-2], numPaths: n, tokens: ["", "aaaa", "b"],
                budget: MemoryBudget(limits: limits))
        }
        #expect(e?.code == .memoryBudgetExceeded)
    }
}
