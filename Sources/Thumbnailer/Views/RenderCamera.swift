import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A camera ready for rasterisation, in the render scene's frame (world minus `RenderScene.origin`).
///
/// Clip space is `(x, y, z, w)` with `z = forward distance − near` (visible when z ≥ 0) and
/// `w` = forward distance for perspective, 1 for orthographic. The depth key stored per sample is
/// affine in screen space and grows toward the camera: `1/w` (perspective) or `−z·depthScale`
/// (orthographic).
struct RenderCamera: Sendable {
    let eye: SIMD3<Double>
    let forward: SIMD3<Double>
    let right: SIMD3<Double>
    let up: SIMD3<Double>
    let perspective: Bool
    /// tan(half vertical fov) (perspective) or half height in metres (orthographic).
    let halfY: Double
    /// The same horizontally.
    let halfX: Double
    let near: Double
    let depthScale: Double
    /// World (relative to the scene origin) → clip.
    let clipFromWorld: Mat4f
    /// Output size in pixels.
    let width: Int
    let height: Int
    /// The public description (absolute world coordinates).
    let description: ThumbnailCamera

    /// - Parameters:
    ///   - camera: absolute world coordinates; degenerate values are repaired (a zero or parallel
    ///     up vector, a non-finite field of view) so rendering never fails.
    ///   - origin: the render scene's origin, subtracted from positions.
    ///   - sceneRadius: scale of the scene in metres (near plane and orthographic depth range).
    init(_ camera: ThumbnailCamera, width: Int, height: Int, origin: SIMD3<Double>, sceneRadius: Double) {
        self.width = width
        self.height = height
        self.description = camera
        let radius = sceneRadius.isFinite && sceneRadius > 1e-9 ? sceneRadius : 1
        var eye = camera.position - origin
        var target = camera.target - origin
        if !eye.isFinite { eye = SIMD3(0, 0, radius * 3) }
        if !target.isFinite { target = .zero }
        var f = (target - eye).normalizedOrZero
        if f == .zero { f = SIMD3(0, 0, -1) }
        var upHint = camera.up.isFinite ? camera.up.normalizedOrZero : SIMD3(0, 1, 0)
        if upHint == .zero || abs(upHint.dot(f)) > 0.9999 {
            upHint = abs(f.y) < 0.9 ? SIMD3(0, 1, 0) : SIMD3(0, 0, -1)
        }
        let r = f.cross(upHint).normalizedOrZero
        let u = r.cross(f)
        self.eye = eye
        forward = f
        right = r
        up = u
        let aspect = Double(width) / Double(max(height, 1))
        if let half = camera.orthoHalfExtent, camera.fovDegrees == nil {
            perspective = false
            halfY = half.isFinite && half > 1e-9 ? half : radius
            halfX = halfY * aspect
            near = 0
            // Depth keys stay O(1) over the scene's depth range.
            let range = eye.length + radius * 4
            depthScale = 1 / max(range, 1e-9)
        } else {
            perspective = true
            var fov = camera.fovDegrees ?? 40
            if !fov.isFinite || fov < 1 || fov > 170 { fov = 40 }
            halfY = tan(fov * Double.pi / 360)
            halfX = halfY * aspect
            near = max(radius * 1e-4, 1e-6)
            depthScale = 1
        }
        let ex = -r.dot(eye), ey = -u.dot(eye), ez = -f.dot(eye)
        if perspective {
            let sx = 1 / halfX, sy = 1 / halfY
            clipFromWorld = Mat4f(rows: [
                [r.x * sx, r.y * sx, r.z * sx, ex * sx],
                [u.x * sy, u.y * sy, u.z * sy, ey * sy],
                [f.x, f.y, f.z, ez - near],
                [f.x, f.y, f.z, ez],
            ])
        } else {
            let sx = 1 / halfX, sy = 1 / halfY
            clipFromWorld = Mat4f(rows: [
                [r.x * sx, r.y * sx, r.z * sx, ex * sx],
                [u.x * sy, u.y * sy, u.z * sy, ey * sy],
                [f.x, f.y, f.z, ez - near],
                [0, 0, 0, 1],
            ])
        }
    }

    /// Forward distance of a depth key (the inverse of the key mapping).
    @inline(__always)
    func forwardDistance(key: Float) -> Float {
        perspective ? 1 / key : Float(near) - key / Float(depthScale)
    }
}
