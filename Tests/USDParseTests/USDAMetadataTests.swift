import Testing
@testable import USDParse

/// Layer, prim and property metadata: list ops, references, payloads, sublayers, dictionaries.
@Suite struct USDAMetadataTests {
    @Test func primMetadata() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            class "C" {
            }
            over Mesh "P" (
                "a comment"
                doc = "documentation"
                active = false
                instanceable = true
                hidden = 1
                permission = private
                prepend apiSchemas = ["MaterialBindingAPI", "SkelBindingAPI"]
                delete apiSchemas = ["Old"]
                inherits = </C>
                specializes = [<../D>, </E>]
                customData = {
                    int count = 3
                    dictionary nested = {
                        bool flag = 1
                        double "quoted key" = 1.5
                    }
                }
            )
            {
            }
            """)
        let p = try #require(layer[SdfPath("/P")])
        var api = SdfListOp<String>()
        api.prependedItems = ["MaterialBindingAPI", "SkelBindingAPI"]
        api.deletedItems = ["Old"]
        #expect(p.fields == [
            "specifier": .specifier(.over), "typeName": .token("Mesh"), "comment": .string("a comment"),
            "documentation": .string("documentation"), "active": .bool(false), "instanceable": .bool(true),
            "hidden": .bool(true), "permission": .permission(.private), "apiSchemas": .tokenListOp(api),
            "inheritPaths": .pathListOp(SdfListOp(explicit: [SdfPath("/C")])),
            "specializes": .pathListOp(SdfListOp(explicit: [SdfPath("/D"), SdfPath("/E")])),
            "customData": .dictionary([
                "count": .int(3),
                "nested": .dictionary(["flag": .bool(true), "quoted key": .double(1.5)]),
            ]),
        ])
        #expect(layer[SdfPath("/C")]?.fields == ["specifier": .specifier(.class)])
        #expect(layer[.root]?["primChildren"] == .tokenVector(["C", "P"]))
    }

    @Test func listOpModeSwitchClearsOtherLists() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P" (
                prepend apiSchemas = ["A"]
                apiSchemas = ["B"]
            )
            {
            }
            def "Q" (
                apiSchemas = ["B"]
                append apiSchemas = ["C"]
                references = None
            )
            {
            }
            """)
        #expect(layer[SdfPath("/P")]?["apiSchemas"] == .tokenListOp(SdfListOp(explicit: ["B"])))
        var q = SdfListOp<String>()
        q.appendedItems = ["C"]
        #expect(layer[SdfPath("/Q")]?["apiSchemas"] == .tokenListOp(q))
        #expect(layer[SdfPath("/Q")]?["references"] == .referenceListOp(SdfListOp(explicit: [])))
    }

    @Test func referencesAndPayloads() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            def "P" (
                prepend references = [
                    @./a.usda@</A> (offset = 5; scale = 2),
                    @./b.usda@,
                    </Internal> (customData = { string k = "v" }),
                    @c.usda@<> ,
                ]
                payload = @./p.usdc@</Pay> (offset = 1.5)
            )
            {
            }
            def "Q" (
                references = @@@weird@name.usda@@@
                append payload = [</Int>, @x.usd@]
            )
            {
            }
            """)
        let refs: [SdfReference] = [
            SdfReference(assetPath: "./a.usda", primPath: SdfPath("/A"), layerOffset: SdfLayerOffset(offset: 5, scale: 2)),
            SdfReference(assetPath: "./b.usda"),
            SdfReference(assetPath: "", primPath: SdfPath("/Internal"), customData: ["k": .string("v")]),
            SdfReference(assetPath: "c.usda"),
        ]
        #expect(layer[SdfPath("/P")]?["references"] == .referenceListOp(SdfListOp(prepended: refs)))
        #expect(layer[SdfPath("/P")]?["payload"] == .payloadListOp(SdfListOp(explicit: [
            SdfPayload(assetPath: "./p.usdc", primPath: SdfPath("/Pay"), layerOffset: SdfLayerOffset(offset: 1.5)),
        ])))
        #expect(layer[SdfPath("/Q")]?["references"] == .referenceListOp(SdfListOp(explicit: [
            SdfReference(assetPath: "weird@name.usda"),
        ])))
        var pay = SdfListOp<SdfPayload>()
        pay.appendedItems = [SdfPayload(assetPath: "", primPath: SdfPath("/Int")), SdfPayload(assetPath: "x.usd")]
        #expect(layer[SdfPath("/Q")]?["payload"] == .payloadListOp(pay))
    }

    @Test func layerMetadata() throws {
        let layer = try USDATest.parse("""
            #usda 1.0
            (
                "layer comment"
                doc = \"\"\"multi
            line\"\"\"
                subLayers = [
                    @./a.usda@ (offset = 2; scale = 3),
                    @b.usda@
                ]
                timeCodesPerSecond = 24
                framesPerSecond = 30.5
                startTimeCode = 1
                endTimeCode = 100
                customLayerData = {
                    string creator = "tool"
                }
                relocates = {
                    </A/B>: </A/C>,
                }
                myCustomKey = 3
                otherKey = "s"
            )
            reorder rootPrims = ["B", "A"]
            def "A" {
            }
            def "B" {
            }
            """)
        #expect(layer[.root]?.fields == [
            "comment": .string("layer comment"), "documentation": .string("multi\nline"),
            "subLayers": .stringVector(["./a.usda", "b.usda"]),
            "subLayerOffsets": .layerOffsetVector([SdfLayerOffset(offset: 2, scale: 3), .identity]),
            "timeCodesPerSecond": .double(24), "framesPerSecond": .double(30.5), "startTimeCode": .double(1),
            "endTimeCode": .double(100), "customLayerData": .dictionary(["creator": .string("tool")]),
            "layerRelocates": .relocates([SdfPath("/A/B"): SdfPath("/A/C")]),
            "myCustomKey": .double(3), "otherKey": .string("s"),
            "primOrder": .tokenVector(["B", "A"]), "primChildren": .tokenVector(["A", "B"]),
        ])
    }

    @Test func propertyMetadata() throws {
        let layer = try USDATest.prim("""
                texCoord2f[] primvars:st = [(0, 1)] (
                    interpolation = "faceVarying"
                    elementSize = 2
                    customData = { string userDocBrief = "b" }
                    doc = "d"
                    displayName = "Name"
                    displayGroup = "Group"
                    colorSpace = "raw"
                    allowedTokens = ["a", "b"]
                    hidden = true
                    permission = public
                    unknownNumber = 2
                    unknownList = ["x", "y"]
                    unknownTuple = (1, 2, 3)
                    unknownIdent = someToken
                    "attr comment"
                )
                rel material:binding = </M> (
                    bindMaterialAs = "strongerThanDescendants"
                )
                """)
        #expect(layer[SdfPath("/P.primvars:st")]?.fields == [
            "typeName": .token("texCoord2f[]"), "default": .array(.float2, .float([0, 1])),
            "interpolation": .token("faceVarying"), "elementSize": .int(2),
            "customData": .dictionary(["userDocBrief": .string("b")]), "documentation": .string("d"),
            "displayName": .string("Name"), "displayGroup": .string("Group"), "colorSpace": .token("raw"),
            "allowedTokens": .array(.token, .string(["a", "b"])), "hidden": .bool(true),
            "permission": .permission(.public), "unknownNumber": .double(2),
            "unknownList": .array(.string, .string(["x", "y"])), "unknownTuple": .scalar(.double3, .double([1, 2, 3])),
            "unknownIdent": .token("someToken"), "comment": .string("attr comment"),
        ])
        #expect(layer[SdfPath("/P.material:binding")]?["bindMaterialAs"] == .token("strongerThanDescendants"))
    }
}
