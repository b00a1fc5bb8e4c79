import Testing
@testable import SceneModel

@Suite struct SceneValidatorTests {
    func triangleScene() -> Scene {
        var s = Scene()
        let m = s.addMesh(Mesh(name: "tri", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2],
                               primitives: [.init(indexStart: 0, indexCount: 3, material: nil)]))
        s.addNode(Node(name: "n", mesh: m))
        return s
    }

    @Test func validSceneHasNoErrors() {
        #expect(SceneValidator.validate(triangleScene()).filter { $0.severity == .error }.isEmpty)
    }

    @Test func indexOutOfRangeIsReported() {
        var s = triangleScene()
        s.meshes[0].indices = [0, 1, 3]
        #expect(SceneValidator.validate(s).map(\.code).contains("SCENE_MESH_INDEX_RANGE"))
    }

    @Test func parentCycleIsReported() {
        var s = triangleScene()
        s.addNode(Node(name: "a", parent: NodeIndex(2)))
        s.addNode(Node(name: "b", parent: NodeIndex(1)))
        #expect(SceneValidator.validate(s).map(\.code).contains("SCENE_NODE_CYCLE"))
    }

    @Test func matrixProductAppliesRightOperandFirst() {
        let m = Matrix4.translation(10, 0, 0) * Matrix4.scale(2, 2, 2)
        #expect(m.transformPoint(SIMD3(1, 0, 0)) == SIMD3(12, 0, 0))
        let inv = m.inverse!
        let back = inv.transformPoint(SIMD3(12, 0, 0))
        #expect(abs(back.x - 1) < 1e-12 && abs(back.y) < 1e-12)
    }

    @Test func quaternionNinetyAboutZMapsXToY() {
        let h = 0.5.squareRoot()
        let p = Matrix4.rotation(quaternionX: 0, y: 0, z: h, w: h).transformPoint(SIMD3(1, 0, 0))
        #expect(abs(p.x) < 1e-12 && abs(p.y - 1) < 1e-12)
    }
}
