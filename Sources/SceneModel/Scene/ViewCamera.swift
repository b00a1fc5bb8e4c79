/// A camera that looked at the scene, in the scene's frame (metres, +Y up): how a thumbnail was
/// rendered, so that an app can put its own 3D view exactly where the image was taken. The
/// thumbnailer makes it and the manifest lists it; both use this one type.
///
/// Exactly one of `fovDegrees` (perspective) and `orthoHalfExtent` (orthographic) is set.
public struct ViewCamera: Sendable, Hashable {
    /// Eye position.
    public var position: SIMD3<Double>
    /// The point looked at (the image centre).
    public var target: SIMD3<Double>
    /// Up direction on screen (normally `[0, 1, 0]`; the plan view uses a horizontal up).
    public var up: SIMD3<Double>
    /// Perspective: vertical field of view in degrees, in (0, 180).
    public var fovDegrees: Double?
    /// Orthographic: half the height of the view volume in metres, > 0.
    public var orthoHalfExtent: Double?

    /// A camera; set `fovDegrees` for a perspective view or `orthoHalfExtent` for an orthographic one.
    public init(
        position: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double> = SIMD3(0, 1, 0),
        fovDegrees: Double? = nil, orthoHalfExtent: Double? = nil
    ) {
        self.position = position
        self.target = target
        self.up = up
        self.fovDegrees = fovDegrees
        self.orthoHalfExtent = orthoHalfExtent
    }

    /// A perspective camera.
    public static func perspective(
        position: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double> = SIMD3(0, 1, 0), fovDegrees: Double
    ) -> ViewCamera {
        ViewCamera(position: position, target: target, up: up, fovDegrees: fovDegrees)
    }

    /// An orthographic camera showing `halfExtent` metres above and below the target.
    public static func orthographic(
        position: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double>, halfExtent: Double
    ) -> ViewCamera {
        ViewCamera(position: position, target: target, up: up, orthoHalfExtent: halfExtent)
    }
}
