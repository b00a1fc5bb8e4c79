/// The camera of a thumbnail, in the scene's frame (metres, +Y up), so an app can put its own 3D
/// view exactly where the image was taken. Exactly one of `fovDegrees` (perspective) and
/// `orthoHalfExtent` (orthographic) is set.
public struct ThumbnailCamera: Sendable, Hashable {
    /// Eye position.
    public var position: SIMD3<Double>
    /// The point looked at (the image centre).
    public var target: SIMD3<Double>
    /// Up direction on screen (normally +Y; the plan uses a horizontal up).
    public var up: SIMD3<Double>
    /// Perspective: vertical field of view in degrees.
    public var fovDegrees: Double?
    /// Orthographic: half the view height in metres.
    public var orthoHalfExtent: Double?

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
    ) -> ThumbnailCamera {
        ThumbnailCamera(position: position, target: target, up: up, fovDegrees: fovDegrees)
    }

    /// An orthographic camera showing `halfExtent` metres above and below the target.
    public static func orthographic(
        position: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double>, halfExtent: Double
    ) -> ThumbnailCamera {
        ThumbnailCamera(position: position, target: target, up: up, orthoHalfExtent: halfExtent)
    }
}
