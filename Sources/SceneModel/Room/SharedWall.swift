/// One wall of a home that two neighbouring rooms each scanned from their own side: two RoomPlan
/// walls (each on the face its room sees), parallel and overlapping along their length a few
/// centimetres apart. The plan draws them as one wall filling the gap, the metrics count them
/// once; both identifiers are kept.
public struct SharedWall: Hashable, Sendable {
    /// The two walls' identifiers, the earlier room's first.
    public var identifiers: [String]
    /// The rooms of the two walls (names as `StructureRoom.name`), in the same order.
    public var rooms: [String]
    /// The story both walls are on.
    public var story: Int
    /// The wall's centre line over the stretch the two faces share (world XZ, metres): halfway
    /// between the faces.
    public var from: SIMD2<Double>
    public var to: SIMD2<Double>
    /// The measured distance between the two faces, metres (mean over the shared stretch).
    public var gap: Double
    /// The wall's thickness: `gap` when at least `SharedWall.minimumMeasured`, else the default.
    public var thickness: Double

    /// Length of the shared stretch, metres.
    public var length: Double { Polygon2D.distance(from, to) }

    /// A thinner gap than this (metres) is scanning noise rather than a wall: the default
    /// thickness is used, centred between the faces.
    public static let minimumMeasured = 0.05
    /// The thickness of a shared wall whose gap is not measured (`minimumMeasured`), metres.
    public static let defaultThickness = 0.10
}

/// Finds the walls two rooms scanned from both sides (`SharedWall`). Two walls are one when they
/// are in different rooms of one story, within `maxAngle` of parallel, their faces at most
/// `maxGap` apart and sharing at least `minOverlap` of their length. A wall may meet several
/// walls of the rooms beside it (a living room wall behind a hallway and a bedroom): each pair is
/// one shared wall over the stretch the two share.
public enum SharedWallFinder {
    /// One face of a wall: its line in world XZ and its room's index in the structure.
    public struct Face: Sendable {
        /// The wall's identifier.
        public var identifier: String
        /// Index of the wall's room in the home (its rooms in input order).
        public var room: Int
        public var story: Int
        /// The ends of the wall's line, world XZ (metres).
        public var a: SIMD2<Double>
        public var b: SIMD2<Double>

        public init(identifier: String, room: Int, story: Int, a: SIMD2<Double>, b: SIMD2<Double>) {
            self.identifier = identifier
            self.room = room
            self.story = story
            self.a = a
            self.b = b
        }
    }

    /// Faces further apart than this are two walls (metres).
    public static let maxGap = 0.35
    /// Most angle between the two faces, radians (5°).
    public static let maxAngle = 5 * Double.pi / 180
    /// Least shared stretch, metres.
    public static let minOverlap = 0.30
    /// Most walls compared (the search is quadratic); a home has tens.
    public static let maxWalls = 2_000

    /// The shared walls among `faces`, each with the wall of the earlier room first, ordered by
    /// their rooms, then identifiers; `roomNames[i]` names room `i`. Above `maxWalls` faces, none.
    public static func find(_ faces: [Face], roomNames: [String], defaultThickness: Double = SharedWall.defaultThickness)
        -> [SharedWall]
    {
        guard faces.count <= maxWalls else { return [] }
        var found: [(Int, Int, SharedWall)] = []
        let cosLimit = (1 - maxAngle * maxAngle / 2)
        for i in faces.indices {
            let p = faces[i]
            let lp = Polygon2D.distance(p.a, p.b)
            guard lp > 1e-6 else { continue }
            let u = (p.b - p.a) / lp, n = SIMD2(-u.y, u.x)
            for j in faces.indices where j > i && faces[j].room != p.room && faces[j].story == p.story {
                let q = faces[j]
                let lq = Polygon2D.distance(q.a, q.b)
                guard lq > 1e-6, abs(((q.b - q.a) / lq * u).sum()) >= cosLimit else { continue }
                // Where q's ends fall along p, and how far from p's line.
                let ta = ((q.a - p.a) * u).sum(), tb = ((q.b - p.a) * u).sum()
                let lo = max(0, min(ta, tb)), hi = min(lp, max(ta, tb))
                guard hi - lo >= minOverlap else { continue }
                // Distance of q's line from p's at the two ends of the shared stretch.
                func across(_ t: Double) -> Double {
                    let s = (t - ta) / (tb - ta)
                    return (((q.a + (q.b - q.a) * s) - p.a) * n).sum()
                }
                let d0 = across(lo), d1 = across(hi)
                let gap = (abs(d0) + abs(d1)) / 2
                guard abs(d0) <= maxGap, abs(d1) <= maxGap, d0 * d1 >= 0 else { continue }
                let from = p.a + u * lo + n * (d0 / 2), to = p.a + u * hi + n * (d1 / 2)
                let pair = p.room < q.room ? [p, q] : [q, p]
                found.append((pair[0].room, pair[1].room, SharedWall(
                    identifiers: pair.map(\.identifier),
                    rooms: pair.map { roomNames.indices.contains($0.room) ? roomNames[$0.room] : "" },
                    story: p.story, from: from, to: to, gap: gap,
                    thickness: gap >= SharedWall.minimumMeasured ? gap : defaultThickness)))
            }
        }
        return found.sorted { ($0.0, $0.1, $0.2.identifiers[0], $0.2.identifiers[1]) < ($1.0, $1.1, $1.2.identifiers[0], $1.2.identifiers[1]) }
            .map(\.2)
    }

    /// How many walls `walls` identifiers make once each shared wall is counted once: the walls
    /// joined by shared walls form groups, each counted as one.
    public static func wallCount(_ identifiers: [String], shared: [SharedWall]) -> Int {
        var parent: [String: String] = [:]
        for id in identifiers { parent[id] = id }
        func root(_ x: String) -> String {
            var r = x
            while let p = parent[r], p != r { r = p }
            return r
        }
        for s in shared where s.identifiers.count == 2 && parent[s.identifiers[0]] != nil && parent[s.identifiers[1]] != nil {
            let a = root(s.identifiers[0]), b = root(s.identifiers[1])
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        return Set(identifiers.map(root)).count
    }
}
