/// Blurs redacted areas of a texture before anything else reads it, and measures the detail left.
///
/// The app blurs faces with Core Image's Gaussian of radius 18 on the photo it captured
/// (`gaussian_blur_r18`); its textures are about `referenceSide` pixels on their long side. Here
/// the Gaussian's standard deviation scales with the texture: `σ = 18 × longest side /
/// referenceSide`, and never less than a sixth of the area's shorter side nor `minimumSigma`, so a
/// small texture (or a large area on it) still loses its features. Each area is blurred at full
/// strength inside and feathered over `σ` pixels outside (a linear blend back to the original), so
/// its edge leaves no seam. The Gaussian is three box passes each way, so a large σ costs no more
/// than a small one. Areas are normalised boxes (0…1) with their `y` measured from the
/// bottom (Vision's space, as the app posts them) or from the top.
///
/// Detail is the variance of the Laplacian of luma, inside an area against the whole texture
/// outside every area: `detailRatio` near 0 means the area is smooth; an area is still sharp when
/// its ratio is over `sharpRatio` and its own variance over `sharpFloor`. Deterministic: equal
/// bytes and areas give equal output bytes.
public enum TextureRedactor {
    /// One normalised area of a texture.
    public struct Area: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        /// True when `y` is measured from the bottom edge (Vision, the app's regions).
        public var fromBottom: Bool
        public init(x: Double, y: Double, width: Double, height: Double, fromBottom: Bool) {
            self.x = x; self.y = y; self.width = width; self.height = height; self.fromBottom = fromBottom
        }

        /// The area in pixels, rows counted from the top, clamped to the image.
        func pixels(width w: Int, height h: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
            let top = fromBottom ? 1 - y - height : y
            let x0 = Int((max(0, min(1, x)) * Double(w)).rounded(.down))
            let x1 = Int((max(0, min(1, x + width)) * Double(w)).rounded(.up))
            let y0 = Int((max(0, min(1, top)) * Double(h)).rounded(.down))
            let y1 = Int((max(0, min(1, top + height)) * Double(h)).rounded(.up))
            return (x0, y0, max(x0, min(w, x1)), max(y0, min(h, y1)))
        }
    }

    /// The blurred texture and what was measured.
    public struct Result: Sendable {
        /// WebP bytes of the whole texture (lossy, `quality`), at its own size.
        public var webp: [UInt8]
        public var width: Int, height: Int
        /// Per area, in the order given: Laplacian variance inside ÷ outside (0 when nothing is outside).
        public var detailRatio: [Double]
        /// Per area: the Laplacian variance inside, in 8-bit luma units squared.
        public var detail: [Double]
        /// The standard deviation used, in pixels.
        public var sigma: Double
        /// Per area: a small WebP of the blurred texture around it (the area and a quarter of its
        /// size on each side, at most `cropSide` pixels on its longest side), for the owner to check.
        public var crops: [[UInt8]]
    }

    /// Longest side of a privacy crop, in pixels.
    public static let cropSide = 256

    /// Version of the blur: bumped whenever its output bytes change (part of every group's key).
    public static let stageVersion = 1
    /// The texture side the app's radius 18 refers to, in pixels.
    public static let referenceSide = 1920.0
    /// The app's blur radius at `referenceSide`.
    public static let appRadius = 18.0
    /// The smallest standard deviation used, in pixels.
    public static let minimumSigma = 2.0
    /// An area is sharp when its detail ratio is above this …
    public static let sharpRatio = 0.35
    /// … and its own Laplacian variance above this (a flat texture has nothing to hide).
    public static let sharpFloor = 20.0
    /// WebP quality of the written texture.
    public static let quality: Float = 90

    /// Whether an area of `result` still holds sharp detail.
    public static func isSharp(_ result: Result, area index: Int) -> Bool {
        result.detailRatio[index] > sharpRatio && result.detail[index] > sharpFloor
    }

    /// Blurs `areas` of `bytes` (PNG, JPEG or WebP) and returns the texture as WebP.
    ///
    /// - Throws: `ThumbnailerError` with the decode codes of `TextureDecoder.decode`, or
    ///   `THUMB_WEBP_FAILED` when libwebp refuses.
    public static func blur(_ bytes: [UInt8], areas: [Area]) throws(ThumbnailerError) -> Result {
        let image = try TextureDecoder.decode(bytes, targetSide: 16384)
        var rgba = image.rgba
        let (w, h) = (image.width, image.height)
        let boxes = areas.map { $0.pixels(width: w, height: h) }
        let base = max(minimumSigma, appRadius * Double(max(w, h)) / referenceSide)
        var sigma = base
        for b in boxes { sigma = max(sigma, Double(min(b.x1 - b.x0, b.y1 - b.y0)) / 6) }
        for b in boxes where b.x1 > b.x0 && b.y1 > b.y0 {
            blurBox(&rgba, width: w, height: h, box: b, sigma: sigma)
        }
        let measured = measure(rgba, width: w, height: h, boxes: boxes)
        guard let webp = WebPCodec.encode(rgba: rgba, width: w, height: h, quality: quality, method: 4,
                                          keepAlpha: rgba.enumerated().contains { $0.offset % 4 == 3 && $0.element != 255 })
        else { throw ThumbnailerError(code: .webpFailed, message: "libwebp refused a \(w)×\(h) texture") }
        let crops = boxes.map { crop(rgba, width: w, height: h, box: $0) }
        return Result(webp: webp, width: w, height: h, detailRatio: measured.ratio, detail: measured.inside, sigma: sigma,
                      crops: crops)
    }

    /// Measures the detail of `areas` of `bytes` without changing it (an app's replacement).
    public static func measure(_ bytes: [UInt8], areas: [Area]) throws(ThumbnailerError) -> (ratio: [Double], detail: [Double]) {
        let image = try TextureDecoder.decode(bytes, targetSide: 16384)
        let boxes = areas.map { $0.pixels(width: image.width, height: image.height) }
        let m = measure(image.rgba, width: image.width, height: image.height, boxes: boxes)
        return (m.ratio, m.inside)
    }

    /// Gaussian blur of `box` grown by the feather band (three box passes each way, which cost the
    /// same whatever σ), then a blend that is 1 inside `box` and falls linearly to 0 at σ outside it.
    static func blurBox(_ rgba: inout [UInt8], width w: Int, height h: Int,
                        box: (x0: Int, y0: Int, x1: Int, y1: Int), sigma: Double) {
        let feather = Int(sigma.rounded(.up))
        let gx0 = max(0, box.x0 - feather), gx1 = min(w, box.x1 + feather)
        let gy0 = max(0, box.y0 - feather), gy1 = min(h, box.y1 + feather)
        let rw = gx1 - gx0, rh = gy1 - gy0
        guard rw > 0, rh > 0 else { return }
        // Box width for three passes approximating σ (Wells 1986): sqrt(12σ²/3 + 1), odd.
        var width = Int((12 * sigma * sigma / 3 + 1).squareRoot().rounded())
        if width % 2 == 0 { width += 1 }
        let r = width / 2
        var plane = [Double](repeating: 0, count: rw * rh * 4)
        for y in 0..<rh {
            for x in 0..<rw {
                let i = ((gy0 + y) * w + gx0 + x) * 4, o = (y * rw + x) * 4
                for c in 0..<4 { plane[o + c] = Double(rgba[i + c]) }
            }
        }
        var line = [Double](repeating: 0, count: max(rw, rh))
        for _ in 0..<3 {
            for y in 0..<rh {   // rows
                for c in 0..<4 {
                    for x in 0..<rw { line[x] = plane[(y * rw + x) * 4 + c] }
                    var sum = 0.0
                    for k in -r...r { sum += line[min(rw - 1, max(0, k))] }
                    for x in 0..<rw {
                        plane[(y * rw + x) * 4 + c] = sum / Double(width)
                        sum += line[min(rw - 1, x + r + 1)] - line[max(0, x - r)]
                    }
                }
            }
            for x in 0..<rw {   // columns
                for c in 0..<4 {
                    for y in 0..<rh { line[y] = plane[(y * rw + x) * 4 + c] }
                    var sum = 0.0
                    for k in -r...r { sum += line[min(rh - 1, max(0, k))] }
                    for y in 0..<rh {
                        plane[(y * rw + x) * 4 + c] = sum / Double(width)
                        sum += line[min(rh - 1, y + r + 1)] - line[max(0, y - r)]
                    }
                }
            }
        }
        for y in 0..<rh {
            for x in 0..<rw {
                let px = gx0 + x, py = gy0 + y
                let dx = max(box.x0 - px, px - (box.x1 - 1), 0), dy = max(box.y0 - py, py - (box.y1 - 1), 0)
                let t = max(0, 1 - Double(max(dx, dy)) / max(1, sigma))
                let i = (py * w + px) * 4, o = (y * rw + x) * 4
                for c in 0..<4 {
                    let blended = t * plane[o + c] + (1 - t) * Double(rgba[i + c])
                    rgba[i + c] = UInt8(max(0, min(255, blended.rounded())))
                }
            }
        }
    }

    /// The area around `box` (a quarter of its size more on each side) as a small WebP; empty when
    /// libwebp refuses.
    static func crop(_ rgba: [UInt8], width w: Int, height h: Int, box: (x0: Int, y0: Int, x1: Int, y1: Int)) -> [UInt8] {
        let mx = max(1, (box.x1 - box.x0) / 4), my = max(1, (box.y1 - box.y0) / 4)
        let x0 = max(0, box.x0 - mx), x1 = min(w, box.x1 + mx), y0 = max(0, box.y0 - my), y1 = min(h, box.y1 + my)
        let cw = x1 - x0, ch = y1 - y0
        guard cw > 0, ch > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: cw * ch * 4)
        for y in 0..<ch {
            let from = ((y0 + y) * w + x0) * 4
            out.replaceSubrange((y * cw * 4)..<((y + 1) * cw * 4), with: rgba[from..<(from + cw * 4)])
        }
        let scale = min(1, Double(cropSide) / Double(max(cw, ch)))
        let size = (width: max(1, Int((Double(cw) * scale).rounded())), height: max(1, Int((Double(ch) * scale).rounded())))
        return WebPCodec.encode(rgba: out, width: cw, height: ch, quality: 80, method: 4, resize: size) ?? []
    }

    /// Laplacian variance of luma inside each box, and its ratio to the variance outside every box.
    static func measure(_ rgba: [UInt8], width w: Int, height h: Int,
                        boxes: [(x0: Int, y0: Int, x1: Int, y1: Int)]) -> (ratio: [Double], inside: [Double]) {
        guard w >= 3, h >= 3 else { return (boxes.map { _ in 0 }, boxes.map { _ in 0 }) }
        func luma(_ x: Int, _ y: Int) -> Double {
            let i = (y * w + x) * 4
            return 0.299 * Double(rgba[i]) + 0.587 * Double(rgba[i + 1]) + 0.114 * Double(rgba[i + 2])
        }
        func inAny(_ x: Int, _ y: Int) -> Bool { boxes.contains { x >= $0.x0 && x < $0.x1 && y >= $0.y0 && y < $0.y1 } }
        var outside = (n: 0.0, sum: 0.0, sq: 0.0)
        var inside = boxes.map { _ in (n: 0.0, sum: 0.0, sq: 0.0) }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let l = luma(x - 1, y) + luma(x + 1, y) + luma(x, y - 1) + luma(x, y + 1) - 4 * luma(x, y)
                var hit = false
                for (j, b) in boxes.enumerated() where x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1 {
                    inside[j].n += 1; inside[j].sum += l; inside[j].sq += l * l
                    hit = true
                }
                if !hit && !inAny(x, y) { outside.n += 1; outside.sum += l; outside.sq += l * l }
            }
        }
        func variance(_ s: (n: Double, sum: Double, sq: Double)) -> Double {
            s.n < 2 ? 0 : max(0, s.sq / s.n - (s.sum / s.n) * (s.sum / s.n))
        }
        let out = variance(outside)
        let vars = inside.map(variance)
        return (vars.map { out > 0 ? $0 / out : 0 }, vars)
    }
}
