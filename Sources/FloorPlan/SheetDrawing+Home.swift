import SceneModel

extension SheetDrawing {
    /// A home's dimensions: the home's overall width and depth along the paper's axes, outside
    /// its walls (below and to the right, as a single room's). Each room states its own width and
    /// depth in its label (`roomLabelLayouts`) instead of dimension lines across its furniture.
    mutating func drawHomeDimensions(_ rooms: [RoomFigures]) {
        let ax = sheet.worldVector(SIMD2(1, 0)), ay = sheet.worldVector(SIMD2(0, 1))
        func world(_ x: Double, _ y: Double) -> SIMD2<Double> { ax * x + ay * y }
        func extent(_ pts: [SIMD2<Double>]) -> (x0: Double, x1: Double, y0: Double, y1: Double)? {
            let xs = pts.map { ($0 * ax).sum() }, ys = pts.map { ($0 * ay).sum() }
            guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return nil }
            return (x0, x1, y0, y1)
        }
        let walls = geometry.drawnWalls(story: sheet.story)
        let outer = walls.map { $0.thickness ?? options.wallThickness }.max() ?? options.wallThickness
        let wallPoints = walls.flatMap { w -> [SIMD2<Double>] in
            let h = (w.thickness ?? options.wallThickness) / 2, u = w.direction, n = SIMD2(-u.y, u.x)
            return [w.a - n * h, w.a + n * h, w.b - n * h, w.b + n * h]
        }
        if let e = extent(wallPoints + rooms.flatMap(\.polygon)), e.x1 - e.x0 > 0.01, e.y1 - e.y0 > 0.01 {
            dimension(from: world(e.x0, e.y1), to: world(e.x1, e.y1), outward: ay, offset: outer + 0.6, start: 0.12, metres: e.x1 - e.x0)
            dimension(from: world(e.x1, e.y0), to: world(e.x1, e.y1), outward: ax, offset: outer + 0.6, start: 0.12, metres: e.y1 - e.y0)
        }
    }

    /// Whether world point `q` lies on footprint `o`.
    static func covers(_ o: PlanFootprint, _ q: SIMD2<Double>) -> Bool {
        let d = q - o.centre, v = SIMD2(-o.axis.y, o.axis.x)
        return abs((d * o.axis).sum()) <= o.halfWidth && abs((d * v).sum()) <= o.halfDepth
    }

    /// The pieces (`LabelBox`) of the walls, door leaves and swing arcs drawn so far whose centre
    /// lies within `reach` mm of `anchor` (arcs as eight chords), at most `maxStrokes`.
    func drawnStrokes(near anchor: SIMD2<Double>, reach: Double) -> [LabelBox] {
        var out: [LabelBox] = []
        for item in sheet.items {
            switch item {
            case .polygon(let corners, _, _, _, .walls):
                out += LabelBox.pieces(ofRectangle: corners)
            case .line(let a, let b, let width, _, .doors):
                out += LabelBox.pieces(ofSegment: a, b, width: width)
            case .arc(let c, let r, let start, let end, let width, _, .doors):
                for k in 0..<8 {
                    let t0 = start + (end - start) * Double(k) / 8, t1 = start + (end - start) * Double(k + 1) / 8
                    out += LabelBox.pieces(ofSegment: c + SIMD2(cosine(t0), sine(t0)) * r, c + SIMD2(cosine(t1), sine(t1)) * r, width: width)
                }
            default:
                continue
            }
        }
        let near = out.filter { b in abs(b.centre.x - anchor.x) < reach + b.half.x * 2 && abs(b.centre.y - anchor.y) < reach + b.half.x * 2 }
        return Array(near.prefix(Self.maxStrokes))
    }

    /// Most drawn pieces a room label is tested against.
    static let maxStrokes = 2_000
}
