import SceneModel
import Testing

@testable import GLBWriter

/// The position grid of a compressed model holds the 1 mm bound in the room, as each mesh is
/// drawn: a catalog model in centimetres drawn at 0.01 is stored on a coarser grid, a mesh drawn
/// enlarged on a finer one, and a mesh whose values the other grid would not change keeps the grid
/// of an unstretched mesh.
@Suite struct PositionGridTests {
    /// One element drawing `mesh` below a `model` node whose matrix scales by `scale`.
    static func room(_ mesh: Mesh, scale: [Double]) -> LayeredScene {
        var b = RoomBuilder()
        let m = b.scene.addMesh(mesh)
        let layer = b.addLayer("objects.chair", kind: "objects", category: "chair")
        let element = b.addElement("CHAIR-1", layer: layer, category: "chair", transform: .translation(0.5, 0, 0.25))
        var matrix = Matrix4.identity
        for c in 0..<3 { matrix[c, c] = scale[c] }
        let model = b.addChild("model", of: element, transform: matrix)
        b.addChild("chair_Default", of: model, mesh: m)
        return b.layered
    }

    /// A sphere of radius `radius` with normals (its own unit directions).
    static func sphere(radius: Float) -> Mesh {
        var mesh = Meshes.sphere()
        mesh.normals = mesh.positions
        mesh.positions = mesh.positions.map { $0 * radius }
        return mesh
    }

    /// The model written with meshopt, and its decoded positions and the source positions, per vertex.
    func decoded(_ layered: LayeredScene) throws -> (bin: Int, positions: [[Double]], meshes: Int) {
        let output = try GLBWriter.write(layered, options: GLBOptions(generator: "t", compression: .meshopt))
        #expect(GLTFStructuralValidator.validate(output.bytes).isEmpty)
        let reader = try GLBTestReader(output.bytes)
        let positions = try MeshoptTestDecoder(reader).values(try #require(attribute(reader, "POSITION")))
        return (reader.bin?.count ?? 0, positions, output.meshCount)
    }

    /// Every decoded position is within `bound` of a source position (per component).
    func everyPositionWithin(_ bound: Double, of source: Mesh, _ positions: [[Double]]) -> Bool {
        let points = stride(from: 0, to: source.positions.count, by: 3).map { i in
            (0..<3).map { Double(source.positions[i + $0]) }
        }
        return positions.allSatisfy { p in points.contains { q in (0..<3).allSatisfy { abs(p[$0] - q[$0]) <= bound } } }
    }

    @Test func aCentimetreModelDrawnAtAHundredthIsStoredOnACoarserGridWithinTheBound() throws {
        let chair = Self.sphere(radius: 31.7)  // centimetres
        let drawn = try decoded(Self.room(chair, scale: [0.0099, 0.01, 0.0098]))
        // 1 mm in the room is 0.1 in the mesh's units: the grid is 2⁻³ (each value within 2⁻⁴).
        #expect(drawn.positions.allSatisfy { p in p.allSatisfy { ($0 * 8).rounded() == $0 * 8 } })
        #expect(everyPositionWithin(0x1p-4, of: chair, drawn.positions))
        // The same mesh drawn at its own size stays on the 2⁻⁹ grid, and takes more bytes.
        let unscaled = try decoded(Self.room(chair, scale: [1, 1, 1]))
        #expect(unscaled.positions.contains { p in p.contains { ($0 * 8).rounded() != $0 * 8 } })
        #expect(everyPositionWithin(0x1p-10, of: chair, unscaled.positions))
        #expect(drawn.bin < unscaled.bin, "\(drawn.bin) against \(unscaled.bin)")
    }

    @Test func aMeshDrawnEnlargedIsStoredOnAFinerGrid() throws {
        let sphere = Self.sphere(radius: 0.5)
        let drawn = try decoded(Self.room(sphere, scale: [6, 2.5, 0.5]))
        // Drawn six times its size: within 1/6 mm in its own units, so within 1 mm in the room.
        #expect(everyPositionWithin(0.001 / 6, of: sphere, drawn.positions))
        #expect(!everyPositionWithin(0x1p-11, of: sphere, try decoded(Self.room(sphere, scale: [1, 1, 1])).positions))
    }

    @Test func valuesTheStretchedGridWouldNotChangeKeepTheUnstretchedGrid() throws {
        // A unit cube's ±0.5 corners are on every grid: drawn 6 m long it is written as drawn at 1.
        let cube = Meshes.cube8()
        let at1 = try GLBWriter.write(Self.room(cube, scale: [1, 1, 1]), options: GLBOptions(generator: "t", compression: .meshopt))
        let at6 = try GLBWriter.write(Self.room(cube, scale: [6, 2.5, 0.0001]), options: GLBOptions(generator: "t", compression: .meshopt))
        #expect(try GLBTestReader(at1.bytes).bin == GLBTestReader(at6.bytes).bin)
        #expect(PositionGrid.exponent([-0.5, 0.5, 430, -145], error: 0.001, stretch: 6) == -9)
        #expect(PositionGrid.exponent([-0.5, 0.5, 430, -145], error: 0.001, stretch: 0.01) == -9)
        #expect(PositionGrid.exponent([0.3], error: 0.001, stretch: 6) == -12)
        #expect(PositionGrid.exponent([0.3], error: 0.001, stretch: 0.01) == -3)
        #expect(PositionGrid.exponent([0.3], error: 0.001, stretch: 0) == -9, "a collapsed node keeps the plain grid")
        #expect(PositionGrid.exponent([0.3], error: 0.001, stretch: .nan) == -9)
    }

    @Test func copiesOnEitherSideOfAGridStepStillShareOneMesh() throws {
        // 1 mm / 0.0079 = 0.127 (grid 2⁻²) and 1 mm / 0.0082 = 0.122 (grid 2⁻³): both copies take the
        // finer grid of the more stretched one, stay identical, and are stored once.
        var b = RoomBuilder()
        let layer = b.addLayer("objects.chair", kind: "objects", category: "chair")
        for (k, s) in [0.0079, 0.0082].enumerated() {
            let m = b.scene.addMesh(Self.sphere(radius: 31.7))
            let element = b.addElement("CHAIR-\(k)", layer: layer, category: "chair", transform: .translation(Double(k), 0, 0))
            var matrix = Matrix4.identity
            for c in 0..<3 { matrix[c, c] = s }
            b.addChild("chair_Default", of: b.addChild("model", of: element, transform: matrix), mesh: m)
        }
        let drawn = try decoded(b.layered)
        #expect(drawn.meshes == 1)
        #expect(drawn.positions.allSatisfy { p in p.allSatisfy { ($0 * 8).rounded() == $0 * 8 } })
        #expect(drawn.positions.contains { p in p.contains { ($0 * 4).rounded() != $0 * 4 } })
    }
}
