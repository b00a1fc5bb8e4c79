import SceneModel

extension PlanSheet {
    /// The orthographic top-down camera that sees what a raster of this sheet shows
    /// (`CairoPlanRenderer.raster`): looking down −Y from 20 m above the floor, with up on the
    /// screen the world direction the sheet draws upwards (−Z when the sheet is not turned),
    /// centred on the image centre, its half height in metres.
    ///
    /// - Parameters:
    ///   - pixelsPerMillimetre: the raster's scale, pixels per millimetre of paper.
    ///   - offset: where the raster put the paper's origin, pixels.
    ///   - width: the raster's width, pixels; `height` likewise.
    ///   - layered: the room drawn; its floor's height is the camera's target height (0 without one).
    public func topDownCamera(
        pixelsPerMillimetre: Double, offset: SIMD2<Double>, width: Int, height: Int, layered: LayeredScene
    ) -> ViewCamera {
        let centrePaper = (SIMD2(Double(width), Double(height)) / 2 - offset) / pixelsPerMillimetre
        let c = world(centrePaper)
        let up = worldVector(SIMD2(0, -1))
        let metresPerPixel = scale / 1000 / pixelsPerMillimetre
        let floorY = layered.elements.first { $0.category == .floor }?.transform.transformPoint(.zero).y ?? 0
        let y = floorY.isFinite ? floorY : 0
        return ViewCamera.orthographic(
            position: SIMD3(c.x, y + 20, c.y), target: SIMD3(c.x, y, c.y), up: SIMD3(up.x, 0, up.y),
            halfExtent: Double(height) / 2 * metresPerPixel)
    }
}
