/// Settings for `GLBWriter.write(_:options:)`. Value type; safe to share across tasks.
public struct GLBOptions: Sendable {
    /// Written to `asset.generator`, e.g. `"CrowdRoom transcode-worker 0.1.0"`. Include the worker
    /// version, never a timestamp: the output must stay byte-identical for the same input.
    public var generator: String
    /// Used only for meshes without normals: faces meeting at an angle up to this many degrees are
    /// shaded smoothly, sharper (hard) edges stay flat and their vertices are split. Clamped to
    /// [0, 180]; non-finite values fall back to 40.
    public var smoothingAngleDegrees: Double

    /// - Parameters:
    ///   - generator: text for `asset.generator`.
    ///   - smoothingAngleDegrees: the smooth/hard edge threshold in degrees (default 40).
    public init(generator: String, smoothingAngleDegrees: Double = 40) {
        self.generator = generator
        self.smoothingAngleDegrees = smoothingAngleDegrees
    }
}
