import SceneModel

/// Maps the parsed JSON tree onto `CapturedRoom`, collecting warnings.
struct RoomJSONMapper {
    let limits: CapturedRoomDecoder.Limits
    var warnings: [SceneWarning] = []
    private var elements = 0

    init(limits: CapturedRoomDecoder.Limits) { self.limits = limits }

    mutating func warn(_ code: String, _ path: String, _ message: String) {
        warnings.append(SceneWarning(code: code, message: "\(path): \(message)"))
    }

    static let listKeys = ["walls", "doors", "windows", "openings", "floors", "objects"]

    /// A room, or a structure when `root` is the document and has `rooms` (a room's own `rooms`
    /// is ignored with a warning: rooms never nest).
    mutating func room(_ root: JSONField, nested: Bool = false) throws -> CapturedRoom {
        let members = try root.object()
        guard Self.listKeys.contains(where: { k in members.contains { $0.key == k } }) else {
            throw root.invalid("not a CapturedRoom: none of walls, doors, windows, openings, floors, objects is present")
        }
        var room = CapturedRoom()
        room.version = try root.member("version")?.int()
        room.story = try root.member("story")?.int()
        if case .skipped(let n)? = root.value.member("coreModel") { room.coreModelLength = n }
        room.walls = try surfaces(root, "walls", .wall)
        room.doors = try surfaces(root, "doors", .door(isOpen: nil))
        room.windows = try surfaces(root, "windows", .window)
        room.openings = try surfaces(root, "openings", .opening)
        room.floors = try surfaces(root, "floors", .floor)
        if let list = root.member("objects") {
            let items = try list.array(max: remainingElements(), limitName: "maxElements")
            elements += items.count
            room.objects = try items.enumerated().map { try object(list.item($0.offset, $0.element)) }
        }
        if let list = root.member("sections") {
            let items = try list.array(max: limits.maxSections, limitName: "maxSections")
            room.sections = try items.enumerated().map { try section(list.item($0.offset, $0.element)) }
        }
        if let t = root.member("referenceOriginTransform") { room.referenceOriginTransform = try transform(t) }
        if let list = root.member("rooms") {
            if nested {
                warn(LayeringWarningCode.jsonValueIgnored, list.path, "rooms inside a room are ignored")
            } else {
                let items = try list.array(max: limits.maxRooms, limitName: "maxRooms")
                room.rooms = try items.enumerated().map { try self.room(list.item($0.offset, $0.element), nested: true) }
            }
        }
        return room
    }

    private func remainingElements() -> Int { max(limits.maxElements - elements, 0) }

    private mutating func surfaces(
        _ root: JSONField, _ key: String, _ category: CapturedRoom.Surface.Category
    ) throws -> [CapturedRoom.Surface] {
        guard let list = root.member(key) else { return [] }
        let items = try list.array(max: remainingElements(), limitName: "maxElements")
        elements += items.count
        var out: [CapturedRoom.Surface] = []
        out.reserveCapacity(items.count)
        for (i, v) in items.enumerated() { out.append(try surface(list.item(i, v), listCategory: category)) }
        return out
    }

    private mutating func surface(_ f: JSONField, listCategory: CapturedRoom.Surface.Category) throws -> CapturedRoom.Surface {
        _ = try f.object()
        var category = listCategory
        if let c = f.member("category") {
            let (name, payload) = try c.enumCase()
            if name != listCategory.name {
                warn(LayeringWarningCode.jsonValueIgnored, c.path,
                     "category \(name) in the \(listCategory.name) list; the list decides")
            } else if case .door = listCategory {
                var isOpen: Bool?
                if let p = payload, case .object = p.value, let o = p.member("isOpen") {
                    guard case .bool(let b) = o.value else { throw o.invalid("expected a boolean, found \(o.value.typeName)") }
                    isOpen = b
                }
                category = .door(isOpen: isOpen)
            }
        }
        var s = CapturedRoom.Surface(
            identifier: try required(f, "identifier").string(), category: category,
            confidence: try confidence(f.member("confidence")), dimensions: try dimensions(required(f, "dimensions")),
            transform: try transform(required(f, "transform")))
        s.parentIdentifier = try f.member("parentIdentifier")?.string()
        s.story = try f.member("story")?.int()
        if let corners = f.member("polygonCorners") {
            let items = try corners.array(max: limits.maxPolygonCorners, limitName: "maxPolygonCorners")
            s.polygonCorners = try items.enumerated().map { try point(corners.item($0.offset, $0.element)) }
        }
        if let edges = f.member("completedEdges") {
            let items = try edges.array(max: limits.maxCompletedEdges, limitName: "maxCompletedEdges")
            for (i, v) in items.enumerated() {
                let e = edges.item(i, v)
                if let (name, _) = try? e.enumCase() {
                    s.completedEdges.append(name)
                } else {
                    warn(LayeringWarningCode.jsonValueIgnored, e.path, "edge encoded as \(v.typeName); dropped")
                }
            }
        }
        if let c = f.member("curve") { s.curve = curve(c) }
        return s
    }

    private mutating func object(_ f: JSONField) throws -> CapturedRoom.Object {
        _ = try f.object()
        let c = try required(f, "category")
        let category = try c.enumCase().name
        if !ElementCategory.objects.contains(ElementCategory(category)) {
            warn(LayeringWarningCode.unknownCategory, c.path, "object category \(category) is not one of RoomPlan's 16")
        }
        var o = CapturedRoom.Object(
            identifier: try required(f, "identifier").string(), category: category,
            confidence: try confidence(f.member("confidence")), dimensions: try dimensions(required(f, "dimensions")),
            transform: try transform(required(f, "transform")))
        o.parentIdentifier = try f.member("parentIdentifier")?.string()
        o.story = try f.member("story")?.int()
        if let a = f.member("attributes") {
            let members = try a.object()
            guard members.count <= limits.maxAttributes else {
                throw LayeringError.limit(
                    "\(members.count) attributes; the limit is \(limits.maxAttributes) (maxAttributes)", at: a.path)
            }
            for m in members {
                switch m.value {
                case .string(let s): o.attributes[m.key] = s
                case .number(let n): o.attributes[m.key] = n
                case .bool(let b): o.attributes[m.key] = b ? "true" : "false"
                case .object, .array:
                    // An enum-like single-key object keeps its case name.
                    if let (name, _) = try? JSONField(value: m.value, path: a.path).enumCase() {
                        o.attributes[m.key] = name
                    } else {
                        warn(LayeringWarningCode.jsonValueIgnored, a.path, "attribute \(m.key) is \(m.value.typeName); dropped")
                    }
                case .null, .skipped: break
                }
            }
        }
        return o
    }

    private mutating func section(_ f: JSONField) throws -> CapturedRoom.Section {
        _ = try f.object()
        let label = try f.member("label").map { try $0.enumCase().name } ?? "unidentified"
        let center = try point(required(f, "center"))
        return CapturedRoom.Section(label: label, center: center, story: try f.member("story")?.int())
    }

    private func required(_ f: JSONField, _ key: String) throws -> JSONField {
        guard let m = f.member(key) else {
            throw LayeringError.invalid("missing required key \(key)", at: f.path == "$" ? key : f.path + "." + key)
        }
        return m
    }

    private mutating func confidence(_ f: JSONField?) throws -> CapturedRoom.Confidence? {
        guard let f else { return nil }
        let name = try f.enumCase().name
        if let c = CapturedRoom.Confidence(rawValue: name) { return c }
        warn(LayeringWarningCode.jsonValueIgnored, f.path, "unknown confidence \(name); using unknown")
        return .unknown
    }

    /// `[w, h]` or `[w, h, d]`.
    private func dimensions(_ f: JSONField) throws -> SIMD3<Float> {
        let items = try f.array(max: 3, limitName: "3 dimensions")
        guard items.count >= 2 else { throw f.invalid("expected 2 or 3 dimensions, found \(items.count)") }
        let v = try items.enumerated().map { try f.item($0.offset, $0.element).float() }
        return SIMD3(v[0], v[1], v.count > 2 ? v[2] : 0)
    }

    /// `[x, y]` or `[x, y, z]`.
    private func point(_ f: JSONField) throws -> SIMD3<Float> {
        let items = try f.array(max: 3, limitName: "3 coordinates")
        guard items.count >= 2 else { throw f.invalid("expected 2 or 3 coordinates, found \(items.count)") }
        let v = try items.enumerated().map { try f.item($0.offset, $0.element).float() }
        return SIMD3(v[0], v[1], v.count > 2 ? v[2] : 0)
    }

    /// 16 finite floats, column-major; also 4 columns of 4.
    func transform(_ f: JSONField) throws -> [Float] {
        guard case .array(let items) = f.value else { throw f.invalid("expected 16 numbers, found \(f.value.typeName)") }
        if items.count == 4, items.allSatisfy({ if case .array = $0 { return true } else { return false } }) {
            var out: [Float] = []
            for (c, col) in items.enumerated() {
                let cf = f.item(c, col)
                let values = try cf.array(max: 4, limitName: "4 rows")
                guard values.count == 4 else { throw cf.invalid("expected a column of 4 numbers, found \(values.count)") }
                for (r, v) in values.enumerated() { out.append(try cf.item(r, v).float()) }
            }
            return out
        }
        guard items.count == 16 else { throw f.invalid("expected 16 numbers (column-major 4×4), found \(items.count)") }
        return try items.enumerated().map { try f.item($0.offset, $0.element).float() }
    }

    // MARK: Curve (encoding never observed: accept the plausible shapes, warn on others)

    private mutating func curve(_ f: JSONField) -> CapturedRoom.Curve? {
        guard case .object = f.value,
              let start = f.member("startAngle").flatMap(angle), let end = f.member("endAngle").flatMap(angle),
              let radius = f.member("radius").flatMap(length), radius > 0, radius <= 10_000,
              let center = f.member("center").flatMap(center2D), abs(center.x) <= 1e6, abs(center.y) <= 1e6,
              abs(start) <= 1e3, abs(end) <= 1e3
        else {
            warn(LayeringWarningCode.jsonValueIgnored, f.path, "curve encoding not understood; the wall stays straight")
            return nil
        }
        return CapturedRoom.Curve(startAngle: start, endAngle: end, radius: radius, center: center)
    }

    /// Radians from a number or a Foundation `Measurement<UnitAngle>` object.
    private func angle(_ f: JSONField) -> Double? {
        if let d = try? f.double() { return d }
        guard let value = f.member("value").flatMap({ try? $0.double() }) else { return nil }
        let unit = f.member("unit")
        if let conv = unit?.member("converter"), let k = conv.member("coefficient").flatMap({ try? $0.double() }) {
            let c = conv.member("constant").flatMap { try? $0.double() } ?? 0
            return (value * k + c) * Double.pi / 180  // UnitAngle's base unit is degrees
        }
        let symbol = (try? unit?.string()) ?? unit?.member("symbol").flatMap { try? $0.string() }
        switch symbol {
        case nil, "rad", "radians": return value
        case "°", "deg", "degrees": return value * Double.pi / 180
        case "rev", "revolutions": return value * 2 * Double.pi
        default: return nil
        }
    }

    /// Metres from a number or a `Measurement<UnitLength>` object.
    private func length(_ f: JSONField) -> Double? {
        if let d = try? f.double() { return d }
        guard let value = f.member("value").flatMap({ try? $0.double() }) else { return nil }
        if let k = f.member("unit")?.member("converter")?.member("coefficient").flatMap({ try? $0.double() }) {
            return value * k
        }
        return value
    }

    /// Local (x, z) from `[x, z]`, `[x, y, z]`, `{x, y}` or `{x, y, z}`.
    private func center2D(_ f: JSONField) -> SIMD2<Double>? {
        switch f.value {
        case .array(let a):
            let v = a.compactMap { v -> Double? in
                if case .number(let t) = v, let d = Double(t), d.isFinite { return d }
                return nil
            }
            guard v.count == a.count else { return nil }
            if v.count == 2 { return SIMD2(v[0], v[1]) }
            if v.count == 3 { return SIMD2(v[0], v[2]) }
            return nil
        case .object:
            guard let x = f.member("x").flatMap({ try? $0.double() }), let y = f.member("y").flatMap({ try? $0.double() })
            else { return nil }
            if let z = f.member("z").flatMap({ try? $0.double() }) { return SIMD2(x, z) }
            return SIMD2(x, y)
        default:
            return nil
        }
    }
}
