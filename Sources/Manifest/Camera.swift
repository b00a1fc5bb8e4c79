/// The camera a thumbnail was rendered with, in the GLB's frame (metres, +Y up), so an app can
/// place its own 3D view exactly where the image was taken.
///
/// Exactly one of `fovDegrees` (perspective) and `orthoHalfExtent` (orthographic) is set.
public struct Camera: Hashable, Sendable {
    /// Eye position.
    public var position: SIMD3<Double>
    /// The point looked at.
    public var target: SIMD3<Double>
    /// The up direction (normally `[0, 1, 0]`; the plan view uses a horizontal up).
    public var up: SIMD3<Double>
    /// Perspective cameras: vertical field of view in degrees, in (0, 180).
    public var fovDegrees: Double?
    /// Orthographic cameras: half the height of the view volume in metres, > 0.
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
}
