import SceneModel

extension SheetDrawing {
    /// Widest door drawn with one leaf, and widest drawn with two, metres.
    static let maxSingleLeaf = 1.2
    static let maxDoubleLeaf = 2.4

    /// A door's leaves and swing arcs between its jambs `a` and `b` (world, on the wall line),
    /// into the room along `normal`. RoomPlan does not say where the hinge is:
    /// - up to `maxSingleLeaf` wide, one leaf, hinged at the door's own first end (its local −X
    ///   side) unless its swing would cross an object's footprint: then the first of the hinge at
    ///   the other end, and, for a door into another room of a home, the swing into that room,
    ///   whose swing crosses none (else the one crossing least);
    /// - up to `maxDoubleLeaf`, two leaves of half the width hinged at the two jambs, swinging to
    ///   the side whose swings cross fewer footprints;
    /// - wider, an open passage: the line between the jambs, no leaf (a leaf that wide sweeps over
    ///   the room's furniture and name and is not how such a door is built).
    mutating func drawLeaves(_ o: PlanSegment, a: SIMD2<Double>, b: SIMD2<Double>, normal n: SIMD2<Double>) {
        let width = Polygon2D.distance(a, b)
        if width > Self.maxDoubleLeaf {
            add(.line(p(a), p(b), width: 0.18, colour: PlanColours.opening, layer: .doors))
            return
        }
        if width > Self.maxSingleLeaf {
            let m = (a + b) / 2
            let side = swingHits(hinge: a, jamb: m, normal: n) + swingHits(hinge: b, jamb: m, normal: n)
                <= swingHits(hinge: a, jamb: m, normal: -n) + swingHits(hinge: b, jamb: m, normal: -n) ? n : -n
            leaf(hinge: a, jamb: m, normal: side)
            leaf(hinge: b, jamb: m, normal: side)
            return
        }
        let ownFirst = ((o.a - a) * (o.a - a)).sum() <= ((o.a - b) * (o.a - b)).sum()
        let hinge = ownFirst ? a : b, jamb = ownFirst ? b : a
        var choices = [(hinge, jamb, n), (jamb, hinge, n)]
        // The other way only into another room of a home (beyond a lone room's walls is unknown).
        let beyond = (a + b) / 2 - n * 0.3
        if geometry.roomFloors.values.contains(where: { $0.contains { RoomPartition.contains($0, beyond) } }) {
            choices += [(hinge, jamb, -n), (jamb, hinge, -n)]
        }
        let hits = choices.map { swingHits(hinge: $0.0, jamb: $0.1, normal: $0.2) }
        let best = hits.firstIndex(of: 0) ?? hits.indices.min { hits[$0] < hits[$1] }!
        leaf(hinge: choices[best].0, jamb: choices[best].1, normal: choices[best].2)
    }

    /// How many of 20 points spread over a leaf's quarter circle lie on an object's footprint.
    func swingHits(hinge: SIMD2<Double>, jamb: SIMD2<Double>, normal: SIMD2<Double>) -> Int {
        let r = jamb - hinge
        var hits = 0
        for f in [0.35, 0.6, 0.8, 0.95] {
            for k in 0..<5 {
                let t = (Double(k) + 0.5) / 5 * Double.pi / 2
                let q = hinge + (r * cosine(t) + normal * (Polygon2D.distance(hinge, jamb) * sine(t))) * f
                if geometry.objects(story: sheet.story).contains(where: { Self.covers($0, q) }) { hits += 1 }
            }
        }
        return hits
    }
}
