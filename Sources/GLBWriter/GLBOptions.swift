/// Settings for `GLBWriter.write(_:options:)`. Value type; safe to share across tasks.
public struct GLBOptions: Sendable {
    /// Written to `asset.generator`, e.g. `"CrowdRoom transcode-worker 0.1.0"`. Include the worker
    /// version, never a timestamp: the output must stay byte-identical for the same input.
    public var generator: String
    /// Used only for meshes without normals: faces meeting at an angle up to this many degrees are
    /// shaded smoothly, sharper (hard) edges stay flat and their vertices are split. Clamped to
    /// [0, 180]; non-finite values fall back to 40.
    public var smoothingAngleDegrees: Double
    /// How geometry is stored (default `.none`, readable everywhere; the worker writes `.meshopt`).
    public var compression: GLBCompression
    /// With `.meshopt`: the largest change a position may undergo, in scene units (metres), as
    /// the mesh is drawn. Positions are rounded to the largest power-of-two step whose half is
    /// within it (2⁻⁹ for 1 mm) divided by how much the nodes drawing the mesh stretch it (2⁻³ for a
    /// catalog model in centimetres drawn at 0.01; see `PositionGrid`); coordinates beyond 2²³ steps
    /// keep 23 significant bits instead.
    /// Non-finite or non-positive values fall back to 0.001 (1 mm).
    public var positionError: Double
    /// True when the caller already ran `GLBWriter.checkValid` on the scene (or on the scene this
    /// one was derived from by adding valid meshes and materials): the writer trusts it instead of
    /// validating it again. Default false: the writer validates.
    public var sceneValidated = false
    /// With `.meshopt`: texture coordinates are rounded to multiples of 2⁻¹² (each moves by at most
    /// 2⁻¹³, an eighth of a texel of a 1024-pixel texture) and written with the `EXPONENTIAL`
    /// filter, like positions.
    public static let texcoordGridExponent = -12

    /// - Parameters:
    ///   - generator: text for `asset.generator`.
    ///   - smoothingAngleDegrees: the smooth/hard edge threshold in degrees (default 40).
    ///   - compression: how geometry is stored (default `.none`).
    ///   - positionError: the position error bound of `.meshopt`, metres (default 0.001).
    public init(
        generator: String, smoothingAngleDegrees: Double = 40, compression: GLBCompression = .none,
        positionError: Double = 0.001
    ) {
        self.generator = generator
        self.smoothingAngleDegrees = smoothingAngleDegrees
        self.compression = compression
        self.positionError = positionError.isFinite && positionError > 0 ? positionError : 0.001
    }
}
