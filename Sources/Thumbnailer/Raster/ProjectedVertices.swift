import Dispatch

/// The scene's vertices projected for one view: fixed-point sample coordinates (8 sub-pixel
/// bits, at the supersampled resolution), depth key, 1/w and clip flags.
final class ProjectedVertices: @unchecked Sendable {
    static let invalid: UInt8 = 1
    static let behindNear: UInt8 = 2
    static let outsideGuard: UInt8 = 4
    static let left: UInt8 = 8
    static let right: UInt8 = 16
    static let below: UInt8 = 32
    static let above: UInt8 = 64
    /// A triangle whose three vertices share one of these bits is invisible.
    static let rejectMask: UInt8 = behindNear | left | right | below | above
    /// A triangle with any vertex carrying one of these bits is clipped in clip space.
    static let clipMask: UInt8 = behindNear | outsideGuard

    /// Sub-pixel bits of the fixed-point coordinates.
    static let subBits: Int64 = 8
    static let one: Int64 = 256
    static let half: Int64 = 128
    /// Largest distance (in samples) beyond the image a projected vertex may have; farther
    /// triangles are clipped to it so edge functions stay far inside Int64.
    static let guardSamples: Float = 16384

    let count: Int
    let x: UnsafeMutablePointer<Int32>
    let y: UnsafeMutablePointer<Int32>
    let key: UnsafeMutablePointer<Float>
    let invW: UnsafeMutablePointer<Float>
    let flags: UnsafeMutablePointer<UInt8>
    /// Supersampled image size.
    let samplesW: Int
    let samplesH: Int
    /// Guard-band limits in NDC (|x/w| ≤ guardX stays projectable).
    let guardX: Float
    let guardY: Float

    init(scene: RenderScene, camera: RenderCamera, supersampling ss: Int) {
        count = scene.vertexCount
        let n = max(count, 1)
        x = .allocate(capacity: n)
        y = .allocate(capacity: n)
        key = .allocate(capacity: n)
        invW = .allocate(capacity: n)
        flags = .allocate(capacity: n)
        samplesW = camera.width * ss
        samplesH = camera.height * ss
        guardX = 1 + 2 * Self.guardSamples / Float(samplesW)
        guardY = 1 + 2 * Self.guardSamples / Float(samplesH)
        let chunk = 1 << 14
        let chunks = (count + chunk - 1) / chunk
        let this = self
        Parallel.forEach(chunks) { c in
            let lo = c * chunk, hi = min(count, lo + chunk)
            for i in lo..<hi { this.project(i, scene: scene, camera: camera) }
        }
    }

    deinit {
        x.deallocate()
        y.deallocate()
        key.deallocate()
        invW.deallocate()
        flags.deallocate()
    }

    @inline(__always)
    private func project(_ i: Int, scene: RenderScene, camera: RenderCamera) {
        let p = scene.positions + i * 3
        let c = camera.clipFromWorld.transformPoint(p[0], p[1], p[2])
        let r = ClipVertex.classify(
            c, marginX: 4 / Float(samplesW) + 0.001, marginY: 4 / Float(samplesH) + 0.001,
            guardX: guardX, guardY: guardY)
        flags[i] = r
        if r & (Self.invalid | Self.clipMask) != 0 {
            x[i] = 0; y[i] = 0; key[i] = 0; invW[i] = 0
            return
        }
        let s = ClipVertex.toScreen(c, camera: camera, samplesW: samplesW, samplesH: samplesH)
        x[i] = s.x
        y[i] = s.y
        key[i] = s.key
        invW[i] = s.invW
    }
}

/// Clip-space helpers shared by vertex projection and triangle clipping.
enum ClipVertex {
    @inline(__always)
    static func classify(_ c: SIMD4<Float>, marginX: Float, marginY: Float, guardX: Float, guardY: Float) -> UInt8 {
        guard c.x.isFinite, c.y.isFinite, c.z.isFinite, c.w.isFinite else { return ProjectedVertices.invalid }
        var f: UInt8 = 0
        if c.z < 0 || c.w <= 0 { f |= ProjectedVertices.behindNear }
        let wx = c.w * (1 + marginX), wy = c.w * (1 + marginY)
        if c.x < -wx { f |= ProjectedVertices.left }
        if c.x > wx { f |= ProjectedVertices.right }
        if c.y < -wy { f |= ProjectedVertices.below }
        if c.y > wy { f |= ProjectedVertices.above }
        if abs(c.x) > guardX * c.w || abs(c.y) > guardY * c.w { f |= ProjectedVertices.outsideGuard }
        return f
    }

    /// Fixed-point sample coordinates, depth key and 1/w of a clip position with w > 0 inside the
    /// guard band.
    @inline(__always)
    static func toScreen(
        _ c: SIMD4<Float>, camera: RenderCamera, samplesW: Int, samplesH: Int
    )
        -> (x: Int32, y: Int32, key: Float, invW: Float)
    {
        let iw = 1 / c.w
        let sx = (c.x * iw * 0.5 + 0.5) * Float(samplesW)
        let sy = (0.5 - c.y * iw * 0.5) * Float(samplesH)
        let limit: Float = 16_000_000  // beyond the guard band of the largest image (16384 + 2 × 16384 samples)
        let fx = sx.isFinite ? roundSmall(min(max(sx * 256, -limit), limit)) : 0
        let fy = sy.isFinite ? roundSmall(min(max(sy * 256, -limit), limit)) : 0
        let key = camera.perspective ? iw : -c.z * Float(camera.depthScale)
        return (Int32(fx), Int32(fy), key, camera.perspective ? iw : 1)
    }

    /// Rounds half away from zero (as `roundf`) for |x| < 2^23, without a libm call.
    @inline(__always)
    static func roundSmall(_ x: Float) -> Float {
        Float(Int32(x >= 0 ? x + 0.5 : x - 0.5))
    }
}
