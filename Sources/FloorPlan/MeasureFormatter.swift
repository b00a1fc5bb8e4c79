/// Lengths and areas as the plan writes them. Metric: metres with two decimals (to the
/// centimetre), areas with one decimal. Imperial: feet and inches rounded to the nearest quarter
/// inch (`12′ 3¼″`), areas to the nearest square foot. Rounding is half away from zero; the
/// manifest keeps the unrounded values. A value that is not finite, or whose size is
/// `maxMagnitude` or more (metres or square metres; no room is that large), prints as `–`.
public struct MeasureFormatter: Sendable {
    public let units: PlanUnits
    public static let metresPerFoot = 0.3048
    /// The largest length or area written as a number: 10¹² (metres or square metres). Its
    /// quarter inches and tenths of a square metre still fit exactly in a Double's 53 bits.
    public static let maxMagnitude = 1e12

    public init(units: PlanUnits) { self.units = units }

    /// A length in metres as text.
    public func length(_ metres: Double) -> String {
        guard abs(metres) < Self.maxMagnitude else { return "–" }
        switch units {
        case .metric:
            let cm = (metres * 100).rounded(.toNearestOrAwayFromZero)
            return Self.fixed(cm / 100, decimals: 2) + " m"
        case .imperial:
            let quarters = Int((abs(metres) / 0.0254 * 4).rounded(.toNearestOrAwayFromZero))
            let feet = quarters / 48, rest = quarters % 48
            let inches = rest / 4, fraction = ["", "¼", "½", "¾"][rest % 4]
            let sign = metres < 0 && quarters > 0 ? "-" : ""
            if feet == 0 { return "\(sign)\(inches == 0 && !fraction.isEmpty ? "" : String(inches))\(fraction)″" }
            return "\(sign)\(feet)′ \(inches)\(fraction)″"
        }
    }

    /// An area in square metres as text.
    public func area(_ squareMetres: Double) -> String {
        guard abs(squareMetres) < Self.maxMagnitude else { return "–" }
        switch units {
        case .metric:
            return Self.fixed((squareMetres * 10).rounded(.toNearestOrAwayFromZero) / 10, decimals: 1) + " m²"
        case .imperial:
            let sqft = (squareMetres / (Self.metresPerFoot * Self.metresPerFoot)).rounded(.toNearestOrAwayFromZero)
            return "\(Int(sqft)) sq ft"
        }
    }

    /// The scale bar's length in metres and its label: 1 m (or 2 m, 5 m on large plans), or 1 ft,
    /// 5 ft, 10 ft.
    public func scaleBar(maxMetres: Double) -> (metres: Double, label: String) {
        switch units {
        case .metric:
            let m = [5.0, 2, 1, 0.5].first { $0 <= maxMetres } ?? 0.5
            return (m, m < 1 ? "50 cm" : "\(Int(m)) m")
        case .imperial:
            let ft = [10.0, 5, 2, 1].first { $0 * Self.metresPerFoot <= maxMetres } ?? 1
            return (ft * Self.metresPerFoot, "\(Int(ft)) ft")
        }
    }

    /// `value` with exactly `decimals` digits after the point (no locale, no exponent); `–` when
    /// the scaled value does not fit an `Int` exactly (callers stay below `maxMagnitude`).
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        guard let n = Int(exactly: (abs(value) * scale).rounded(.toNearestOrAwayFromZero)), n < 1 << 53 else { return "–" }
        let whole = n / Int(scale), frac = n % Int(scale)
        var f = String(frac)
        while f.count < decimals { f = "0" + f }
        return (value < 0 && n > 0 ? "-" : "") + String(whole) + (decimals > 0 ? "." + f : "")
    }
}
