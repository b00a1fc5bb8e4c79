import SceneModel

extension Thumbnailer {
    /// What of each room of a home a view shows (for tests and utilities): the hero (or the
    /// given camera) rendered flat, each room's floor drawn over in a colour of its own, and the
    /// pixels of each colour counted. A room that is framed and not hidden behind walls or
    /// furniture has many; one hidden or out of frame has none.
    ///
    /// - Returns: the camera used, by room (`LayeredScene.rooms` order) the pixels that show the
    ///   room's floor (empty for a scene without rooms), and the flat image counted.
    /// - Throws: `THUMB_EMPTY_SCENE` when nothing is drawable.
    public static func roomVisibility(
        _ layered: LayeredScene, camera: ThumbnailCamera? = nil, size: ThumbnailSize = ThumbnailSize(width: 1024, height: 768),
        options: ThumbnailOptions = ThumbnailOptions()
    ) throws -> (camera: ThumbnailCamera, pixels: [Int], image: ThumbnailImage) {
        let colours = RoomMask.colours(count: layered.rooms.count)
        let context = try RenderContext(layered, options: options, roomColours: colours.map { ColorSpace.linear(hex: $0) })
        let s = size.clamped
        let cam = camera ?? context.planner.heroCamera(width: s.width, height: s.height).camera
        let out = context.renderScene(camera: cam, width: s.width, height: s.height, cutaway: true, flat: true)
        var pixels = [Int](repeating: 0, count: colours.count)
        for i in stride(from: 0, to: out.rgba.count, by: 4) {
            for (r, c) in colours.enumerated() {
                let want = [UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)]
                if (0..<3).allSatisfy({ abs(Int(out.rgba[i + $0]) - Int(want[$0])) <= 3 }) {
                    pixels[r] += 1
                    break
                }
            }
        }
        let image = ThumbnailImage(width: s.width, height: s.height, rgba: out.rgba, coveredPixels: out.covered, camera: cam)
        return (cam, context.home == nil ? [] : pixels, image)
    }
}

/// The rooms' floors drawn over in colours of their own, for `Thumbnailer.roomVisibility`.
enum RoomMask {
    /// Saturated colours (sRGB) far from the category palette's muted ones, one per room.
    static func colours(count: Int) -> [UInt32] {
        let base: [UInt32] = [0xFF00FF, 0x00FFFF, 0xFF0000, 0x0000FF, 0x00FF00, 0xFFFF00, 0x8000FF, 0xFF0080]
        return (0..<count).map { i in
            let c = base[i % base.count]
            // Past eight rooms, the same hues darker (distinct, still far from the palette).
            let k = UInt32(i / base.count)
            let scale = k == 0 ? 255 : max(64, 255 - 48 * Int(k))
            let r = (c >> 16 & 0xFF) * UInt32(scale) / 255, g = (c >> 8 & 0xFF) * UInt32(scale) / 255
            let b = (c & 0xFF) * UInt32(scale) / 255
            return r << 16 | g << 8 | b
        }
    }

    /// The floor polygons of `rooms` (every room when nil), `lift` metres above each room's
    /// floor, in the colours given (linear RGB, one per listed room), as drawn nodes of no element.
    static func addFloors(
        _ home: HomeLayout, rooms: [Int]? = nil, colours: [SIMD3<Float>], lift: Double = 0.02,
        to source: inout RenderScene.Source
    ) {
        for (k, r) in (rooms ?? Array(home.rooms.indices)).enumerated() where k < colours.count {
            let room = home.rooms[r]
            var positions: [Float] = [], normals: [Float] = [], indices: [UInt32] = []
            for polygon in room.floors {
                let triangles = PolygonTriangulator.triangulate(polygon).triangles
                let base = UInt32(positions.count / 3)
                for p in polygon {
                    positions += [Float(p.x), Float(room.floorY + lift), Float(p.y)]
                    normals += [0, 1, 0]
                }
                // Counter-clockwise seen from above.
                for (a, b, c) in triangles { indices += [base + UInt32(a), base + UInt32(c), base + UInt32(b)] }
            }
            guard !indices.isEmpty else { continue }
            source.addDrawing(
                Material(name: "room \(r)", baseColor: SIMD4(colours[k], 1)), name: "room \(r)", positions: positions,
                normals: normals, indices: indices, room: r)
        }
    }
}
