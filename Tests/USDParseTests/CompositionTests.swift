import Testing

@testable import USDParse

/// Composition inside a package: arcs, strength order, namespace mapping, guards.
@Suite struct CompositionTests {
    /// Composes `files` (USDA text by path) with `root` as the root layer.
    func compose(_ files: [String: String], root: String = "root.usda", limits: ParseLimits = .default) throws -> UsdStage {
        let provider = InMemoryAssetProvider(files: files.mapValues { Array($0.utf8) })
        return try StageComposer.compose(
            rootLayer: root, provider: provider, limits: limits, budget: MemoryBudget(limits: limits))
    }

    func attr(_ s: UsdStage, _ path: String) -> UsdAttribute? {
        let p = SdfPath(path)
        return s.prim(at: p.primPath)?.attributes[p.propertyName ?? ""]
    }

    @Test func externalReferenceGraftsTheDefaultPrimAndKeepsEachLayersIdentity() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                (
                    defaultPrim = "Room"
                    metersPerUnit = 1
                    upAxis = "Y"
                )
                def Xform "Room" (
                    kind = "assembly"
                )
                {
                    def Xform "Wall_0_grp" (
                        prepend references = [@./assets/Wall0.usda@, @./assets/Door0.usda@]
                    )
                    {
                    }
                }
                """,
            "assets/Wall0.usda": """
                #usda 1.0
                (
                    defaultPrim = "Wall0"
                )
                def Xform "Wall0" (
                    customData = {
                        string Category = "Wall"
                        string UUID = "AAAA"
                    }
                )
                {
                    def Cube "Wall0"
                    {
                        rel material:binding = </Wall0/Wall0_color>
                        double size = 1
                    }
                    def Material "Wall0_color"
                    {
                    }
                }
                """,
            "assets/Door0.usda": """
                #usda 1.0
                (
                    defaultPrim = "Door0"
                )
                def Xform "Door0" (
                    customData = {
                        string Category = "Door(Isopen: False)"
                        string UUID = "BBBB"
                    }
                )
                {
                    def Cube "Door0"
                    {
                    }
                }
                """,
        ])
        let group = try #require(stage.prim(at: SdfPath("/Room/Wall_0_grp")))
        // The composed customData shows only the strongest layer's values…
        #expect(group.customData["UUID"]?.string == "AAAA")
        // …while each referenced layer's identity is kept separately, in strength order.
        #expect(group.referencedLayerCustomData.map { $0["UUID"]?.string } == ["AAAA", "BBBB"])
        #expect(stage.prim(at: SdfPath("/Room/Wall_0_grp/Wall0"))?.typeName == "Cube")
        #expect(stage.prim(at: SdfPath("/Room/Wall_0_grp/Door0"))?.typeName == "Cube")
        // Targets inside the referenced subtree are re-mapped into the stage namespace.
        let binding = stage.prim(at: SdfPath("/Room/Wall_0_grp/Wall0"))?.relationships["material:binding"]
        #expect(binding?.targets == [SdfPath("/Room/Wall_0_grp/Wall0_color")])
        #expect(stage.layerIdentifiers == ["root.usda", "assets/Wall0.usda", "assets/Door0.usda"])
        #expect(stage.upAxis == "Y" && stage.metersPerUnit == 1 && stage.defaultPrim == "Room")
    }

    @Test func localOpinionsAreStrongerThanReferencesAndChildOrderFollowsUSD() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                def Xform "P" (
                    prepend references = @./ref.usda@
                )
                {
                    double x = 2
                    def Xform "Z"
                    {
                    }
                    def Xform "B"
                    {
                    }
                }
                """,
            "ref.usda": """
                #usda 1.0
                (
                    defaultPrim = "R"
                )
                def Xform "R"
                {
                    double x = 1
                    double y = 5
                    def Xform "A"
                    {
                    }
                    def Xform "C"
                    {
                    }
                    def Xform "B"
                    {
                    }
                }
                """,
        ])
        #expect(attr(stage, "/P.x")?.value == .double(2))
        #expect(attr(stage, "/P.y")?.value == .double(5))
        let p = try #require(stage.prim(at: SdfPath("/P")))
        #expect(p.children.map { stage.prims[$0].name } == ["A", "C", "B", "Z"])
    }

    @Test func internalReferencesPayloadsInheritsAndSpecializes() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                class "Base"
                {
                    double fromClass = 3
                    def Xform "FromClass"
                    {
                    }
                }
                def Xform "Proto"
                {
                    double fromProto = 4
                }
                def Xform "Special"
                {
                    double fromSpecial = 6
                    double shared = 1
                }
                def Xform "Thing" (
                    inherits = </Base>
                    specializes = </Special>
                    prepend references = </Proto>
                    payload = @./payload.usda@
                )
                {
                    double shared = 2
                }
                """,
            "payload.usda": """
                #usda 1.0
                (
                    defaultPrim = "Heavy"
                )
                def Mesh "Heavy"
                {
                    double fromPayload = 5
                }
                """,
        ])
        #expect(attr(stage, "/Thing.fromClass")?.value == .double(3))
        #expect(attr(stage, "/Thing.fromProto")?.value == .double(4))
        #expect(attr(stage, "/Thing.fromPayload")?.value == .double(5))
        #expect(attr(stage, "/Thing.fromSpecial")?.value == .double(6))
        #expect(attr(stage, "/Thing.shared")?.value == .double(2))
        #expect(stage.prim(at: SdfPath("/Thing"))?.typeName == "Xform")
        #expect(stage.prim(at: SdfPath("/Thing/FromClass")) != nil)
        #expect(stage.prim(at: SdfPath("/Base"))?.specifier == .class)
    }

    @Test func variantSelectionAuthoredElseFirstVariant() throws {
        let text = { (selection: String) in
            """
            #usda 1.0
            def Xform "P" (
                \(selection)
                prepend variantSets = "look"
            )
            {
                variantSet "look" = {
                    "red" {
                        double r = 1
                    }
                    "blue" {
                        double b = 1
                        def Xform "OnlyBlue"
                        {
                        }
                    }
                }
            }
            """
        }
        let chosen = try compose(["root.usda": text("variants = { string look = \"blue\" }")])
        #expect(attr(chosen, "/P.b")?.value == .double(1))
        #expect(attr(chosen, "/P.r") == nil)
        #expect(chosen.prim(at: SdfPath("/P/OnlyBlue")) != nil)
        let fallback = try compose(["root.usda": text("")])
        #expect(attr(fallback, "/P.r")?.value == .double(1))
        #expect(fallback.prim(at: SdfPath("/P/OnlyBlue")) == nil)
    }

    @Test func sublayersAreWeakerAndTheirOffsetsMapTimeSamples() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                (
                    subLayers = [
                        @./anim.usda@ (offset = 10; scale = 2)
                    ]
                )
                over "P"
                {
                    double strong = 1
                }
                """,
            "anim.usda": """
                #usda 1.0
                def Xform "P"
                {
                    double strong = 0
                    double t.timeSamples = {
                        0: 1,
                        5: 2,
                    }
                }
                """,
        ])
        #expect(stage.prim(at: SdfPath("/P"))?.specifier == .def)
        #expect(attr(stage, "/P.strong")?.value == .double(1))
        #expect(attr(stage, "/P.t")?.timeSamples?.times == [10, 20])
    }

    @Test func instanceableDescendantsAreInstanceProxies() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                def Xform "Proto"
                {
                    def Mesh "Geo"
                    {
                    }
                }
                def Xform "Inst" (
                    instanceable = true
                    prepend references = </Proto>
                )
                {
                }
                """,
        ])
        #expect(stage.prim(at: SdfPath("/Inst/Geo"))?.isInstanceProxy == true)
        #expect(stage.prim(at: SdfPath("/Proto/Geo"))?.isInstanceProxy == false)
    }

    @Test func inactivePrimsAreListedButTheirChildrenAreNotComposed() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                def Xform "Off" (
                    active = false
                )
                {
                    def Mesh "Hidden"
                    {
                    }
                }
                """,
        ])
        #expect(stage.prim(at: SdfPath("/Off")) != nil)
        #expect(stage.prim(at: SdfPath("/Off/Hidden")) == nil)
    }

    @Test func referencesLeavingThePackageAreRefusedWithAWarning() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                def Xform "A" (
                    prepend references = [@../outside.usda@, @/etc/passwd@, @http://example.com/x.usda@, @./missing.usda@]
                )
                {
                }
                """,
        ])
        #expect(stage.prim(at: SdfPath("/A")) != nil)
        #expect(stage.warnings.filter { $0.code == "USD_REFERENCE_UNRESOLVED" }.count == 4)
    }

    @Test func referenceCyclesEndInACompositionCycleError() throws {
        let files = [
            "root.usda": "#usda 1.0\ndef Xform \"A\" (\n    prepend references = @./b.usda@\n)\n{\n}\n",
            "b.usda": "#usda 1.0\n(\n    defaultPrim = \"B\"\n)\ndef Xform \"B\" (\n    prepend references = @./c.usda@\n)\n{\n}\n",
            "c.usda": "#usda 1.0\n(\n    defaultPrim = \"C\"\n)\ndef Xform \"C\" (\n    prepend references = @./b.usda@\n)\n{\n}\n",
        ]
        #expect(throws: USDParseError.self) { try compose(files) }
        do {
            _ = try compose(files)
        } catch let e as USDParseError {
            #expect(e.code == .compositionCycle)
        }
        let selfRef = ["root.usda": "#usda 1.0\ndef Xform \"A\" (\n    prepend references = </A>\n)\n{\n}\n"]
        #expect { try compose(selfRef) } throws: { ($0 as? USDParseError)?.code == .compositionCycle }
        let subCycle = [
            "root.usda": "#usda 1.0\n(\n    subLayers = [@./s.usda@]\n)\n",
            "s.usda": "#usda 1.0\n(\n    subLayers = [@./root.usda@]\n)\n",
        ]
        #expect { try compose(subCycle) } throws: { ($0 as? USDParseError)?.code == .compositionCycle }
        let inheritCycle = [
            "root.usda": "#usda 1.0\nclass \"K\" (\n    inherits = </L>\n)\n{\n}\nclass \"L\" (\n    inherits = </K>\n)\n{\n}\n"
        ]
        #expect { try compose(inheritCycle) } throws: { ($0 as? USDParseError)?.code == .compositionCycle }
    }

    @Test func referenceChainsDeeperThanTheLimitAreRefused() throws {
        var files: [String: String] = [:]
        let depth = 40
        for i in 0..<depth {
            let name = i == 0 ? "root.usda" : "l\(i).usda"
            files[name] = "#usda 1.0\n(\n    defaultPrim = \"P\"\n)\ndef Xform \"P\" (\n    prepend references = @./l\(i + 1).usda@\n)\n{\n}\n"
        }
        files["l\(depth).usda"] = "#usda 1.0\n(\n    defaultPrim = \"P\"\n)\ndef Xform \"P\"\n{\n}\n"
        #expect { try compose(files) } throws: { ($0 as? USDParseError)?.code == .limitExceeded }
        var limits = ParseLimits()
        limits.maxCompositionDepth = 64
        #expect(try compose(files, limits: limits).prim(at: SdfPath("/P")) != nil)
    }

    @Test func composedPrimCountIsCapped() throws {
        var text = "#usda 1.0\n"
        for i in 0..<50 { text += "def Xform \"P\(i)\"\n{\n}\n" }
        var limits = ParseLimits()
        limits.maxComposedPrims = 20
        #expect { try compose(["root.usda": text], limits: limits) } throws: {
            ($0 as? USDParseError)?.code == .limitExceeded
        }
    }

    @Test func assetValuesRememberTheLayerThatAuthoredThem() throws {
        let stage = try compose([
            "root.usda": """
                #usda 1.0
                def Xform "M" (
                    prepend references = @./sub/mat.usda@
                )
                {
                }
                """,
            "sub/mat.usda": """
                #usda 1.0
                (
                    defaultPrim = "Mat"
                )
                def Shader "Mat"
                {
                    asset inputs:file = @./tex.png@
                }
                """,
            "sub/tex.png": "png",
        ])
        let a = try #require(attr(stage, "/M.inputs:file"))
        #expect(a.valueLayer == "sub/mat.usda")
        let provider = InMemoryAssetProvider(files: ["sub/tex.png": [1]])
        #expect(provider.resolve(a.value?.string ?? "", anchor: a.valueLayer ?? "") == "sub/tex.png")
    }
}
