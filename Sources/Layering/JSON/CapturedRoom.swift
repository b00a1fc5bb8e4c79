import SceneModel

/// A RoomPlan `CapturedRoom` as decoded from its JSON export (iOS 16 and iOS 17+ files).
///
/// Values keep the file's precision: floats are Float32 exactly as written, transforms are the 16
/// column-major floats of `simd_float4x4` (indices 12–14 are the translation), in ARKit world space
/// (metres, right-handed, +Y up). `coreModel` (Apple's opaque base64 blob) is never decoded; only
/// its presence and length are kept.
public struct CapturedRoom: Sendable, Hashable {
    /// `version` (observed 2 on iOS 17+); nil on iOS 16 files.
    public var version: Int?
    /// Top-level `story` (iOS 17+).
    public var story: Int?
    public var walls: [Surface]
    public var doors: [Surface]
    public var windows: [Surface]
    public var openings: [Surface]
    /// iOS 17+; empty on iOS 16 files.
    public var floors: [Surface]
    public var objects: [Object]
    /// iOS 17+; empty on iOS 16 files.
    public var sections: [Section]
    /// Optional 16 column-major floats.
    public var referenceOriginTransform: [Float]?
    /// Length in bytes of the base64 `coreModel` text, nil when absent. The text is not kept.
    public var coreModelLength: Int?
    /// A `CapturedStructure` (iOS 17 `StructureBuilder`): one complete room per scanned room, each
    /// with its own floors and sections, its walls, doors, windows, openings and objects repeating
    /// identifiers of the top-level (merged) lists. Empty for a single room. Rooms never nest.
    public var rooms: [CapturedRoom] = []

    /// True when the file is a `CapturedStructure` (it has `rooms`).
    public var isStructure: Bool { !rooms.isEmpty }

    public init(
        version: Int? = nil, story: Int? = nil, walls: [Surface] = [], doors: [Surface] = [], windows: [Surface] = [],
        openings: [Surface] = [], floors: [Surface] = [], objects: [Object] = [], sections: [Section] = [],
        referenceOriginTransform: [Float]? = nil, coreModelLength: Int? = nil
    ) {
        self.version = version
        self.story = story
        self.walls = walls
        self.doors = doors
        self.windows = windows
        self.openings = openings
        self.floors = floors
        self.objects = objects
        self.sections = sections
        self.referenceOriginTransform = referenceOriginTransform
        self.coreModelLength = coreModelLength
    }

    /// Surfaces in the order walls, doors, windows, openings, floors.
    public var surfaces: [Surface] { walls + doors + windows + openings + floors }

    /// Number of surfaces and objects.
    public var elementCount: Int {
        walls.count + doors.count + windows.count + openings.count + floors.count + objects.count
    }

    /// RoomPlan's confidence levels.
    public enum Confidence: String, Sendable, Hashable, CaseIterable {
        case high, medium, low, unknown
    }

    /// A wall, door, window, opening or floor.
    public struct Surface: Sendable, Hashable {
        public enum Category: Sendable, Hashable {
            case wall
            /// `isOpen` is nil when the file gave the bare `"door"` case.
            case door(isOpen: Bool?)
            case window
            case opening
            case floor

            /// `wall`, `door`, `window`, `opening` or `floor`.
            public var name: String {
                switch self {
                case .wall: return "wall"
                case .door: return "door"
                case .window: return "window"
                case .opening: return "opening"
                case .floor: return "floor"
                }
            }
        }

        /// Uppercase UUID as written.
        public var identifier: String
        public var category: Category
        public var confidence: Confidence?
        /// `[width, height, 0]` in metres.
        public var dimensions: SIMD3<Float>
        /// 16 column-major floats.
        public var transform: [Float]
        /// Host wall of a door/window/opening.
        public var parentIdentifier: String?
        /// Floors: corners in the surface's local XY plane (metres); empty for rectangles.
        public var polygonCorners: [SIMD3<Float>]
        public var story: Int?
        /// Edge names (`top`, `bottom`, `left`, `right`); the encoding was never observed, see the decoder.
        public var completedEdges: [String]
        /// Curved walls (never observed; see the decoder for the accepted encodings).
        public var curve: Curve?

        public init(
            identifier: String, category: Category, confidence: Confidence? = nil, dimensions: SIMD3<Float>,
            transform: [Float], parentIdentifier: String? = nil, polygonCorners: [SIMD3<Float>] = [], story: Int? = nil,
            completedEdges: [String] = [], curve: Curve? = nil
        ) {
            self.identifier = identifier
            self.category = category
            self.confidence = confidence
            self.dimensions = dimensions
            self.transform = transform
            self.parentIdentifier = parentIdentifier
            self.polygonCorners = polygonCorners
            self.story = story
            self.completedEdges = completedEdges
            self.curve = curve
        }
    }

    /// An arc of a curved wall in the wall's local plan (XZ) plane: points are
    /// `center + radius · (cos θ, sin θ)` for θ from `startAngle` to `endAngle`, with the first 2D
    /// coordinate along local X and the second along local Z.
    public struct Curve: Sendable, Hashable {
        /// Radians.
        public var startAngle: Double
        /// Radians.
        public var endAngle: Double
        /// Metres.
        public var radius: Double
        /// Local (x, z) in metres.
        public var center: SIMD2<Double>

        public init(startAngle: Double, endAngle: Double, radius: Double, center: SIMD2<Double>) {
            self.startAngle = startAngle
            self.endAngle = endAngle
            self.radius = radius
            self.center = center
        }
    }

    /// A piece of furniture or fixture.
    public struct Object: Sendable, Hashable {
        public var identifier: String
        /// RoomPlan object category as in the JSON (`chair`, `washerDryer`, …).
        public var category: String
        public var confidence: Confidence?
        /// `[width, height, depth]` in metres.
        public var dimensions: SIMD3<Float>
        /// 16 column-major floats; origin at the centre of the box.
        public var transform: [Float]
        /// The object this one belongs to (a chair's table).
        public var parentIdentifier: String?
        public var story: Int?
        /// `attributes` (iOS 17+), e.g. `ChairType: swivel`.
        public var attributes: [String: String]

        public init(
            identifier: String, category: String, confidence: Confidence? = nil, dimensions: SIMD3<Float>,
            transform: [Float], parentIdentifier: String? = nil, story: Int? = nil, attributes: [String: String] = [:]
        ) {
            self.identifier = identifier
            self.category = category
            self.confidence = confidence
            self.dimensions = dimensions
            self.transform = transform
            self.parentIdentifier = parentIdentifier
            self.story = story
            self.attributes = attributes
        }
    }

    /// A labelled section (iOS 17+).
    public struct Section: Sendable, Hashable {
        public var label: String
        /// World-space centre, metres.
        public var center: SIMD3<Float>
        public var story: Int?

        public init(label: String, center: SIMD3<Float>, story: Int? = nil) {
            self.label = label
            self.center = center
            self.story = story
        }
    }
}

extension Matrix4 {
    /// A matrix from 16 column-major Float32 values (exact widening); identity if the count is wrong.
    init(columnMajorFloats f: [Float]) {
        guard f.count == 16 else {
            self = .identity
            return
        }
        self.init(columnMajor: f.map { Double($0) })
    }
}
