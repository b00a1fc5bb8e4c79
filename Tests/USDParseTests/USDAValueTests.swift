import Testing
@testable import USDParse

/// Typed attribute values: storage kinds, component order, conversions, time samples, inference.
@Suite struct USDAValueTests {
    @Test func scalarsOfEveryKind() throws {
        let layer = try USDATest.prim("""
                bool b0 = 0
                bool b1 = true
                bool b2 = 2
                uchar u8 = 255
                int i = -2147483648
                uint u = 4294967295
                int64 l = -9223372036854775808
                uint64 ul = 18446744073709551615
                float f = 0.1
                double d = 0.1
                half h = 0.1
                string s = "str"
                token t = 'tok'
                asset a = @./tex.png@
                """)
        func v(_ n: String) -> SdfValue? { layer[SdfPath("/P." + n)]?["default"] }
        #expect(v("b0") == .bool(false))
        #expect(v("b1") == .bool(true))
        #expect(v("b2") == .bool(true))
        #expect(v("u8") == .scalar(.uchar, .uint8([255])))
        #expect(v("i") == .int(Int32.min))
        #expect(v("u") == .scalar(.uint, .uint32([UInt32.max])))
        #expect(v("l") == .scalar(.int64, .int64([Int64.min])))
        #expect(v("ul") == .scalar(.uint64, .uint64([UInt64.max])))
        #expect(v("f") == .float(Float(0.1)))
        #expect(v("d") == .double(0.1))
        #expect(v("h") == .scalar(.half, .half([0x2E66])))  // 0.0999755859375
        #expect(v("s") == .string("str"))
        #expect(v("t") == .token("tok"))
        #expect(v("a") == .asset("./tex.png"))
    }

    @Test func floatsGoThroughDouble() throws {
        // Rounded once to double, then to float (what USD's text reader does).
        let text = "0.10000000149011612"
        #expect(try USDATest.value("float a = \(text)") == .float(Float(Double(text)!)))
        #expect(try USDATest.value("float a = 3") == .float(3))
        #expect(try USDATest.value("double a = -0") == .double(-0.0))
        #expect(try USDATest.value("double a = .5") == .double(0.5))
        #expect(try USDATest.value("double a = -.5e-3") == .double(-0.0005))
        #expect(try USDATest.value("double a = 1E3") == .double(1000))
        #expect(try USDATest.value("double a = 0.9888637065887451") == .double(0.9888637065887451))
        #expect(try USDATest.value("double a = 1.7976931348623157e308") == .double(1.7976931348623157e308))
        #expect(try USDATest.value("double a = 4.9e-324") == .double(.leastNonzeroMagnitude))
        #expect(try USDATest.value("double a = 123456789012345678901234567890") == .double(1.2345678901234568e29))
        #expect(try USDATest.value("double a = 18446744073709551616") == .double(18446744073709551616.0))
    }

    @Test func fastNumberPathMatchesStandardLibrary() {
        let samples = [
            "0", "1", "-1", "0.5", "3.14159", "-2.5e-3", "1e22", "1e23", "9007199254740993", "0.30000000000000004",
            "123.456e7", "5e-324", "2.2250738585072014e-308", "0.000001", "1.5e+10", "00012.5000", "7.0e-10",
            "0.1234567890123456789", "99999999999999999999", "1.", ".25",
        ]
        for s in samples {
            let bytes = Array(s.utf8)
            let parsed = bytes.withUnsafeBufferPointer { USDANumber.parse($0) }
            #expect(parsed.double == Double(s)!, "\(s)")
        }
    }

    @Test func infinityAndNaN() throws {
        #expect(try USDATest.value("double a = inf") == .double(.infinity))
        #expect(try USDATest.value("double a = -inf") == .double(-.infinity))
        guard case .scalar(.float, .float(let f)) = try USDATest.value("float a = nan") else {
            Issue.record("nan")
            return
        }
        #expect(f.count == 1 && f[0].isNaN)
        #expect(try USDATest.value("float3 a = (inf, -inf, 0)") == .scalar(.float3, .float([.infinity, -.infinity, 0])))
        #expect(try USDATest.value("half a = 100000") == .scalar(.half, .half([0x7C00])))
    }

    @Test func integersAreRangeCheckedAndRealsTruncated() throws {
        #expect(try USDATest.value("int a = 1.7") == .int(1))
        #expect(try USDATest.value("int a = -1.7") == .int(-1))
        #expect(try USDATest.value("int a = 2.5e0") == .int(2))
        #expect(try USDATest.value("int a = -0") == .int(0))
        for bad in ["int a = 2147483648", "int a = -2147483649", "uint a = -1", "uchar a = 256", "int a = inf",
                    "int64 a = 9223372036854775808", "uint64 a = 18446744073709551616", "int a = nan"]
        {
            let e = USDATest.error("#usda 1.0\ndef \"P\" {\n" + bad + "\n}\n")
            #expect(e?.code == .syntax, "\(bad)")
            #expect(e?.line == 3, "\(bad)")
        }
    }

    @Test func vectorsAndRoles() throws {
        #expect(try USDATest.value("float3 a = (1, 2, 3)") == .scalar(.float3, .float([1, 2, 3])))
        #expect(try USDATest.value("color4d a = (0.1, 0.2, 0.3, 1,)") == .scalar(.double4, .double([0.1, 0.2, 0.3, 1])))
        #expect(try USDATest.value("int2 a = (-1, 7)") == .scalar(.int2, .int32([-1, 7])))
        #expect(try USDATest.value("half2 a = (1, -2)") == .scalar(.half2, .half([0x3C00, 0xC000])))
        #expect(try USDATest.value("point3f[] a = [(0, 0, 0), (1, 2, 3),]")
            == .array(.float3, .float([0, 0, 0, 1, 2, 3])))
        #expect(try USDATest.value("texCoord2h[] a = []") == .array(.half2, .half([])))
        #expect(try USDATest.value("normal3d[] a = [(0,0,1)]") == .array(.double3, .double([0, 0, 1])))
    }

    @Test func quaternionsAreStoredImaginaryFirst() throws {
        #expect(try USDATest.value("quatf a = (0.5, 1, 2, 3)") == .scalar(.quatf, .float([1, 2, 3, 0.5])))
        #expect(try USDATest.value("quatd a = (1, 0, 0, 0)") == .scalar(.quatd, .double([0, 0, 0, 1])))
        #expect(try USDATest.value("quath a = (1, 0.5, 0.25, 0.125)")
            == .scalar(.quath, .half([0x3800, 0x3400, 0x3000, 0x3C00])))
        #expect(try USDATest.value("quatf[] a = [(1, 2, 3, 4), (5, 6, 7, 8)]")
            == .array(.quatf, .float([2, 3, 4, 1, 6, 7, 8, 5])))
    }

    @Test func matricesAreRowMajorAsWritten() throws {
        #expect(try USDATest.value("matrix2d a = ((1, 2), (3, 4))") == .scalar(.matrix2d, .double([1, 2, 3, 4])))
        #expect(try USDATest.value("matrix3d a = ((1,2,3),(4,5,6),(7,8,9))")
            == .scalar(.matrix3d, .double([1, 2, 3, 4, 5, 6, 7, 8, 9])))
        let m4 = "( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (10, 20, 30, 1) )"
        #expect(try USDATest.value("matrix4d a = \(m4)")
            == .scalar(.matrix4d, .double([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 20, 30, 1])))
        #expect(try USDATest.value("matrix4d[] a = [\(m4), \(m4)]")?.typed?.storage.count == 32)
        #expect(USDATest.error("#usda 1.0\ndef \"P\" {\nmatrix2d a = (1, 0, 0, 1)\n}\n")?.code == .syntax)
    }

    @Test func stringsAndEscapes() throws {
        #expect(try USDATest.value(#"string a = "tab\tnl\nq\"s\'b\\x\x41\101\z""#) == .string("tab\tnl\nq\"s'b\\xAAz"))
        #expect(try USDATest.value("string a = \"héllo ✓\"") == .string("héllo ✓"))
        #expect(try USDATest.value("string a = \"\"\"line1\nline \"2\"\n\"\"\"") == .string("line1\nline \"2\"\n"))
        #expect(try USDATest.value("string a = '''x'y'''") == .string("x'y"))
        #expect(try USDATest.value("token[] a = [\"a\", 'b', \"\"]") == .array(.token, .string(["a", "b", ""])))
        #expect(try USDATest.value("string a = \"\"") == .string(""))
        #expect(try USDATest.value("asset a = @@@a@b@@@") == .asset("a@b"))
        #expect(try USDATest.value("asset a = @./udim_<UDIM>.png@") == .asset("./udim_<UDIM>.png"))
    }

    @Test func noneIsAValueBlock() throws {
        #expect(try USDATest.value("int[] a = None") == .valueBlock)
        #expect(try USDATest.value("string a = None") == .valueBlock)
        #expect(try USDATest.value("float3 a = None") == .valueBlock)
    }

    @Test func timeSamplesAreSortedWithBlocks() throws {
        let layer = try USDATest.prim("""
                float3 xformOp:rotateXYZ.timeSamples = {
                    10: (0, 90, 0),
                    0: (0, 0, 0),
                    5: None,
                    -1.5: (1, 1, 1),
                    10: (0, 45, 0),
                }
                double d.timeSamples = { }
                """)
        #expect(layer[SdfPath("/P.xformOp:rotateXYZ")]?.fields == [
            "typeName": .token("float3"),
            "timeSamples": .timeSamples(SdfTimeSamples(times: [-1.5, 0, 5, 10], values: [
                .scalar(.float3, .float([1, 1, 1])), .scalar(.float3, .float([0, 0, 0])), .valueBlock,
                .scalar(.float3, .float([0, 45, 0])),
            ])),
        ])
        #expect(layer[SdfPath("/P.d")]?["timeSamples"] == .timeSamples(SdfTimeSamples(times: [], values: [])))
    }

    @Test func dictionaryEntriesAreTypedLikeAttributes() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P" (
                customData = {
                    string s = "v"
                    int i = 1
                    double d = 1.5
                    float f = 0.1
                    float3 v = (1, 2, 3)
                    bool b = 1
                    token t = "x"
                    asset a = @x@
                    int[] arr = [1, 2]
                    string[] names = ["a"]
                    quatf q = (1, 0, 0, 0)
                    dictionary sub = {
                        dictionary deeper = {
                            uint u = 7
                        }
                        half h = 1
                    }
                    dictionary empty = {
                    }
                    string "quoted" = "k"
                }
            )
            {
            }
            """)
        #expect(layer[SdfPath("/P")]?["customData"] == .dictionary([
            "s": .string("v"), "i": .int(1), "d": .double(1.5), "f": .float(Float(0.1)),
            "v": .scalar(.float3, .float([1, 2, 3])), "b": .bool(true), "t": .token("x"), "a": .asset("x"),
            "arr": .array(.int, .int32([1, 2])), "names": .array(.string, .string(["a"])),
            "q": .scalar(.quatf, .float([0, 0, 0, 1])),
            "sub": .dictionary([
                "deeper": .dictionary(["u": .scalar(.uint, .uint32([7]))]), "h": .scalar(.half, .half([0x3C00])),
            ]),
            "empty": .dictionary([:]), "quoted": .string("k"),
        ]))
    }

    @Test func inferredUnregisteredValues() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            (
                n = 3
                s = "x"
                b = true
                i = ident
                a = @x.usd@
                p = </A>
                none = None
                t2 = (1, 2)
                m = ((1, 0), (0, 1))
                l = [1, 2.5]
                lt = [(1, 2, 3)]
                lp = [</A>, </B>]
                e = []
                mixed = [1, "a"]
                nested = [[[1]]]
                d = { int x = 1 }
                prepend lo = ["a", "b"]
            )
            """)
        let r = try #require(layer[.root])
        #expect(r["n"] == .double(3))
        #expect(r["s"] == .string("x"))
        #expect(r["b"] == .bool(true))
        #expect(r["i"] == .token("ident"))
        #expect(r["a"] == .asset("x.usd"))
        #expect(r["p"] == .pathVector([SdfPath("/A")]))
        #expect(r["none"] == .valueBlock)
        #expect(r["t2"] == .scalar(.double2, .double([1, 2])))
        #expect(r["m"] == .scalar(.matrix2d, .double([1, 0, 0, 1])))
        #expect(r["l"] == .array(.double, .double([1, 2.5])))
        #expect(r["lt"] == .array(.double3, .double([1, 2, 3])))
        #expect(r["lp"] == .pathVector([SdfPath("/A"), SdfPath("/B")]))
        #expect(r["e"] == .array(.double, .double([])))
        #expect(r["mixed"] == .unsupported("list"))
        #expect(r["nested"] == .unsupported("list"))
        #expect(r["d"] == .dictionary(["x": .int(1)]))
        #expect(r["lo"] == .stringListOp(SdfListOp(prepended: ["a", "b"])))
    }

    @Test func largeNumericArray() throws {
        let n = 200_000
        var text = "#usda 1.0\ndef \"P\" {\n    point3f[] points = ["
        for i in 0..<n { text += "(\(i), \(Double(i) * 0.5), -1.25), " }
        text += "]\n    int[] idx = [" + (0..<n).map(String.init).joined(separator: ", ") + "]\n}\n"
        let layer = try USDATest.parse(text)
        guard case .array(.float3, .float(let pts)) = layer[SdfPath("/P.points")]?["default"] else {
            Issue.record("points")
            return
        }
        #expect(pts.count == 3 * n)
        #expect(pts[3 * 1234] == 1234 && pts[3 * 1234 + 1] == 617 && pts[3 * 1234 + 2] == -1.25)
        guard case .array(.int, .int32(let idx)) = layer[SdfPath("/P.idx")]?["default"] else {
            Issue.record("idx")
            return
        }
        #expect(idx.count == n && idx.last == Int32(n - 1))
    }
}
