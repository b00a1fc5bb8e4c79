import SceneModel

/// The floor plan as the manifest records it: the files written (none for an input that is not a
/// room, with `note` saying why), how they were drawn, and the measured rooms.
public struct PlanRecord: Hashable, Sendable {
    /// One written plan file.
    public struct File: Hashable, Sendable {
        /// The media type of each plan file, as stored and as the manifest records it.
        public static let mediaTypes = ["plan.svg": "image/svg+xml", "plan.pdf": "application/pdf", "plan.dxf": "image/vnd.dxf"]

        /// Relative to the manifest: `plan.svg`, `plan.pdf` or `plan.dxf`.
        public var path: String
        public var mediaType: String
        public var bytes: Int
        /// 64 hex digits.
        public var sha256: String
        public init(path: String, mediaType: String, bytes: Int, sha256: String) {
            self.path = path
            self.mediaType = mediaType
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    public var files: [File]
    /// `metric` or `imperial`.
    public var units: String
    /// `en` or `zh-Hans`.
    public var locale: String
    /// Drawn wall thickness, metres.
    public var wallThickness: Double
    /// Sheets (PDF pages, SVG groups): one per story with walls, then a home's schedule pages.
    public var sheets: Int
    /// Why no plan was drawn; nil when files were written.
    public var note: String?
    public var rooms: [RoomFigures]
    /// The door and window schedule.
    public var openings: [OpeningFigures]

    public init(files: [File], units: String, locale: String, wallThickness: Double, sheets: Int, note: String?, rooms: [RoomFigures],
                openings: [OpeningFigures] = []) {
        self.files = files
        self.units = units
        self.locale = locale
        self.wallThickness = wallThickness
        self.sheets = sheets
        self.note = note
        self.rooms = rooms
        self.openings = openings
    }
}
