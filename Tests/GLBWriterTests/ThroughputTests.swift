import Foundation
import SceneModel
import Testing

@testable import GLBWriter

/// Throughput measurement, run only when `GLB_BENCH=1` (no test asserts a wall-clock time).
/// Release: `swift test -c release -Xswiftc -enable-testing --filter ThroughputTests`.
@Suite struct ThroughputTests {
    static let enabled = ProcessInfo.processInfo.environment["GLB_BENCH"] == "1"

    func measure(_ label: String, _ layered: LayeredScene, triangles: Int) throws {
        var best = Double.infinity
        var size = 0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            let out = try GLBWriter.write(layered, options: GLBOptions(generator: "bench"))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            best = min(best, ms)
            size = out.bytes.count
        }
        let perMillion = best / (Double(triangles) / 1e6)
        print(
            "GLB bench \(label): \(triangles) triangles, \(size) bytes, \(String(format: "%.1f", best)) ms, "
                + "\(String(format: "%.1f", perMillion)) ms per million triangles")
    }

    @Test(.enabled(if: ThroughputTests.enabled)) func writeThreeMillionTriangles() throws {
        // 1225² quads ≈ 3.0M triangles, normals given.
        var withNormals = RoomBuilder()
        let grid = Meshes.grid(1225)
        let m = withNormals.scene.addMesh(grid)
        withNormals.addElement("FLOOR", layer: withNormals.addLayer("floors"), category: "floor", mesh: m)
        try measure("normals given", withNormals.layered, triangles: grid.triangleCount)

        var generated = RoomBuilder()
        var noNormals = grid
        noNormals.normals = []
        let g = generated.scene.addMesh(noNormals)
        generated.addElement("FLOOR", layer: generated.addLayer("floors"), category: "floor", mesh: g)
        try measure("normals generated", generated.layered, triangles: grid.triangleCount)

        // Many small meshes: 3,000 cubes without normals, each its own mesh (a furnished room).
        var many = RoomBuilder()
        let layer = many.addLayer("objects.storage", kind: "objects", category: "storage")
        for i in 0..<3000 {
            let cube = many.scene.addMesh(Meshes.sphere(rings: 16, segments: 32))
            many.addElement(
                "E\(i)", layer: layer, category: "storage", transform: .translation(Double(i), 0, 0), mesh: cube)
        }
        try measure(
            "3000 spheres, normals generated", many.layered,
            triangles: 3000 * Meshes.sphere(rings: 16, segments: 32).triangleCount)
    }
}
