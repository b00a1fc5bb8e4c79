import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws the top-down floor plan of a room from its element semantics (category, transform,
/// extent, floor polygon): light floor, objects filled in their category colour and outlined,
/// thick dark walls, doors as gaps with their leaf and swing arc (a quarter circle of the door
/// width around the hinge, swinging into the room), windows as light-blue lines across the
/// wall, openings as gaps with jamb ticks. The result is a canvas rendered top-down without
/// lighting.
struct PlanRenderer {
    let analysis: RoomAnalysis
    let elements: [RoomElement]
    let scene: RenderScene

    /// Builds the drawing for a plan camera of `width` × `height` pixels.
    func canvas(camera: ThumbnailCamera, width: Int, height: Int) -> PlanCanvas {
        let half = camera.orthoHalfExtent ?? 1
        let mpp = 2 * half / Double(max(height, 1))
        var c = PlanCanvas(metresPerPixel: mpp)
        let floorColor = ColorSpace.linear(hex: Palette.planFloor)
        let wallColor = ColorSpace.linear(hex: Palette.planWall)
        let centre = SIMD2(analysis.centre.x, analysis.centre.z)
        func p2(_ p: SIMD3<Double>) -> SIMD2<Double> { SIMD2(p.x, p.z) }

        // 1. Floors.
        var drewFloor = false
        for s in analysis.shapes where s.category == .floor {
            let el = elements[s.element]
            if el.polygonCorners.count >= 3 {
                let m = el.transform
                c.polygon(el.polygonCorners.map { p2(m.transformPoint($0)) }, floorColor)
                drewFloor = true
            } else if !analysis.instancesOfElement[s.element].isEmpty {
                for i in analysis.instancesOfElement[s.element] {
                    let inst = scene.instances[i]
                    for t in inst.firstTriangle..<(inst.firstTriangle + inst.triangleCount)
                    where scene.triMaterial[t] != RenderScene.invalidMaterial {
                        let v = (0..<3).map { k -> SIMD2<Double> in
                            let p = load3(scene.positions, Int(scene.indices[t * 3 + k]))
                            return SIMD2(Double(p.x) + scene.origin.x, Double(p.z) + scene.origin.z)
                        }
                        c.triangle(v[0], v[1], v[2], floorColor)
                    }
                }
                drewFloor = true
            } else {
                let corners = [
                    SIMD3(s.lo.x, s.lo.y, 0), SIMD3(s.hi.x, s.lo.y, 0), SIMD3(s.hi.x, s.hi.y, 0),
                    SIMD3(s.lo.x, s.hi.y, 0),
                ]
                c.polygon(corners.map { p2(s.point($0)) }, floorColor)
                drewFloor = true
            }
        }
        let walls = analysis.shapes.filter { $0.category == .wall }
        if !drewFloor {
            c.polygon(ElementShape.floorOutline(walls: walls), floorColor)
        }

        // 2. Objects, lowest top first so higher surfaces stay visible.
        let objects = analysis.shapes.filter {
            !RoomAnalysis.structural.contains($0.category) && $0.category != .floor
        }
        .sorted { a, b in
            let ta = a.point(a.hi).y, tb = b.point(b.hi).y
            return ta != tb ? ta < tb : a.element < b.element
        }
        for s in objects {
            let fill = ColorSpace.linear(hex: CategoryPalette.object(s.category))
            let outline = fill * Palette.planObjectOutline
            let (ctr, u, hl, hw) = footprint(s)
            c.box(centre: ctr, axis: u, halfLength: hl, halfWidth: hw, outline)
            let inset = 1.5 * mpp
            if hl > inset && hw > inset {
                c.box(centre: ctr, axis: u, halfLength: hl - inset, halfWidth: hw - inset, fill)
            }
        }

        // 3. Walls: thick, dark, square ends extended so corners close.
        let thickness = max(0.14, 7 * mpp)
        for s in walls {
            let (a, b) = wallEnds(s)
            c.line(a, b, widthPixels: thickness / mpp, wallColor, caps: true)
        }

        // 4. Doors, windows, openings cut into the walls.
        var wallByIdentifier: [String: ElementShape] = [:]
        for w in walls { wallByIdentifier[elements[w.element].identifier] = w }
        for s in analysis.shapes where s.category == .door || s.category == .window || s.category == .opening {
            var (a, b) = wallEnds(s)
            // On the host wall's centre line, within the wall's length.
            if let host = elements[s.element].parentIdentifier.flatMap({ wallByIdentifier[$0] }) {
                (a, b) = clamp(a, b, to: host)
            }
            let d = b - a
            let len = (d * d).sum().squareRoot()
            guard len > 1e-6 else { continue }
            let u = d / len
            let gapHalfWidth = thickness / 2 + 1.5 * mpp
            let mid = (a + b) / 2
            switch s.category {
            case .door:
                c.box(centre: mid, axis: u, halfLength: len / 2, halfWidth: gapHalfWidth, floorColor)
                // Hinge at the −X jamb; the leaf swings to the room's side of the wall.
                var n = SIMD2(-u.y, u.x)
                if ((centre - mid) * n).sum() < 0 { n = -n }
                let hinge = a, leafEnd = a + n * len
                c.line(hinge, leafEnd, widthPixels: 2.5, ColorSpace.linear(hex: Palette.planDoorLeaf), caps: true)
                let a0 = atan2(n.y, n.x), a1 = atan2(u.y, u.x)
                var delta = a1 - a0
                while delta > Double.pi { delta -= 2 * Double.pi }
                while delta < -Double.pi { delta += 2 * Double.pi }
                c.arc(
                    centre: hinge, radius: len, from: a0, to: a0 + delta, widthPixels: 1.5,
                    ColorSpace.linear(hex: Palette.planDoorArc))
            case .window:
                let blue = ColorSpace.linear(hex: Palette.planWindow)
                let v = SIMD2(-u.y, u.x)
                c.box(centre: mid, axis: u, halfLength: len / 2, halfWidth: thickness / 2, floorColor)
                let off = thickness / 2 - 0.75 * mpp
                c.line(a + v * off, b + v * off, widthPixels: 1.5, blue)
                c.line(a - v * off, b - v * off, widthPixels: 1.5, blue)
                c.line(a, b, widthPixels: 1.5, blue)
            default:
                c.box(centre: mid, axis: u, halfLength: len / 2, halfWidth: gapHalfWidth, floorColor)
                let v = SIMD2(-u.y, u.x)
                let grey = ColorSpace.linear(hex: Palette.planOpening)
                for end in [a, b] {
                    c.line(end - v * (thickness / 2), end + v * (thickness / 2), widthPixels: 1.5, grey)
                }
            }
        }
        return c
    }

    private func wallEnds(_ s: ElementShape) -> (SIMD2<Double>, SIMD2<Double>) { s.planEnds }

    /// A segment projected onto a wall's centre line and clipped to the wall's length (the
    /// segment itself when it does not overlap the wall).
    private func clamp(_ a: SIMD2<Double>, _ b: SIMD2<Double>, to wall: ElementShape) -> (SIMD2<Double>, SIMD2<Double>)
    {
        let (w0, w1) = wall.planEnds
        let d = w1 - w0
        let len2 = (d * d).sum()
        guard len2 > 1e-12 else { return (a, b) }
        var ta = ((a - w0) * d).sum() / len2, tb = ((b - w0) * d).sum() / len2
        if ta > tb { swap(&ta, &tb) }
        let lo = max(ta, 0), hi = min(tb, 1)
        guard hi > lo else { return (a, b) }
        let p = w0 + d * lo, q = w0 + d * hi
        // Keep the element's own direction (the hinge end stays first).
        return ((a - p) * (a - p)).sum() <= ((a - q) * (a - q)).sum() ? (p, q) : (q, p)
    }

    /// Centre, unit axis and half extents of an object's plan footprint (its box seen from above).
    private func footprint(_ s: ElementShape) -> (SIMD2<Double>, SIMD2<Double>, Double, Double) {
        let ctr3 = s.centre
        // The local axis closest to horizontal becomes the footprint's length axis.
        var u = SIMD2(s.ex.x, s.ex.z)
        var lu = (u * u).sum().squareRoot()
        var hl = (s.hi.x - s.lo.x) / 2, hw = (s.hi.z - s.lo.z) / 2
        if lu < 0.5 {
            u = SIMD2(s.ey.x, s.ey.z)
            lu = (u * u).sum().squareRoot()
            hl = (s.hi.y - s.lo.y) / 2
        }
        u = lu > 1e-9 ? u / lu : SIMD2(1, 0)
        return (SIMD2(ctr3.x, ctr3.z), u, hl, hw)
    }
}
