import SceneModel

/// `layer_manifest.json` as typed values: what `ManifestBuilder.document` checked and derived from
/// a `ManifestInput`, each list in the order the file writes it. `bytes` writes it; whoever reads
/// the pipeline's manifest in the same process (the report) reads these values instead of parsing
/// the bytes back.
///
/// Every value here passed the schema's checks (hashes are lowercase, identifiers and paths
/// valid, indices in range, numbers finite where the schema requires). Real-valued measurements
/// are kept as computed; the file rounds them (`written(_:)`, 6 decimal places), so a reader that
/// shows a number shows `written(x)` to match the file.
public struct ManifestDocument: Hashable, Sendable {
    /// `generator`: who wrote the file.
    public struct Generator: Hashable, Sendable {
        public var name: String
        public var version: String
    }

    /// `source`: what the input was.
    public struct Source: Hashable, Sendable {
        /// `usdz`, `usdc`, `usda`, `roomplan_json`…; nil when unknown.
        public var format: String?
        public var isRoomPlan: Bool
        /// RoomPlan's reference origin (column-major, metres), when the scan has one.
        public var referenceOriginTransform: Matrix4?
    }

    /// `units`: the source's frame and the output's.
    public struct Units: Hashable, Sendable {
        public var sourceUpAxis: SceneMetadata.UpAxis
        /// Metres per source unit (finite, > 0).
        public var sourceMetersPerUnit: Double
        /// The output frame in words (`ManifestBuilder.outputUnits`).
        public var output: String
    }

    /// One entry of `layers`.
    public struct Layer: Hashable, Sendable {
        public var layer: RoomLayer
        /// The layer node's glTF node index; nil when the model has none (written as `null`).
        public var node: Int?
        /// The layer node's name in the model.
        public var nodeName: String?
        /// Triangles under the layer node.
        public var triangles: Int
        /// World bounds of the geometry under the layer node, metres (empty: none).
        public var bounds: Bounds
        /// The layer's colour in the model (`#rrggbb`), when the palette coloured it.
        public var palette: String?
    }

    /// One entry of `elements`.
    public struct Element: Hashable, Sendable {
        public var element: RoomElement
        /// The element node's glTF node index; nil when the model has none.
        public var node: Int?
        /// The element node's name in the model.
        public var nodeName: String?
        /// World bounds of the element's geometry, metres.
        public var bounds: Bounds
    }

    public var schemaVersion: Int
    public var generator: Generator
    public var versionId: String?
    public var roomId: String?
    public var source: Source
    /// Sorted by role (`InputFile.roles` order), then name, then hash.
    public var inputs: [InputFile]
    public var units: Units
    public var glb: Artifact
    /// World bounds of the whole scene, metres.
    public var bounds: Bounds
    /// The stories elements and sections name, ascending.
    public var stories: [Int]
    /// In the layered scene's order.
    public var layers: [Layer]
    /// In layer order, then each layer's order; elements no layer lists follow.
    public var elements: [Element]
    public var sections: [RoomSection]
    public var metrics: RoomMetrics
    public var quality: QualityGrade
    /// Sorted by kind (`Thumbnail.kinds` order), then path.
    public var thumbnails: [Thumbnail]
    public var plan: PlanRecord?
    /// Sorted by texture path, then replacement name; each one's `applied` by redaction id.
    public var redactions: [TextureSubstitution]
    /// One record per output group made.
    public var artifacts: [ArtifactRecord]
    /// The input's warnings, then the builder's own.
    public var warnings: [SceneWarning]
    public var stats: Stats

    /// The file's bytes (`ManifestBuilder.build`'s format: sorted keys, two-space indentation,
    /// rounded measurements, one trailing newline).
    public var bytes: [UInt8] { ManifestJSON.serialize(json) }

    /// `x` as the file writes a measurement: rounded to 6 decimal places.
    public static func written(_ x: Double) -> Double { ManifestNumbers.round(x) }

    /// `x` as the file writes an optional measurement: nil when the file writes `null` (nil or
    /// not finite).
    public static func written(_ x: Double?) -> Double? { ManifestNumbers.rounded(x) }
}
