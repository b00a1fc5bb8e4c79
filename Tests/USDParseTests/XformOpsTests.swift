import SceneModel
import Testing

@testable import USDParse

@Suite struct XformOpsTests {
    private func local(_ ops: [(String, SdfValue)], extraOrder: [String] = []) -> (Matrix4, [XformOps.Finding]) {
        var prim = UsdPrim(path: SdfPath("/X"), parent: 0, typeName: "Xform")
        prim.xform(ops, extraOrder: extraOrder)
        var findings: [XformOps.Finding] = []
        let r = XformOps.localTransform(of: prim, findings: &findings)
        return (r.matrix, findings)
    }

    @Test func translateThenScaleMapsUnitXTo12() {
        let (m, findings) = local([
            ("xformOp:translate", StageValue.double3(10, 0, 0)), ("xformOp:scale", StageValue.double3(2, 2, 2)),
        ])
        #expect(findings.isEmpty)
        #expect(m.transformPoint(SIMD3(1, 0, 0)) == SIMD3(12, 0, 0))
        // Element layout equals USD's row-major ((2,0,0,0),(0,2,0,0),(0,0,2,0),(10,0,0,1)).
        #expect(m.m == [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 10, 0, 0, 1])
    }

    @Test func transformOpKeepsTranslationInLastRow() {
        let (m, _) = local([("xformOp:transform", StageValue.matrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 3, 4, 5, 1]))])
        #expect(m.transformPoint(.zero) == SIMD3(3, 4, 5))
        #expect(m[0, 3] == 3 && m[1, 3] == 4 && m[2, 3] == 5)
    }

    @Test func rotateXYZRotatesAboutXFirstThenYThenZ() {
        // (0,1,0) –Rx(90)→ (0,0,1) –Ry(90)→ (1,0,0) –Rz(0)→ (1,0,0).
        let (m, _) = local([("xformOp:rotateXYZ", StageValue.float3(90, 90, 0))])
        #expect(nearlyEqual(m.transformPoint(SIMD3(0, 1, 0)), SIMD3(1, 0, 0)))
        // Equals the single-axis ops listed outermost-first: [rotateZ, rotateY, rotateX].
        let (single, _) = local([
            ("xformOp:rotateZ", .double(30)), ("xformOp:rotateY", .double(-45)), ("xformOp:rotateX", .double(60)),
        ])
        let (euler, _) = local([("xformOp:rotateXYZ", StageValue.double3(60, -45, 30))])
        for (a, b) in zip(single.m, euler.m) { #expect(nearlyEqual(a, b, 1e-12)) }
    }

    @Test func rotateZYXRotatesAboutZFirst() {
        // (1,0,0) –Rz(90)→ (0,1,0) –Ry(0)→ –Rx(90)→ (0,0,1).
        let (m, _) = local([("xformOp:rotateZYX", StageValue.float3(90, 0, 90))])
        #expect(nearlyEqual(m.transformPoint(SIMD3(1, 0, 0)), SIMD3(0, 0, 1)))
        let (single, _) = local([
            ("xformOp:rotateX", .double(20)), ("xformOp:rotateY", .double(35)), ("xformOp:rotateZ", .double(-70)),
        ])
        let (euler, _) = local([("xformOp:rotateZYX", StageValue.double3(20, 35, -70))])
        for (a, b) in zip(single.m, euler.m) { #expect(nearlyEqual(a, b, 1e-12)) }
    }

    @Test func everyEulerOrderMatchesItsSingleAxisProduct() {
        let angles = [25.0, -40, 75]
        for order in ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"] {
            let axisIndex: [Character: Int] = ["X": 0, "Y": 1, "Z": 2]
            // Outermost first in xformOpOrder = reverse of application order.
            let ops = order.reversed().map { ch in ("xformOp:rotate\(ch)", SdfValue.double(angles[axisIndex[ch]!])) }
            let (single, _) = local(ops)
            let (euler, _) = local([("xformOp:rotate\(order)", StageValue.double3(angles[0], angles[1], angles[2]))])
            for (a, b) in zip(single.m, euler.m) { #expect(nearlyEqual(a, b, 1e-12), "order \(order)") }
        }
    }

    @Test func orientNinetyAboutZMapsXToY() {
        let h = Float(0.5).squareRoot()
        for value in [
            StageValue.quatf(i: 0, j: 0, k: h, r: h),
            SdfValue.scalar(.quatd, .double([0, 0, Double(h), Double(h)])),
            SdfValue.scalar(.quath, .half([0, 0, Half.fromFloat(h), Half.fromFloat(h)])),
        ] {
            var prim = UsdPrim(path: SdfPath("/X"), parent: 0, typeName: "Xform")
            prim.set("xformOp:orient", "quatf", value)
            prim.set("xformOpOrder", "token[]", StageValue.tokens(["xformOp:orient"]))
            var findings: [XformOps.Finding] = []
            let m = XformOps.localTransform(of: prim, findings: &findings).matrix
            #expect(findings.isEmpty)
            #expect(nearlyEqual(m.transformPoint(SIMD3(1, 0, 0)), SIMD3(0, 1, 0), 1e-3))
        }
    }

    @Test func invertedPivotRotatesAboutThePivot() {
        let (m, findings) = local([
            ("xformOp:translate:pivot", StageValue.double3(1, 0, 0)), ("xformOp:rotateZ", .double(90)),
            ("!invert!xformOp:translate:pivot", .double(0)),
        ])
        #expect(findings.isEmpty)
        #expect(nearlyEqual(m.transformPoint(SIMD3(1, 0, 0)), SIMD3(1, 0, 0)))
        #expect(nearlyEqual(m.transformPoint(SIMD3(2, 0, 0)), SIMD3(1, 1, 0)))
    }

    @Test func opsNotInOrderAreIgnoredAndMissingOpsWarn() {
        var prim = UsdPrim(path: SdfPath("/X"), parent: 0, typeName: "Xform")
        prim.set("xformOp:translate", "double3", StageValue.double3(1, 2, 3))
        prim.set("xformOp:scale", "double3", StageValue.double3(5, 5, 5))  // not listed
        prim.set("xformOpOrder", "token[]", StageValue.tokens(["xformOp:translate", "xformOp:rotateY"]))
        var findings: [XformOps.Finding] = []
        let m = XformOps.localTransform(of: prim, findings: &findings).matrix
        #expect(m.transformPoint(SIMD3(1, 1, 1)) == SIMD3(2, 3, 4))
        #expect(findings.map(\.code) == ["USD_XFORM_OP_MISSING"])
    }

    @Test func timeSampledAndHalfValuesAreAccepted() {
        var prim = UsdPrim(path: SdfPath("/X"), parent: 0, typeName: "Xform")
        var a = UsdAttribute(name: "xformOp:translate", typeName: "half3")
        a.timeSamples = SdfTimeSamples(
            times: [0, 10],
            values: [
                .scalar(.half3, .half([Half.fromFloat(1), Half.fromFloat(2), Half.fromFloat(3)])),
                StageValue.double3(9, 9, 9),
            ])
        prim.attributes[a.name] = a
        prim.set("xformOpOrder", "token[]", StageValue.tokens(["xformOp:translate"]))
        var findings: [XformOps.Finding] = []
        let m = XformOps.localTransform(of: prim, findings: &findings).matrix
        #expect(m.transformPoint(.zero) == SIMD3(1, 2, 3))
    }

    @Test func nonFiniteAndSingularOpsAreSkipped() {
        let (m, findings) = local([
            ("xformOp:translate", StageValue.double3(.nan, 0, 0)), ("xformOp:scale", StageValue.double3(0, 1, 1)),
            ("!invert!xformOp:scale:zero", StageValue.double3(0, 1, 1)),
        ])
        #expect(m.m.allSatisfy { $0.isFinite })
        #expect(findings.map(\.code) == ["USD_XFORM_OP_INVALID", "USD_XFORM_OP_INVALID"])
    }

    @Test func resetXformStackIgnoresParentTransforms() throws {
        let s = TestStage()
        s.prim("/P", "Xform") {
            $0.xform([
                ("xformOp:translate", StageValue.double3(5, 0, 0)), ("xformOp:scale", StageValue.double3(2, 2, 2)),
            ])
        }
        s.prim("/P/C", "Xform") {
            $0.xform([("xformOp:translate", StageValue.double3(1, 0, 0))], extraOrder: ["!resetXformStack!"])
        }
        s.prim("/P/C/M", "Cube") { $0.set("size", "double", .double(2)) }
        let scene = try buildTestScene(s.build())
        let world = scene.worldTransforms()
        let c = try #require(scene.nodeIndex("C"))
        #expect(nearlyEqual(world[c].transformPoint(.zero), SIMD3(1, 0, 0)))
        #expect(nearlyEqual(world[c].transformPoint(SIMD3(1, 0, 0)), SIMD3(2, 0, 0)))
        // The local transform compensates the parent: inverse(parentWorld) × world.
        #expect(nearlyEqual(scene.nodes[c].localTransform.transformPoint(.zero), SIMD3(-2, 0, 0)))
        let b = scene.worldBounds(of: "M")
        #expect(nearlyEqual(b.min, SIMD3(0, -1, -1)) && nearlyEqual(b.max, SIMD3(2, 1, 1)))
    }

    @Test func resetXformStackOnARootUsesTheStageCorrection() throws {
        let s = TestStage()
        s.metadata = ["metersPerUnit": .double(0.01), "upAxis": .token("Z")]
        s.prim("/R", "Xform") {
            $0.xform([("xformOp:translate", StageValue.double3(0, 0, 100))], extraOrder: ["!resetXformStack!"])
        }
        let scene = try buildTestScene(s.build())
        #expect(nearlyEqual(scene.worldTransforms()[0].transformPoint(.zero), SIMD3(0, 1, 0), 1e-12))
    }
}
