import Testing
@testable import USDParse

/// Spec structure, children fields, properties, relationships and variants.
@Suite struct USDAParserTests {
    @Test func detectsMagic() {
        #expect(USDAParser.isUSDA(ByteView(Array("#usda 1.0\n".utf8))))
        #expect(!USDAParser.isUSDA(ByteView(Array("PXR-USDC".utf8))))
        #expect(!USDAParser.isUSDA(ByteView([])))
    }

    @Test func roomPlanStyleLayer() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            (
                defaultPrim = "Opening0"
                metersPerUnit = 1
                upAxis = "Y"
            )

            def Xform "Opening0" (
                assetInfo = {
                    asset identifier = @./Opening0.usda@
                    string name = "Opening0"
                }
                customData = {
                    string Category = "Opening"
                    string UUID = "1492151B"
                }
                kind = "component"
            )
            {
                def Cube "Opening0"
                {
                    rel material:binding = </Opening0/Opening0_color>
                    double size = 1
                    double3 xformOp:scale = (1.0886, 2, 0.0005)
                    matrix4d xformOp:transform = ( (-0.686, 0, -0.727, 0), (0, 1, 0, 0), (0.727, 0, -0.686, 0), (0.763, -0.528, -1.301, 1) )
                    uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:scale"]
                }

                def Material "Opening0_color"
                {
                    token outputs:surface.connect = </Opening0/Opening0_color/surfaceShader.outputs:surface>

                    def Shader "surfaceShader"
                    {
                        uniform token info:id = "UsdPreviewSurface"
                        color3f inputs:diffuseColor = (0.33, 0.33, 0.33)
                        token outputs:surface
                    }
                }
            }
            """)
        let root = try #require(layer[.root])
        #expect(root.type == .pseudoRoot)
        #expect(root.fields == [
            "defaultPrim": .token("Opening0"), "metersPerUnit": .double(1), "upAxis": .token("Y"),
            "primChildren": .tokenVector(["Opening0"]),
        ])
        let top = try #require(layer[SdfPath("/Opening0")])
        #expect(top.type == .prim)
        #expect(top["specifier"] == .specifier(.def))
        #expect(top["typeName"] == .token("Xform"))
        #expect(top["kind"] == .token("component"))
        #expect(top["primChildren"] == .tokenVector(["Opening0", "Opening0_color"]))
        #expect(top["properties"] == nil)
        #expect(top["assetInfo"] == .dictionary(["identifier": .asset("./Opening0.usda"), "name": .string("Opening0")]))
        #expect(top["customData"] == .dictionary(["Category": .string("Opening"), "UUID": .string("1492151B")]))

        let cube = try #require(layer[SdfPath("/Opening0/Opening0")])
        #expect(cube["properties"] == .tokenVector(["material:binding", "size", "xformOp:scale", "xformOp:transform",
                                                     "xformOpOrder"]))
        let binding = try #require(layer[SdfPath("/Opening0/Opening0.material:binding")])
        #expect(binding.type == .relationship)
        #expect(binding.fields == [
            "targetPaths": .pathListOp(SdfListOp(explicit: [SdfPath("/Opening0/Opening0_color")])),
            "variability": .variability(.uniform),
        ])
        let size = try #require(layer[SdfPath("/Opening0/Opening0.size")])
        #expect(size.fields == ["typeName": .token("double"), "default": .double(1)])
        #expect(layer[SdfPath("/Opening0/Opening0.xformOpOrder")]?.fields == [
            "typeName": .token("token[]"), "variability": .variability(.uniform),
            "default": .array(.token, .string(["xformOp:transform", "xformOp:scale"])),
        ])
        #expect(layer[SdfPath("/Opening0/Opening0.xformOp:transform")]?["default"] == .scalar(.matrix4d, .double([
            -0.686, 0, -0.727, 0, 0, 1, 0, 0, 0.727, 0, -0.686, 0, 0.763, -0.528, -1.301, 1,
        ])))
        let connect = try #require(layer[SdfPath("/Opening0/Opening0_color.outputs:surface")])
        #expect(connect.fields == [
            "typeName": .token("token"),
            "connectionPaths": .pathListOp(SdfListOp(explicit: [
                SdfPath("/Opening0/Opening0_color/surfaceShader.outputs:surface"),
            ])),
        ])
        let output = try #require(layer[SdfPath("/Opening0/Opening0_color/surfaceShader.outputs:surface")])
        #expect(output.fields == ["typeName": .token("token")])
        #expect(layer.specs.count == 14)
    }

    @Test func attributeQualifiers() throws {
        let layer = try USDATest.prim("""
                custom uniform float a = 1
                config double b
                varying int c
                custom rel r
                varying rel v
                """)
        #expect(layer[SdfPath("/P.a")]?.fields == [
            "typeName": .token("float"), "custom": .bool(true), "variability": .variability(.uniform),
            "default": .float(1),
        ])
        #expect(layer[SdfPath("/P.b")]?.fields == ["typeName": .token("double"), "variability": .variability(.uniform)])
        #expect(layer[SdfPath("/P.c")]?.fields == ["typeName": .token("int")])
        #expect(layer[SdfPath("/P.r")]?.fields == ["custom": .bool(true), "variability": .variability(.uniform)])
        #expect(layer[SdfPath("/P.v")]?.type == .relationship)
        #expect(layer[SdfPath("/P.v")]?.fields == [:])
        #expect(layer[SdfPath("/P")]?["properties"] == .tokenVector(["a", "b", "c", "r", "v"]))
    }

    @Test func repeatedPropertyStatementsMergeIntoOneSpec() throws {
        let layer = try USDATest.prim("""
                float a = 1
                rel r = </X>
                float b
                float a.timeSamples = { 1: 2 }
                rel r (doc = "d")
                prepend float a.connect = </Q.out>
                delete float a.connect = <../Z.o>
                """)
        #expect(layer[SdfPath("/P")]?["properties"] == .tokenVector(["a", "r", "b"]))
        var op = SdfListOp<SdfPath>()
        op.prependedItems = [SdfPath("/Q.out")]
        op.deletedItems = [SdfPath("/Z.o")]
        #expect(layer[SdfPath("/P.a")]?.fields == [
            "typeName": .token("float"), "default": .float(1),
            "timeSamples": .timeSamples(SdfTimeSamples(times: [1], values: [.float(2)])),
            "connectionPaths": .pathListOp(op),
        ])
        #expect(layer[SdfPath("/P.r")]?["documentation"] == .string("d"))
        #expect(layer[SdfPath("/P.r")]?["targetPaths"] == .pathListOp(SdfListOp(explicit: [SdfPath("/X")])))
    }

    @Test func relationshipTargets() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P"
            {
                rel none = None
                rel many = [
                    </A>,
                    <Child>,
                    <../Sib.attr>,
                    <.prop>,
                ]
                prepend rel pre = </B>
                append rel app = [</C>]
                add rel ad = </D>
                reorder rel ord = [</E>, </F>]
                delete rel del = </G>
                rel empty = <>
            }
            """)
        func targets(_ name: String) -> SdfValue? { layer[SdfPath("/P." + name)]?["targetPaths"] }
        #expect(targets("none") == .pathListOp(SdfListOp(explicit: [])))
        #expect(targets("many") == .pathListOp(SdfListOp(explicit: [
            SdfPath("/A"), SdfPath("/P/Child"), SdfPath("/Sib.attr"), SdfPath("/P.prop"),
        ])))
        #expect(targets("pre") == .pathListOp(SdfListOp(prepended: [SdfPath("/B")])))
        var app = SdfListOp<SdfPath>()
        app.appendedItems = [SdfPath("/C")]
        #expect(targets("app") == .pathListOp(app))
        var add = SdfListOp<SdfPath>()
        add.addedItems = [SdfPath("/D")]
        #expect(targets("ad") == .pathListOp(add))
        var ord = SdfListOp<SdfPath>()
        ord.orderedItems = [SdfPath("/E"), SdfPath("/F")]
        #expect(targets("ord") == .pathListOp(ord))
        var del = SdfListOp<SdfPath>()
        del.deletedItems = [SdfPath("/G")]
        #expect(targets("del") == .pathListOp(del))
        #expect(targets("empty") == .pathListOp(SdfListOp(explicit: [SdfPath.empty])))
    }

    @Test func variantSetsAndVariants() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def Xform "P" (
                variants = {
                    string shading = "red"
                }
                prepend variantSets = "shading"
            )
            {
                variantSet "shading" = {
                    "red" (
                        doc = "red variant"
                    ) {
                        float z = 1
                        def "C" {
                            rel r = <../X>
                        }
                        variantSet "inner" = {
                            "x" {
                                def "Deep" {
                                }
                            }
                        }
                    }
                    "blue" {
                        over "C" {
                        }
                    }
                }
                def "Child" {
                }
            }
            """)
        let p = try #require(layer[SdfPath("/P")])
        #expect(p["variantSelection"] == .variantSelection(["shading": "red"]))
        #expect(p["variantSetNames"] == .stringListOp(SdfListOp(prepended: ["shading"])))
        #expect(p["variantSetChildren"] == .tokenVector(["shading"]))
        #expect(p["primChildren"] == .tokenVector(["Child"]))
        #expect(layer[SdfPath("/P{shading=}")]?.type == .variantSet)
        #expect(layer[SdfPath("/P{shading=}")]?.fields == ["variantChildren": .tokenVector(["red", "blue"])])
        let red = try #require(layer[SdfPath("/P{shading=red}")])
        #expect(red.type == .variant)
        #expect(red.fields == [
            "documentation": .string("red variant"), "properties": .tokenVector(["z"]),
            "primChildren": .tokenVector(["C"]), "variantSetChildren": .tokenVector(["inner"]),
        ])
        #expect(layer[SdfPath("/P{shading=red}.z")]?["default"] == .float(1))
        #expect(layer[SdfPath("/P{shading=red}C")]?["specifier"] == .specifier(.def))
        #expect(layer[SdfPath("/P{shading=red}C.r")]?["targetPaths"] == .pathListOp(SdfListOp(explicit: [SdfPath("/P/X")])))
        #expect(layer[SdfPath("/P{shading=red}{inner=}")]?.fields == ["variantChildren": .tokenVector(["x"])])
        #expect(layer[SdfPath("/P{shading=red}{inner=x}")]?["primChildren"] == .tokenVector(["Deep"]))
        #expect(layer[SdfPath("/P{shading=red}{inner=x}Deep")]?.type == .prim)
        #expect(layer[SdfPath("/P{shading=blue}C")]?["specifier"] == .specifier(.over))
        #expect(layer[SdfPath("/P{shading=blue}")]?.fields == ["primChildren": .tokenVector(["C"])])
        #expect(layer.specs.count == 13)
    }

    /// Sdf's text reader creates variant-set specs for explicit/added `variantSets` names and
    /// overwrites `variantSetChildren` with them; `variantSet` blocks append only new sets, and a
    /// repeated block replaces `variantChildren`.
    @Test func variantSetsMetadataQuirks() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P" (
                add variantSets = ["zz", "yy"]
                variantSets = ["b2", "a2"]
            )
            {
                variantSet "mm" = {
                    "v1" {
                    }
                }
                variantSet "zz" = {
                    "x" {
                    }
                }
                variantSet "mm" = {
                    "v0" {
                    }
                }
            }
            """)
        #expect(layer[SdfPath("/P")]?["variantSetChildren"] == .tokenVector(["b2", "a2", "mm"]))
        for set in ["zz", "yy", "b2", "a2", "mm"] {
            #expect(layer[SdfPath("/P{\(set)=}")]?.type == .variantSet)
        }
        #expect(layer[SdfPath("/P{a2=}")]?.fields == [:])
        #expect(layer[SdfPath("/P{mm=}")]?["variantChildren"] == .tokenVector(["v0"]))
        #expect(layer[SdfPath("/P{mm=v1}")]?.type == .variant)
    }

    @Test func reorderStatementsAndSeparators() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P" { reorder nameChildren = ["B", "A"]; reorder properties = "y"; float y = 1; float x = 2
                def "A" { }
                def "B" { }
            }
            """)
        let p = try #require(layer[SdfPath("/P")])
        #expect(p["primOrder"] == .tokenVector(["B", "A"]))
        #expect(p["propertyOrder"] == .tokenVector(["y"]))
        #expect(p["properties"] == .tokenVector(["y", "x"]))
        #expect(p["primChildren"] == .tokenVector(["A", "B"]))
    }

    @Test func commentsEverywhere() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            # a comment
            // another
            /* block
               comment */ def /* inline */ Xform "P" // trailing
            {
                float a = /* here */ 1 # end
                int[] b = [1, // one
                    2 /* two */, 3]
            }
            """)
        #expect(layer[SdfPath("/P")]?["typeName"] == .token("Xform"))
        #expect(layer[SdfPath("/P.a")]?["default"] == .float(1))
        #expect(layer[SdfPath("/P.b")]?["default"] == .array(.int, .int32([1, 2, 3])))
    }

    @Test func keywordsAsPropertyNamesAndNamespaces() throws {
        let layer = try USDATest.prim("""
                float def = 1
                float references = 2
                token primvars:st:indices = "x"
                custom double3 xformOp:translate:pivot = (0, 0, 0)
                """)
        #expect(layer[SdfPath("/P.def")]?["default"] == .float(1))
        #expect(layer[SdfPath("/P.references")]?["default"] == .float(2))
        #expect(layer[SdfPath("/P.primvars:st:indices")]?["default"] == .token("x"))
        #expect(layer[SdfPath("/P.xformOp:translate:pivot")]?["custom"] == .bool(true))
    }

    @Test func typeNamesAreKeptAsWritten() throws {
        let layer = try USDATest.prim("""
                point3f[] points
                color3f c
                normal3h n
                frame4d f
                opaque o
                timecode t = 5
                asset[] files = [@a.png@, @b.png@]
                """)
        #expect(layer[SdfPath("/P.points")]?.fields == ["typeName": .token("point3f[]")])
        #expect(layer[SdfPath("/P.c")]?.fields == ["typeName": .token("color3f")])
        #expect(layer[SdfPath("/P.n")]?.fields == ["typeName": .token("normal3h")])
        #expect(layer[SdfPath("/P.f")]?.fields == ["typeName": .token("frame4d")])
        #expect(layer[SdfPath("/P.o")]?.fields == ["typeName": .token("opaque")])
        #expect(layer[SdfPath("/P.t")]?["default"] == .scalar(.timecode, .double([5])))
        #expect(layer[SdfPath("/P.files")]?["default"] == .array(.asset, .string(["a.png", "b.png"])))
    }

    @Test func emptyLayerHasOnlyThePseudoRoot() throws {
        let layer = try USDATest.parse("#usda 1.0\n")
        #expect(layer.specs == [.root: SdfSpec(type: .pseudoRoot)])
        #expect(layer.identifier == "test.usda")
    }
}
