/// The options of one conversion that cross from the daemon to its job child: one type, parsed in
/// one place with one set of messages, whether they come from the worker's settings
/// (`TRANSCODE_GLB_COMPRESSION`, `--glb-compression` of `run`), from `convert`'s and `job-exec`'s
/// flags, or from a version's row (`plan_units`, `plan_locale`). The daemon hands them to the
/// child as `arguments`; the child parses those back with `parseFlag`.
///
/// The feature modules' own types (`GLBCompression`, `PlanUnits`, `PlanLocale`, the thumbnail
/// sizes) are not visible here, because the daemon links no feature module: these enums spell
/// the same values, and the pipeline's tests check that they stay equal.
public struct JobOptions: Sendable, Equatable {
    /// How the model's geometry is stored.
    public enum GLBCompression: String, Sendable, CaseIterable { case meshopt, none }
    /// How the model embeds textures.
    public enum TextureFormat: String, Sendable, CaseIterable { case webp, original }
    /// The floor plan's units (the database's `plan_units` values).
    public enum PlanUnits: String, Sendable, CaseIterable { case metric, imperial }
    /// The floor plan's language (the database's `plan_locale` values).
    public enum PlanLocale: String, Sendable, CaseIterable {
        case en
        case zhHans = "zh-Hans"
    }

    /// An image size in pixels, written `WxH` (`SizeText`).
    public struct Size: Sendable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
        public var description: String { "\(width)x\(height)" }
    }

    /// `meshopt` (default) or `none`.
    public var glbCompression = GLBCompression.meshopt
    /// `webp` (default) or `original`.
    public var textureFormat = TextureFormat.webp
    /// The orbit frames' size; nil: the renderer's default (1320 × 990).
    public var orbitSize: Size?
    /// The feed card's (and the hero's) size, the small card half of it; nil: the renderer's default.
    public var cardSize: Size?
    /// The plan's units and language.
    public var planUnits = PlanUnits.metric
    public var planLocale = PlanLocale.en
    /// Whether the child also writes `report.html`.
    public var report = false

    public init() {}

    /// The options that take a value, by their setting's name (the `TRANSCODE_` variable's tail in
    /// lower case with dashes, and `run`'s flag).
    public enum Key: String, Sendable, CaseIterable {
        case glbCompression = "glb-compression", textureFormat = "texture-format", orbitSize = "orbit-size"
        case cardSize = "card-size", planUnits = "plan-units", planLocale = "plan-locale"

        /// The flag of `convert` and `job-exec` (`--units` and `--locale` for the plan's).
        public var flag: String {
            switch self {
            case .planUnits: return "--units"
            case .planLocale: return "--locale"
            default: return "--" + rawValue
            }
        }

        /// What the value must be, for messages.
        public var expected: String {
            func either<E: RawRepresentable & CaseIterable>(_: E.Type) -> String where E.RawValue == String {
                E.allCases.map(\.rawValue).joined(separator: " or ")
            }
            switch self {
            case .glbCompression: return either(GLBCompression.self)
            case .textureFormat: return either(TextureFormat.self)
            case .orbitSize, .cardSize:
                return "WxH or N, \(SizeText.thumbnailSides.lowerBound) to \(SizeText.thumbnailSides.upperBound) pixels a side"
            case .planUnits: return either(PlanUnits.self)
            case .planLocale: return either(PlanLocale.self)
            }
        }
    }

    /// Sets `key` from `text`. `name` is how the user gave it (`--units`, `TRANSCODE_PLAN_UNITS`).
    /// - Throws: `UsageError` "`name` needs `expected`, got '`text`'" (the text cleaned of control
    ///   characters and cut at 40).
    public mutating func set(_ key: Key, to text: String, givenAs name: String) throws(UsageError) {
        func wrong() -> UsageError { Self.problem(name, needs: key.expected, got: text) }
        func value<E: RawRepresentable<String>>(_: E.Type) throws(UsageError) -> E {
            guard let v = E(rawValue: text) else { throw wrong() }
            return v
        }
        switch key {
        case .glbCompression: glbCompression = try value(GLBCompression.self)
        case .textureFormat: textureFormat = try value(TextureFormat.self)
        case .planUnits: planUnits = try value(PlanUnits.self)
        case .planLocale: planLocale = try value(PlanLocale.self)
        case .orbitSize, .cardSize:
            guard let s = SizeText.parse(text) else { throw wrong() }
            if key == .orbitSize { orbitSize = Size(width: s.width, height: s.height) } else { cardSize = Size(width: s.width, height: s.height) }
        }
    }

    /// Parses `flag` when it is one of these options' flags, taking its value from `value`; false
    /// when it is not. Throws `value`'s error, or `set`'s.
    public mutating func parseFlag(_ flag: String, value: () throws -> String) throws -> Bool {
        if flag == "--report" {
            report = true
            return true
        }
        guard let key = Key.allCases.first(where: { $0.flag == flag }) else { return false }
        try set(key, to: try value(), givenAs: flag)
        return true
    }

    /// These options with a version row's `plan_units` and `plan_locale` where they hold one of
    /// the values (the database constrains them too); NULL, or anything else, keeps these.
    public func applyingRow(planUnits: String?, planLocale: String?) -> JobOptions {
        var out = self
        if let units = planUnits.flatMap(PlanUnits.init) { out.planUnits = units }
        if let locale = planLocale.flatMap(PlanLocale.init) { out.planLocale = locale }
        return out
    }

    /// The flags that give `job-exec` these options (sizes only when set).
    public var arguments: [String] {
        var out = ["--glb-compression", glbCompression.rawValue, "--texture-format", textureFormat.rawValue]
        if let orbitSize { out += ["--orbit-size", orbitSize.description] }
        if let cardSize { out += ["--card-size", cardSize.description] }
        out += ["--units", planUnits.rawValue, "--locale", planLocale.rawValue]
        if report { out.append("--report") }
        return out
    }

    /// The one shape of a setting's message: "`name` needs `expected`, got '`text`'".
    public static func problem(_ name: String, needs expected: String, got text: String) -> UsageError {
        UsageError("\(name) needs \(expected), got '\(shown(text))'")
    }

    /// `text` safe to show in a message: control characters as `?`, at most 40 characters.
    public static func shown(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return cleaned.count > 40 ? String(cleaned.prefix(40)) + "…" : cleaned
    }
}
