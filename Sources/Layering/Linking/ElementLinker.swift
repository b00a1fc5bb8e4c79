import SceneModel

/// Links JSON elements to USD elements: by UUID (case-insensitive), then — for USD elements
/// without a UUID — by transform and dimensions within `LayeringOptions` tolerances:
/// - plan distance between origins ≤ `planTolerance`, vertical ≤ `verticalTolerance`;
/// - rotation angle ≤ `rotationToleranceDegrees`;
/// - width and height (and depth for objects) within `dimensionTolerance` +
///   `relativeDimensionTolerance` × the larger value, walls allowed `meshWallExtraWidth` more width;
/// - categories equal (USD geometry without a category matches any).
/// Candidate pairs are taken cheapest first (plan distance + ½ vertical + ½ angle in radians), ties
/// by file order, so the result is deterministic. Candidates come from a plan grid of
/// `planTolerance` cells; at most `maxComparisons` pairs are compared (hostile input with thousands
/// of co-located elements), after which the remaining JSON elements stay unlinked.
struct ElementLinker {
    /// `usdForJSON[j]` is the USD element linked to JSON element `j`.
    private(set) var usdForJSON: [Int?]
    private(set) var jsonForUSD: [Int?]
    private(set) var linkedByTransform = 0
    static let maxComparisons = 4_000_000

    init(json: [JSONElement], usd: [USDElement], options: LayeringOptions) {
        usdForJSON = [Int?](repeating: nil, count: json.count)
        jsonForUSD = [Int?](repeating: nil, count: usd.count)
        var byUUID: [String: Int] = [:]
        for (u, e) in usd.enumerated() {
            if let id = e.uuid, byUUID[id] == nil { byUUID[id] = u }
        }
        for (j, e) in json.enumerated() {
            guard let u = byUUID[e.identifier.uppercased()], jsonForUSD[u] == nil else { continue }
            usdForJSON[j] = u
            jsonForUSD[u] = j
        }
        linkByTransform(json: json, usd: usd, options: options)
    }

    private struct Cell: Hashable {
        let x: Int64
        let z: Int64
    }

    private mutating func linkByTransform(json: [JSONElement], usd: [USDElement], options: LayeringOptions) {
        let cellSize = max(options.planTolerance, 0.01)
        func cell(_ p: SIMD3<Double>) -> Cell? {
            let x = (p.x / cellSize).rounded(.down), z = (p.z / cellSize).rounded(.down)
            guard x.isFinite, z.isFinite, abs(x) < 1e15, abs(z) < 1e15 else { return nil }
            return Cell(x: Int64(x), z: Int64(z))
        }
        var grid: [Cell: [Int]] = [:]
        for (u, e) in usd.enumerated() where e.uuid == nil && jsonForUSD[u] == nil {
            if let c = cell(e.frame.translation) { grid[c, default: []].append(u) }
        }
        guard !grid.isEmpty else { return }
        let maxAngle = options.rotationToleranceDegrees * Double.pi / 180
        var pairs: [(cost: Double, j: Int, u: Int)] = []
        var comparisons = 0
        for (j, je) in json.enumerated() where usdForJSON[j] == nil && comparisons < Self.maxComparisons {
            let t = je.transform
            guard let c = cell(t.translation) else { continue }
            for dx in -1...1 as ClosedRange<Int64> {
                for dz in -1...1 as ClosedRange<Int64> {
                    for u in grid[Cell(x: c.x &+ dx, z: c.z &+ dz)] ?? [] {
                        comparisons += 1
                        let ue = usd[u]
                        if let uc = ue.category, uc != je.category { continue }
                        let f = ue.frame.removingScale
                        let d = t.translation - f.translation
                        let plan = (d.x * d.x + d.z * d.z).squareRoot()
                        guard plan <= options.planTolerance, abs(d.y) <= options.verticalTolerance else { continue }
                        let angle = t.rotationAngle(to: f)
                        guard angle <= maxAngle else { continue }
                        guard Self.dimensionsAgree(json: je, usd: ue.dimensions, options: options) else { continue }
                        pairs.append((plan + abs(d.y) * 0.5 + angle * 0.5, j, u))
                    }
                }
            }
        }
        pairs.sort { ($0.cost, $0.j, $0.u) < ($1.cost, $1.j, $1.u) }
        for p in pairs where usdForJSON[p.j] == nil && jsonForUSD[p.u] == nil {
            usdForJSON[p.j] = p.u
            jsonForUSD[p.u] = p.j
            linkedByTransform += 1
        }
    }

    static func dimensionsAgree(json: JSONElement, usd: SIMD3<Double>, options: LayeringOptions) -> Bool {
        func close(_ a: Double, _ b: Double, extra: Double = 0) -> Bool {
            abs(a - b) <= options.dimensionTolerance + options.relativeDimensionTolerance * max(abs(a), abs(b)) + extra
        }
        let j = json.dimensions
        let wallExtra = json.category == .wall ? options.meshWallExtraWidth : 0
        guard close(j.x, usd.x, extra: wallExtra), close(j.y, usd.y) else { return false }
        if !json.isSurface { return close(j.z, usd.z) }
        return true
    }
}
