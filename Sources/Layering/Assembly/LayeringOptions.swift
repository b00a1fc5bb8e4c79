/// Tolerances, limits and synthesis choices of `RoomLayering.layer`. Lengths are metres, angles
/// degrees. The defaults are the documented behaviour; tests pin them.
public struct LayeringOptions: Sendable, Hashable {
    /// Limits of the CapturedRoom JSON decoder (bytes, depth, element counts…).
    public var json: CapturedRoomDecoder.Limits

    /// Most scene nodes layering walks (default 2,000,000); more throws `ROOMPLAN_LIMIT_EXCEEDED`.
    public var maxSceneNodes: Int
    /// Most elements in the output, JSON and USD together (default 20,000); more throws
    /// `ROOMPLAN_LIMIT_EXCEEDED`.
    public var maxElements: Int

    // MARK: Linking without UUIDs (SceneKit re-exports, hand-edited files)

    /// Greatest horizontal (plan, XZ) distance between a USD element's origin and a JSON element's
    /// origin for a transform match. Default 0.10 m.
    public var planTolerance: Double
    /// Greatest vertical distance between the origins. Default 0.30 m: mesh exports can draw
    /// objects with another height than the JSON (chairs 0.643 m vs 1.003 m), which moves the box
    /// centre by up to ~0.18 m.
    public var verticalTolerance: Double
    /// Greatest rotation angle between the two frames. Default 10°.
    public var rotationToleranceDegrees: Double
    /// Absolute slack on each dimension. Default 0.05 m.
    public var dimensionTolerance: Double
    /// Relative slack on each dimension (fraction of the larger value). Default 0.40, again for
    /// mesh-export chairs whose height differs from the JSON by ~36 %.
    public var relativeDimensionTolerance: Double
    /// Extra width a mesh-export wall may have over its JSON width (walls overlap at joins).
    /// Default 0.16 m.
    public var meshWallExtraWidth: Double

    // MARK: Metrics and grade

    /// Greatest gap between a wall end point and another wall (its end or its centre line, so
    /// T-junctions count) in plan view for the walls to count as closed. Default 0.30 m.
    public var wallClosureTolerance: Double

    // MARK: Synthesized geometry (elements with no USD geometry)

    /// Wall box thickness, extruded toward local −Z like RoomPlan's mesh export. Default 0.16 m.
    public var wallThickness: Double
    /// Door and window box thickness, centred on the wall plane (protrudes half in front of the
    /// wall face so it shows over the hole-less wall box). Default 0.08 m, as RoomPlan's mesh export.
    public var doorWindowThickness: Double
    /// Opening box thickness, centred on the wall plane (a thin marker: an opening is a hole).
    /// Default 0.02 m.
    public var openingThickness: Double
    /// Floor prism thickness, extruded toward local −Z (world −Y, below the floor surface) like
    /// RoomPlan's parametric floor. Default 0.0001 m.
    public var floorThickness: Double
    /// Largest angle one straight segment of a curved wall spans. Default 10°.
    public var curveSegmentDegrees: Double

    public init(
        json: CapturedRoomDecoder.Limits = .default, maxSceneNodes: Int = 2_000_000, maxElements: Int = 20_000,
        planTolerance: Double = 0.10, verticalTolerance: Double = 0.30, rotationToleranceDegrees: Double = 10,
        dimensionTolerance: Double = 0.05, relativeDimensionTolerance: Double = 0.40, meshWallExtraWidth: Double = 0.16,
        wallClosureTolerance: Double = 0.30, wallThickness: Double = 0.16, doorWindowThickness: Double = 0.08,
        openingThickness: Double = 0.02, floorThickness: Double = 0.0001, curveSegmentDegrees: Double = 10
    ) {
        self.json = json
        self.maxSceneNodes = maxSceneNodes
        self.maxElements = maxElements
        self.planTolerance = planTolerance
        self.verticalTolerance = verticalTolerance
        self.rotationToleranceDegrees = rotationToleranceDegrees
        self.dimensionTolerance = dimensionTolerance
        self.relativeDimensionTolerance = relativeDimensionTolerance
        self.meshWallExtraWidth = meshWallExtraWidth
        self.wallClosureTolerance = wallClosureTolerance
        self.wallThickness = wallThickness
        self.doorWindowThickness = doorWindowThickness
        self.openingThickness = openingThickness
        self.floorThickness = floorThickness
        self.curveSegmentDegrees = curveSegmentDegrees
    }
}
