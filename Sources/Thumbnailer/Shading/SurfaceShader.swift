/// Shades covered samples of scene triangles into a tile: base colour × texture × vertex colour,
/// lit by the view's `LightRig` with the ambient part scaled by occlusion. Flat, untextured
/// triangles take a fast path with their lighting computed once per triangle.
struct SurfaceShader: SampleShader {
    let color: UnsafeMutablePointer<SIMD4<Float>>
    let ids: UnsafeMutablePointer<UInt16>
    let ao: UnsafeMutablePointer<Float>
    let rig: LightRig
    let sampler: TextureSampler
    let scene: RenderScene
    /// Blend over the stored colour (transparent pass) instead of replacing it.
    let blend: Bool
    /// Distance between samples in fixed-point units (for texture footprints).
    let step: Float
    /// Where a texture without an alpha cutoff is magnified (at most one texel per sample step),
    /// it takes its mean colour instead of a sample: in the pass that finds edges, a magnified
    /// texture's variation is smooth at the pixel's scale and is not an edge. Minified textures
    /// are sampled, so their detail still asks for the full sample rate.
    var meanTextures = false

    // Per triangle.
    var flat = true
    var flatAmbient = SIMD3<Float>.zero
    var flatDirect = SIMD3<Float>.zero
    /// Irradiance of a constant-normal triangle: ambient part (× occlusion) and the rest.
    var constAmbient: Float = 0
    var constDirect: Float = 0
    var alpha: Float = 1
    var id: UInt16 = 0
    var w = SIMD3<Float>.zero
    var n0 = SIMD3<Float>.zero, n1 = SIMD3<Float>.zero, n2 = SIMD3<Float>.zero
    var normalSign: Float = 1
    var faceNormal = SIMD3<Float>(0, 1, 0)
    var vertexNormals = false
    var textured = false
    var texture = 0
    var uv0 = SIMD2<Float>.zero, uv1 = SIMD2<Float>.zero, uv2 = SIMD2<Float>.zero
    var uvRow0 = SIMD3<Float>(1, 0, 0), uvRow1 = SIMD3<Float>(0, 1, 0)
    var wrapS: UInt8 = 0, wrapT: UInt8 = 0
    var texScale = SIMD4<Float>.one, texBias = SIMD4<Float>.zero
    var texSize = SIMD2<Float>(1, 1)
    /// The texture's mean texel (its 1 × 1 level), when `meanTextures` applies to the triangle.
    var meanTexel: SIMD4<Float>?
    var firstLevel = 0
    var levelCount = 1
    var qc: Float = 0, qr: Float = 0
    var puc: Float = 0, pur: Float = 0, pvc: Float = 0, pvr: Float = 0
    var pu = SIMD3<Float>.zero, pv = SIMD3<Float>.zero
    var hasColors = false
    var c0 = SIMD4<Float>.one, c1 = SIMD4<Float>.one, c2 = SIMD4<Float>.one
    var base = SIMD4<Float>.one
    var emissive = SIMD3<Float>.zero
    var cutoff: Float = -1

    init(buffers: TileBuffers, rig: LightRig, scene: RenderScene, blend: Bool, step: Int64) {
        color = buffers.color
        ids = buffers.ids
        ao = buffers.ao
        self.rig = rig
        sampler = scene.sampler
        self.scene = scene
        self.blend = blend
        self.step = Float(step)
    }

    /// Prepares the per-triangle state; `elementID` is written to the id buffer.
    mutating func begin(_ t: RasterTriangle, elementID: UInt16) {
        let s = t.source
        let mat = scene.materials[Int(scene.triMaterial[s])]
        let inst = scene.instances[Int(scene.triInstance[s])]
        id = elementID
        let v0 = Int(scene.indices[s * 3]), v1 = Int(scene.indices[s * 3 + 1]), v2 = Int(scene.indices[s * 3 + 2])
        faceNormal = scene.faceNormals[s]
        normalSign = t.front ? 1 : -1
        if faceNormal == .zero { faceNormal = SIMD3(0, 1, 0) }
        @inline(__always) func mix3(
            _ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, _ wt: SIMD3<Float>
        ) -> SIMD3<Float> {
            a * wt.x + b * wt.y + c * wt.z
        }
        vertexNormals = false
        if inst.hasNormals {
            let a = load3(scene.normals, v0), b = load3(scene.normals, v1), c = load3(scene.normals, v2)
            if a != .zero && b != .zero && c != .zero {
                n0 = mix3(a, b, c, t.weights.0)
                n1 = mix3(a, b, c, t.weights.1)
                n2 = mix3(a, b, c, t.weights.2)
                vertexNormals = !(n0 == n1 && n1 == n2)
                if !vertexNormals { faceNormal = n0.normalizedOrZero }
            }
        }
        base = mat.base
        if mat.texture < 0 && inst.tint.w > 0 { base = SIMD4(inst.tint.x, inst.tint.y, inst.tint.z, base.w) }
        emissive = mat.emissive
        cutoff = mat.cutoff ?? -1
        hasColors = inst.hasColors
        if hasColors {
            let a = load4(scene.colors, v0), b = load4(scene.colors, v1), c = load4(scene.colors, v2)
            c0 = a * t.weights.0.x + b * t.weights.0.y + c * t.weights.0.z
            c1 = a * t.weights.1.x + b * t.weights.1.y + c * t.weights.1.z
            c2 = a * t.weights.2.x + b * t.weights.2.y + c * t.weights.2.z
            if c0 == c1 && c1 == c2 {
                base *= c0
                hasColors = false
            }
        }
        w = t.w
        meanTexel = nil
        textured = mat.texture >= 0 && inst.hasUV
        if textured {
            texture = mat.texture
            let e = sampler.entries[texture]
            texSize = SIMD2(Float(e.width), Float(e.height))
            firstLevel = e.firstLevel
            levelCount = e.levelCount
            let a = load2(scene.uvs, v0), b = load2(scene.uvs, v1), c = load2(scene.uvs, v2)
            uv0 = a * t.weights.0.x + b * t.weights.0.y + c * t.weights.0.z
            uv1 = a * t.weights.1.x + b * t.weights.1.y + c * t.weights.1.z
            uv2 = a * t.weights.2.x + b * t.weights.2.y + c * t.weights.2.z
            uvRow0 = mat.uvRow0
            uvRow1 = mat.uvRow1
            wrapS = mat.wrapS
            wrapT = mat.wrapT
            texScale = mat.texScale
            texBias = mat.texBias
            if meanTextures && mat.cutoff == nil { meanTexel = e.mean }
            // Screen derivatives of the barycentrics per sample step.
            let inv = 1 / Float(t.area)
            let b1c = Float(-(t.y0 - t.y2)) * step * inv, b1r = Float(t.x0 - t.x2) * step * inv
            let b2c = Float(-(t.y1 - t.y0)) * step * inv, b2r = Float(t.x1 - t.x0) * step * inv
            qc = b1c * (w.y - w.x) + b2c * (w.z - w.x)
            qr = b1r * (w.y - w.x) + b2r * (w.z - w.x)
            pu = SIMD3(uv0.x * w.x, uv1.x * w.y, uv2.x * w.z)
            pv = SIMD3(uv0.y * w.x, uv1.y * w.y, uv2.y * w.z)
            puc = b1c * (pu.y - pu.x) + b2c * (pu.z - pu.x)
            pur = b1r * (pu.y - pu.x) + b2r * (pu.z - pu.x)
            pvc = b1c * (pv.y - pv.x) + b2c * (pv.z - pv.x)
            pvr = b1r * (pv.y - pv.x) + b2r * (pv.z - pv.x)
        }
        alpha = base.w
        if !vertexNormals {
            let n = faceNormal * normalSign
            let direct = rig.direct(n)
            constAmbient = rig.ambient(n) + direct * LightRig.directOcclusion
            constDirect = direct * (1 - LightRig.directOcclusion)
        }
        flat = !textured && !hasColors && !vertexNormals && cutoff < 0
        if flat {
            let n = faceNormal * normalSign
            let rgb = SIMD3(base.x, base.y, base.z)
            // Occlusion scales the ambient light and part of the direct light.
            flatAmbient = rgb * (rig.ambient(n) + rig.direct(n) * LightRig.directOcclusion)
            flatDirect = rgb * rig.direct(n) * (1 - LightRig.directOcclusion) + emissive
        }
    }

    @inline(__always)
    mutating func shade(index: Int, b1: Float, b2: Float, z: Float) -> Bool {
        var rgb: SIMD3<Float>
        var a = alpha
        if flat {
            rgb = flatAmbient * ao[index] + flatDirect
        } else {
            let b0 = 1 - b1 - b2
            let p = SIMD3(b0 * w.x, b1 * w.y, b2 * w.z)
            let q = p.x + p.y + p.z
            let iq = q != 0 ? 1 / q : 0
            let l = p * iq
            var c = base
            if textured {
                let u = l.x * uv0.x + l.y * uv1.x + l.z * uv2.x
                let v = l.x * uv0.y + l.y * uv1.y + l.z * uv2.y
                let duc = (puc - u * qc) * iq, dur = (pur - u * qr) * iq
                let dvc = (pvc - v * qc) * iq, dvr = (pvr - v * qr) * iq
                let tu = uvRow0.x * u + uvRow0.y * v + uvRow0.z
                let tv = uvRow1.x * u + uvRow1.y * v + uvRow1.z
                let xc = (uvRow0.x * duc + uvRow0.y * dvc) * texSize.x,
                    yc = (uvRow1.x * duc + uvRow1.y * dvc) * texSize.y
                let xr = (uvRow0.x * dur + uvRow0.y * dvr) * texSize.x,
                    yr = (uvRow1.x * dur + uvRow1.y * dvr) * texSize.y
                let rho2 = max(xc * xc + yc * yc, xr * xr + yr * yr)
                if let meanTexel, rho2 <= 1 {
                    // Magnified (at most a texel per step): the texture is smooth at this scale.
                    c *= meanTexel * texScale + texBias
                } else {
                    var level = 0
                    if rho2 > 2, rho2.isFinite { level = (Int(((rho2 * 2).bitPattern >> 23) & 0xFF) - 127) >> 1 }
                    let texel = sampler.sample(
                        firstLevel: firstLevel, levelCount: levelCount, u: tu, v: tv, level: level,
                        wrapS: wrapS, wrapT: wrapT)
                    c *= texel * texScale + texBias
                }
            }
            if hasColors { c *= c0 * l.x + c1 * l.y + c2 * l.z }
            if cutoff >= 0 && c.w < cutoff { return false }
            a = c.w
            let o = ao[index]
            let irradiance: Float
            if vertexNormals {
                var n = (n0 * l.x + n1 * l.y + n2 * l.z).normalizedOrZero
                if n == .zero { n = faceNormal }
                n *= normalSign
                let direct = rig.direct(n)
                irradiance =
                    (rig.ambient(n) + direct * LightRig.directOcclusion) * o + direct * (1 - LightRig.directOcclusion)
            } else {
                irradiance = constAmbient * o + constDirect
            }
            rgb = SIMD3(c.x, c.y, c.z) * irradiance + emissive
        }
        if blend {
            let a2 = min(max(a, 0), 1)
            let old = color[index]
            let mixed = SIMD3(old.x, old.y, old.z) * (1 - a2) + rgb * a2
            color[index] = SIMD4(mixed, 1)
        } else {
            color[index] = SIMD4(rgb, 1)
            ids[index] = id
        }
        return true
    }
}

/// Depth-pass shader: records the triangle's normal (facing the camera) per pixel.
struct NormalShader: SampleShader {
    let normals: UnsafeMutablePointer<SIMD3<Float>>
    var n = SIMD3<Float>.zero

    @inline(__always)
    mutating func shade(index: Int, b1: Float, b2: Float, z: Float) -> Bool {
        normals[index] = n
        return true
    }
}

@inline(__always) func load3(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD3<Float> {
    SIMD3(p[i * 3], p[i * 3 + 1], p[i * 3 + 2])
}

@inline(__always) func load2(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD2<Float> {
    SIMD2(p[i * 2], p[i * 2 + 1])
}

@inline(__always) func load4(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD4<Float> {
    SIMD4(p[i * 4], p[i * 4 + 1], p[i * 4 + 2], p[i * 4 + 3])
}
