import Foundation
import Testing
@testable import USDParse
import TestSupport

/// Syntax errors with positions, limits, hostile inputs and truncation sweeps.
@Suite struct USDAErrorTests {
    /// Every code is unique, upper case, starts with `USD_` and reads back as its case.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(USDParseError.Code.self, prefix: "USD_") == [])
    }

    private func expectSyntax(_ text: String, line: Int, column: Int? = nil, _ comment: Comment? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation)
    {
        let e = USDATest.error(text)
        #expect(e?.code == .syntax, comment, sourceLocation: sourceLocation)
        #expect(e?.format == .usda, sourceLocation: sourceLocation)
        #expect(e?.layer == "test.usda", sourceLocation: sourceLocation)
        #expect(e?.line == line, comment, sourceLocation: sourceLocation)
        if let column { #expect(e?.column == column, comment, sourceLocation: sourceLocation) }
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a = $\n}\n", line: 3, column: 15)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    string a = \"abc\n}\n", line: 3, column: 16)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a = 1\n", line: 4, column: 1)
        expectSyntax("#usda 1.0\ndef \"P\" (\n    kind = \"x\"\n", line: 2, column: 9)
        expectSyntax("#usda 1.0\n/* never closed\ndef \"P\" {}\n", line: 2, column: 1)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    rel r = </A\n}\n", line: 3, column: 13)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    asset a = @x\n}\n", line: 3, column: 15)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    string s = \"\"\"never\n}\n", line: 3, column: 16)
        expectSyntax("#usda 1.0\nfloat a = 1\n", line: 2, column: 1)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float3 a = (1, 2)\n}\n", line: 3, column: 21)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float3 a = 1\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float[] a = 1\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    token a = foo\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    int a = 1x\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    double a = 1e\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    double a = -\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n}\ndef \"P\" {\n}\n", line: 4, column: 5)
        expectSyntax("#usda 1.0\ndef \"bad name\" {\n}\n", line: 2)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a = 1\n    double a = 2\n}\n", line: 4)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    rel a\n    float a\n}\n", line: 4)
        expectSyntax("#usda 1.0\ndef \"P\" (\n    kind = 3\n) {\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" (\n    prepend kind = \"x\"\n) {\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" (\n    customData = { foo x = 1 }\n) {\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    variantSet \"v\" = {\n        def \"X\" {}\n    }\n}\n", line: 4)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a.bogus = 1\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    prepend float a = 1\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a = 1 ]\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    reorder nameChildren = [1]\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a.timeSamples = { nan: 1 }\n}\n", line: 3)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    hello world\n}\n", line: 3, column: 5)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float3x a = 1\n}\n", line: 3, column: 5)
        expectSyntax("#usda 1.0\ndef \"P\" {\n    float a = 1 1\n}\n", line: 3)
    }

    @Test func notUSDAIsUnrecognized() {
        #expect(USDATest.error("PXR-USDC")?.code == .unrecognizedFormat)
        #expect(USDATest.error("")?.code == .unrecognizedFormat)
        #expect(USDATest.error(" #usda 1.0")?.code == .unrecognizedFormat)
    }

    @Test func nulBytesAreRejected() {
        var bytes = Array("#usda 1.0\ndef \"P\" {\n    string s = \"a".utf8)
        bytes.append(0)
        bytes += Array("b\"\n}\n".utf8)
        let e = USDATest.error(bytes: bytes)
        #expect(e?.code == .syntax)
        #expect(e?.line == 3 && e?.column == 18)
        // Even inside a comment.
        #expect(USDATest.error(bytes: Array("#usda 1.0\n# \0\n".utf8))?.code == .syntax)
    }

    /// 100,000 levels of each kind of block are refused where the nesting passes
    /// `maxTextNesting`: the reported offset lies within two repeats of that level, so the parser
    /// read a few kilobytes of the megabyte, not the rest.
    @Test func hostileNestingFailsAtTheCapWithLimitExceeded() {
        let depth = 100_000
        let header = "#usda 1.0\n"
        // (name, what comes before the repeats, the repeated text, nesting levels one repeat opens)
        let cases: [(String, String, String, Int)] = [
            ("prims", "", "def \"A\" {\n", 1),
            ("dictionaries", "def \"P\" (\n customData = {", " dictionary d = {", 1),
            ("tuples", "(\n x = ", "(", 1),
            ("lists", "(\n x = ", "[", 1),
            ("mixed", "(\n x = ", "[(", 2),
            ("variants", "def \"P\" {\n", "variantSet \"v\" = {\n\"a\" {\n", 2),
            ("spline", "def \"P\" {\n double a.spline = ", "{", 1),
        ]
        let cap = ParseLimits.default.maxTextNesting
        for (name, prefix, unit, levels) in cases {
            let repeats = depth / levels
            let e = USDATest.error(header + prefix + String(repeating: unit, count: repeats))
            #expect(e?.code == .limitExceeded, "\(name)")
            #expect(e?.message.contains("maxTextNesting") == true, "\(name)")
            let offset = e?.byteOffset ?? Int.max
            let repeatsRead = (offset - header.utf8.count - prefix.utf8.count) / unit.utf8.count
            #expect(abs(repeatsRead - cap / levels) <= 2, "\(name): refused at byte \(offset), after \(repeatsRead) repeats")
        }
        // Raw braces are a syntax error at the second one.
        #expect(USDATest.error("#usda 1.0\n(\n d = " + String(repeating: "{", count: depth))?.code == .syntax)
        // A custom cap applies exactly.
        var limits = ParseLimits()
        limits.maxTextNesting = 3
        #expect((try? USDATest.parse("#usda 1.0\ndef \"A\" {\n def \"B\" {\n def \"C\" {\n }\n }\n }\n", limits: limits)) != nil)
        #expect(USDATest.error("#usda 1.0\ndef \"A\" {\n def \"B\" {\n def \"C\" {\n def \"D\" {\n }\n }\n }\n }\n",
                               limits: limits)?.code == .limitExceeded)
    }

    @Test func hugeNumberLiteralHitsTheStringLimit() {
        let digits = String(repeating: "7", count: 10_000_000)
        let e = USDATest.error("#usda 1.0\ndef \"P\" {\n    double a = " + digits + "\n}\n")
        #expect(e?.code == .limitExceeded)
        #expect(e?.message.contains("maxStringLength") == true)
        #expect(e?.line == 3)
        // Below the cap it parses (as a double, like USD).
        var limits = ParseLimits()
        limits.maxStringLength = 20_000_000
        let layer = try? USDATest.parse("#usda 1.0\ndef \"P\" {\n    double a = " + digits + "\n}\n", limits: limits)
        #expect(layer?[SdfPath("/P.a")]?["default"] == .double(.infinity))
    }

    @Test func limitsAreEnforced() {
        var limits = ParseLimits()
        limits.maxArrayElements = 3
        #expect(USDATest.error("#usda 1.0\ndef \"P\" {\n int[] a = [1, 2, 3, 4]\n}\n", limits: limits)?.code
            == .limitExceeded)
        #expect((try? USDATest.parse("#usda 1.0\ndef \"P\" {\n int[] a = [1, 2, 3]\n}\n", limits: limits)) != nil)

        limits = ParseLimits()
        limits.maxStringLength = 8
        #expect(USDATest.error("#usda 1.0\ndef \"P\" {\n string a = \"123456789\"\n}\n", limits: limits)?.code
            == .limitExceeded)
        #expect(USDATest.error("#usda 1.0\ndef \"P\" {\n float abcdefghij = 1\n}\n", limits: limits)?.code
            == .limitExceeded)

        limits = ParseLimits()
        limits.maxSpecs = 3
        #expect(USDATest.error("#usda 1.0\ndef \"A\" {\n float a\n float b\n}\n", limits: limits)?.code == .limitExceeded)

        limits = ParseLimits()
        limits.maxTimeSamples = 2
        #expect(USDATest.error("#usda 1.0\ndef \"P\" {\n float a.timeSamples = {1: 1, 2: 2, 3: 3}\n}\n",
                               limits: limits)?.code == .limitExceeded)

        limits = ParseLimits()
        limits.maxDictionaryEntries = 1
        #expect(USDATest.error("#usda 1.0\n(\n customLayerData = { int a = 1\n int b = 2 }\n)\n", limits: limits)?.code
            == .limitExceeded)

        limits = ParseLimits()
        limits.maxInputBytes = 10
        #expect(USDATest.error("#usda 1.0\ndef \"A\" {\n}\n", limits: limits)?.code == .limitExceeded)
    }

    @Test func memoryBudgetIsChargedForArrays() {
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 100_000
        let ok = "#usda 1.0\ndef \"P\" {\n double[] a = [" + String(repeating: "1,", count: 10_000) + "]\n}\n"
        let big = "#usda 1.0\ndef \"P\" {\n double[] a = [" + String(repeating: "1,", count: 20_000) + "]\n}\n"
        #expect((try? USDATest.parse(ok, limits: limits)) != nil)
        let e = USDATest.error(big, limits: limits)
        #expect(e?.code == .memoryBudgetExceeded)
        #expect(e?.format == .usda)
        #expect(e?.line == 3)
        // The budget is shared: a second layer of the same parse sees what the first charged.
        let budget = MemoryBudget(limits: limits)
        #expect((try? USDAParser.parse(ByteView(Array(ok.utf8)), identifier: "a", limits: limits, budget: budget)) != nil)
        // 80,000 bytes of doubles plus the estimate for the specs /P and /P.a.
        #expect(budget.used == 80_000 + 2 * USDADocumentParser.specCost + "/P".utf8.count + "/P.a".utf8.count)
        #expect(throws: USDParseError.self) {
            try USDAParser.parse(ByteView(Array(ok.utf8)), identifier: "b", limits: limits, budget: budget)
        }
    }

    /// Paths concatenate names, so a deep tree of long names (or relative paths resolved against a
    /// long prim path) would amplify memory; path bytes are charged to the budget.
    @Test func pathAmplificationIsBounded() {
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 20_000_000
        let name = String(repeating: "n", count: 20_000)
        let deep = "#usda 1.0\n" + String(repeating: "def \"\(name)\" {\n", count: 250)
        let e = USDATest.error(deep, limits: limits)
        #expect(e?.code == .memoryBudgetExceeded)
        let targets = "#usda 1.0\ndef \"\(name)\" {\n rel r = [" + String(repeating: "<a>, ", count: 2_000) + "]\n}\n"
        #expect(USDATest.error(targets, limits: limits)?.code == .memoryBudgetExceeded)
        let generic = "#usda 1.0\n(\n x = [" + String(repeating: "1,", count: 500_000) + "]\n)\n"
        #expect(USDATest.error(generic, limits: limits)?.code == .memoryBudgetExceeded)
    }

    /// Wide blocks: 20,000 prims, variant sets and variants on one prim are each read once, every
    /// child listed. How the parse time grows with the width is measured by
    /// scripts/bench-usda-wide.py, not here.
    @Test func wideBlocksListEveryChild() throws {
        let n = 20_000
        var text = "#usda 1.0\ndef \"P\" {\n"
        for i in 0..<n { text += "variantSet \"s\(i)\" = {\n\"v\" {\n}\n}\n" }
        text += "variantSet \"big\" = {\n"
        for i in 0..<n { text += "\"v\(i)\" {\n}\n" }
        text += "}\n"
        for i in 0..<n { text += "def \"c\(i)\" {\n}\n" }
        text += "}\n"
        let layer = try USDATest.parse(text)
        #expect(layer[SdfPath("/P")]?["variantSetChildren"]?.tokens?.count == n + 1)
        #expect(layer[SdfPath("/P{big=}")]?["variantChildren"]?.tokens?.count == n)
        #expect(layer[SdfPath("/P")]?["primChildren"]?.tokens?.count == n)
    }

    static let sweepSources: [String] = [
        """
        #usda 1.0
        (
            "comment"
            defaultPrim = "Root"
            subLayers = [@a.usda@ (offset = 1; scale = 2)]
            customLayerData = { dictionary d = { int[] x = [1, 2] } }
        )
        def Xform "Root" (
            prepend references = [@./r.usda@</R> (offset = 2), </In>]
            variants = { string v = "a" }
            prepend variantSets = "v"
            prepend apiSchemas = ["MaterialBindingAPI"]
        )
        {
            float3 xformOp:rotateXYZ.timeSamples = { 0: (0, 0, 0), 1: None }
            quatf q = (1, 0, 0, 0)
            matrix4d m = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (1, 2, 3, 1))
            string s = \"\"\"multi
        line\"\"\" (doc = 'd'; customData = { asset a = @@@x@y@@@ })
            rel r = [</A>, <../B>]
            token outputs:surface.connect = </Root/M.outputs:surface>
            variantSet "v" = {
                "a" { def "C" { half h = 0.5 } }
            }
            reorder nameChildren = ["C"]
            def Mesh "C" { point3f[] points = [(0, 0, 0), (1, 1, 1)] }
        }
        """,
        """
        #usda 1.0
        def "P" { /* c */ int[] a = [1, -2, 3e2, .5] // x
            double d = -inf; bool b = true
            x = 1
        }
        """,
    ]

    @Test func truncationSweepNeverCrashes() throws {
        var sources = Self.sweepSources
        let roomPlan = try? String(contentsOf: USDATest.fixtures.appendingPathComponent("roomplan_element.usda"),
                                   encoding: .utf8)
        if let roomPlan { sources.append(roomPlan) }
        for source in sources {
            let bytes = Array(source.utf8)
            for n in 0...bytes.count {
                do {
                    _ = try USDATest.parse(bytes: Array(bytes[0..<n]))
                } catch is USDParseError {
                } catch {
                    Issue.record("prefix \(n): non-USDParseError \(error)")
                }
            }
        }
    }

    @Test func byteMutationsNeverCrash() {
        let bytes = Array(Self.sweepSources[0].utf8)
        let replacements: [UInt8] = [0x22, 0x27, 0x40, 0x3C, 0x3E, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x2D, 0x2E,
                                     0x5C, 0x0A, 0x39, 0xFF, 0x2F, 0x2A, 0x23]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var m = bytes
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 5..<m.count, using: &rng)
                m[i] = replacements.randomElement(using: &rng)!
            }
            do {
                _ = try USDATest.parse(bytes: m)
            } catch is USDParseError {
            } catch {
                Issue.record("non-USDParseError \(error)")
            }
        }
    }
}
