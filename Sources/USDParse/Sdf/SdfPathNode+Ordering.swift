extension SdfPathNode {
    /// True when `a` spells before `b` (`a.spelled < b.spelled`), without spelling the shared part:
    /// the paths are walked up to the topmost level where their elements differ, and only the
    /// text below that level's parent is compared. A path orders before the paths below it.
    static func precedes(_ a: SdfPathNode, _ b: SdfPathNode) -> Bool {
        if a === b { return false }
        var x = a, y = b
        while x.depth > y.depth, let up = x.parent { x = up }
        while y.depth > x.depth, let up = y.parent { y = up }
        var diverging: (SdfPathNode, SdfPathNode)?
        while x !== y {
            if x.kind != y.kind || x.element != y.element { diverging = (x, y) }
            guard let px = x.parent, let py = y.parent else { break }
            x = px
            y = py
        }
        guard let (dx, dy) = diverging else { return a.depth < b.depth }
        return a.spelled(below: dx.parent) < b.spelled(below: dy.parent)
    }
}
