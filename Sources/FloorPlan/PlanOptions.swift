/// Measurement system of the plan's labels.
public enum PlanUnits: String, Sendable, CaseIterable {
    /// Metres to the centimetre, square metres to 0.1 m².
    case metric
    /// Feet and inches to the quarter inch, square feet to 1 sq ft.
    case imperial
}

/// Language of the plan's words (room names, object names, title).
public enum PlanLocale: String, Sendable, CaseIterable {
    case en
    /// Simplified Chinese.
    case zhHans = "zh-Hans"
}

/// What the floor plan shows and how.
public struct PlanOptions: Sendable, Equatable {
    public var units: PlanUnits
    public var locale: PlanLocale
    /// Drawn thickness of walls, metres, centred on RoomPlan's zero-thickness wall (default 0.10).
    public var wallThickness: Double
    /// Walls at least this long get a dimension line, metres (default 0.5).
    public var minimumDimensionedWall: Double

    public init(units: PlanUnits = .metric, locale: PlanLocale = .en, wallThickness: Double = 0.10,
                minimumDimensionedWall: Double = 0.5) {
        self.units = units
        self.locale = locale
        self.wallThickness = wallThickness.isFinite && wallThickness > 0 && wallThickness < 1 ? wallThickness : 0.10
        self.minimumDimensionedWall = minimumDimensionedWall.isFinite && minimumDimensionedWall >= 0 ? minimumDimensionedWall : 0.5
    }
}
