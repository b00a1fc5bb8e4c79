import SceneModel
import Testing
@testable import Thumbnailer

/// Texture decoding (libpng, libjpeg-turbo), sampling and WebP encoding.
struct CodecTests {
    // 16×8 JPEGs, left half (220, 30, 30), right half (30, 60, 220), written by Pillow:
    //   Image.new("RGB", (16, 8)) … .save(b, "JPEG", quality=95, subsampling=0[, progressive=True])
    //   and the same image converted to "L" (grey).
    static let baselineJPEG = hex(
        "ffd8ffe000104a46494600010100000100010000ffdb0043000201010101010201010102020202020403020202020504"
            + "040304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b0a0c090a0a0affdb0043010202"
            + "02020202050303050a0706070a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"
            + "0a0a0a0a0a0a0a0a0a0a0a0a0a0affc00011080008001003011100021101031101ffc4001f0000010501010101010100"
            + "000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d010203000411051221"
            + "31410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a"
            + "434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a9293949596979899"
            + "9aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1"
            + "f2f3f4f5f6f7f8f9faffc4001f0100030101010101010101010000000000000102030405060708090a0bffc400b51100"
            + "020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f015"
            + "6272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a63646566676869"
            + "6a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4"
            + "c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c03010002110311003f00f9"
            + "6ebf9fcff5f0f37aff00750ff04cffd9")
    static let progressiveJPEG = hex(
        "ffd8ffe000104a46494600010100000100010000ffdb0043000201010101010201010102020202020403020202020504"
            + "040304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b0a0c090a0a0affdb0043010202"
            + "02020202050303050a0706070a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"
            + "0a0a0a0a0a0a0a0a0a0a0a0a0a0affc20011080008001003011100021101031101ffc400150001010000000000000000"
            + "0000000000000607ffc4001501010100000000000000000000000000000807ffda000c0301000210031000000196cfd7"
            + "c6dd409fffc40014100100000000000000000000000000000010ffda00080101000105023fffc4001411010000000000"
            + "0000000000000000000010ffda0008010301013f013fffc40014110100000000000000000000000000000010ffda0008"
            + "010201013f013fffc40014100100000000000000000000000000000010ffda0008010100063f023fffc4001410010000"
            + "0000000000000000000000000010ffda0008010100013f213fffda000c0301000200030000001003ffc4001411010000"
            + "0000000000000000000000000010ffda0008010301013f103fffc40014110100000000000000000000000000000010ff"
            + "da0008010201013f103fffc40014100100000000000000000000000000000010ffda0008010100013f103fffd9")
    static let greyJPEG = hex(
        "ffd8ffe000104a46494600010100000100010000ffdb0043000201010101010201010102020202020403020202020504"
            + "040304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b0a0c090a0a0affc0000b080008"
            + "001001011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b51000020103"
            + "03020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f024336272"
            + "82090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475"
            + "767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9"
            + "cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00f96ebcdebfffd9")

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.utf8.makeIterator()
        while let a = it.next(), let b = it.next() {
            func v(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
            out.append(v(a) << 4 | v(b))
        }
        return out
    }

    static let limits = ImageDecodeLimits()

    @Test func pngDecodesExactly() throws {
        let rgba: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128]
        let png = PNGWriter.encode(rgba: rgba, width: 2, height: 2)
        let img = try PNGDecoder.decode(png, limits: Self.limits).get()
        #expect(img.width == 2 && img.height == 2)
        #expect(img.rgba == rgba)
    }

    @Test func oversizedPNGHeaderFailsCleanly() {
        let png = PNGWriter.header(width: 30000, height: 30000)
        guard case .failure(let f) = PNGDecoder.decode(png, limits: Self.limits) else {
            Issue.record("a 30000×30000 PNG must be refused")
            return
        }
        #expect(f.code == .textureTooLarge)
        // Within the side limit but beyond the byte budget.
        let big = PNGWriter.header(width: 9000, height: 9000)
        guard case .failure(let g) = PNGDecoder.decode(big, limits: Self.limits) else {
            Issue.record("an 81-megapixel PNG exceeds the 256 MiB budget")
            return
        }
        #expect(g.code == .textureBudget)
        // Garbage after a valid header: libpng's error comes back as a failure.
        var broken = PNGWriter.encode(rgba: [UInt8](repeating: 7, count: 64), width: 4, height: 4)
        broken[broken.count - 20] ^= 0xFF
        if case .success = PNGDecoder.decode(broken, limits: Self.limits) { Issue.record("corrupt IDAT must fail") }
    }

    @Test(arguments: ["baseline", "progressive", "grey"])
    func jpegDecodes(kind: String) throws {
        let bytes =
            kind == "baseline" ? Self.baselineJPEG : kind == "progressive" ? Self.progressiveJPEG : Self.greyJPEG
        let info = try JPEGValidator.validate(bytes, maxSide: 16384).get()
        #expect(info.progressive == (kind == "progressive"))
        let img = try JPEGDecoder.decode(bytes, limits: Self.limits).get()
        #expect(img.width == 16 && img.height == 8)
        func px(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(img.rgba[(y * 16 + x) * 4 + $0]) } }
        let left = px(2, 4), right = px(13, 4)
        if kind == "grey" {
            #expect(abs(left[0] - left[1]) <= 2 && left[0] > right[0])
        } else {
            #expect(abs(left[0] - 220) <= 12 && abs(left[1] - 30) <= 12 && abs(left[2] - 30) <= 12)
            #expect(abs(right[0] - 30) <= 12 && abs(right[1] - 60) <= 12 && abs(right[2] - 220) <= 12)
        }
        #expect(img.rgba[3] == 255)
    }

    @Test func malformedJPEGsAreRefusedBeforeLibjpeg() {
        var truncated = Array(Self.baselineJPEG.prefix(200))  // before the scan
        if case .success = JPEGDecoder.decode(truncated, limits: Self.limits) { Issue.record("no scan must fail") }
        truncated = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x4E, 0x20, 0x4E, 0x20, 0x01, 0x01, 0x11, 0x00]
        guard case .failure(let f) = JPEGDecoder.decode(truncated, limits: Self.limits) else {
            Issue.record("a 20000×20000 frame must be refused")
            return
        }
        #expect(f.code == .textureTooLarge)
        // Huffman counts that overflow the code space.
        var bad = Self.baselineJPEG
        if let dht = (0..<(bad.count - 1)).first(where: { bad[$0] == 0xFF && bad[$0 + 1] == 0xC4 }) {
            bad[dht + 5] = 0x05  // five codes of length 1
            if case .success = JPEGDecoder.decode(bad, limits: Self.limits) {
                Issue.record("bad Huffman table must fail")
            }
        }
        // Arithmetic coding (SOF9) is not supported.
        var arith = Self.baselineJPEG
        if let sof = (0..<(arith.count - 1)).first(where: { arith[$0] == 0xFF && arith[$0 + 1] == 0xC0 }) {
            arith[sof + 1] = 0xC9
            guard case .failure(let g) = JPEGDecoder.decode(arith, limits: Self.limits) else {
                Issue.record("SOF9 must be refused")
                return
            }
            #expect(g.code == .textureUnsupported)
        }
    }

    @Test func libjpegFatalErrorsEndOnlyTheDecodeThread() {
        // Skip the structural check: libjpeg itself meets a stream it cannot read and calls
        // error_exit; the decoder must return a failure and the process must go on.
        var bytes = Self.baselineJPEG
        bytes[0] = 0x00
        guard case .failure(let f) = JPEGDecoder.decode(bytes, limits: Self.limits, validate: false) else {
            Issue.record("libjpeg must refuse a stream without SOI")
            return
        }
        #expect(f.message.contains("libjpeg"))
        // And decoding still works afterwards.
        #expect((try? JPEGDecoder.decode(Self.baselineJPEG, limits: Self.limits).get())?.width == 16)
    }

    /// A quad covering the pixel camera's 2×2 (or `n`×`n`) image, uv (0,0) at the top left.
    static func texturedQuad(
        texture: [UInt8], mime: String = "image/png", n: Float = 2,
        factor: SIMD4<Float> = SIMD4(1, 1, 1, 1)
    ) -> Scene {
        var s = Scene()
        let t = s.addTexture(Texture(bytes: texture, mimeType: mime, sourcePath: "tex.png"))
        let m = s.addMaterial(
            Material(
                name: "tex", baseColor: factor, baseColorTexture: TextureRef(texture: t, wrapS: .clamp, wrapT: .clamp)))
        let positions: [Float] = [0, 0, 0, n, 0, 0, n, n, 0, 0, n, 0]
        let uv: [Float] = [0, 1, 1, 1, 1, 0, 0, 0]
        let mesh = s.addMesh(
            Mesh(
                name: "q", positions: positions, uv0: uv, indices: [0, 1, 2, 0, 2, 3],
                primitives: [Mesh.Primitive(indexStart: 0, indexCount: 6, material: m)]))
        s.addNode(Node(name: "q", mesh: mesh))
        return s
    }

    @Test func texturedQuadSamplesKnownTexels() {
        // sRGB round trip through the tables is exact for every code.
        ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { t in
            for c in 0..<256 {
                #expect(ColorSpace.encode(ColorSpace.srgbToLinear[c], table: t.baseAddress!) == UInt8(c))
            }
        }
        let texels: [UInt8] = [200, 10, 10, 255, 10, 200, 10, 255, 10, 10, 200, 255, 250, 250, 40, 255]
        let png = PNGWriter.encode(rgba: texels, width: 2, height: 2)
        let out = TestScenes.render(
            Self.texturedQuad(texture: png), camera: TestScenes.pixelCamera(width: 2, height: 2),
            width: 2, height: 2, settings: TestScenes.exact())
        for p in 0..<4 {
            #expect(Array(out.rgba[(p * 4)..<(p * 4 + 3)]) == Array(texels[(p * 4)..<(p * 4 + 3)]), "texel \(p)")
        }
    }

    @Test func minificationAveragesThroughTheMipChain() {
        // A 64×64 one-texel black/white checkerboard on a 4×4-pixel quad: every pixel is the
        // average (linear 0.5 → sRGB 188), not an aliased black or white texel.
        var texels = [UInt8](repeating: 255, count: 64 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<64 where (x + y) % 2 == 0 { for c in 0..<3 { texels[(y * 64 + x) * 4 + c] = 0 } }
        }
        let png = PNGWriter.encode(rgba: texels, width: 64, height: 64)
        let out = TestScenes.render(
            Self.texturedQuad(texture: png, n: 4), camera: TestScenes.pixelCamera(width: 4, height: 4),
            width: 4, height: 4, settings: TestScenes.exact())
        for p in 0..<16 { #expect(abs(Int(out.rgba[p * 4]) - 188) <= 2, "pixel \(p): \(out.rgba[p * 4])") }
    }

    @Test func undecodableTexturesFallBackToTheFactorColour() throws {
        let png = PNGWriter.header(width: 30000, height: 30000)
        let factor = SIMD4<Float>(0.5, 0.25, 1, 1)
        let scene = Self.texturedQuad(texture: png, factor: factor)
        let layered = TestScenes.layered(scene)
        let rs = RenderScene(RenderContext.source(layered), textureBudget: 256 << 20, maxTextureSize: 2048)
        #expect(rs.warnings.contains { $0.code == ThumbnailerError.Code.textureTooLarge.rawValue })
        let out = TestScenes.render(
            scene, camera: TestScenes.pixelCamera(width: 2, height: 2), width: 2, height: 2,
            settings: TestScenes.exact())
        let expected = [ColorSpace.linearToSRGBTable[8192], ColorSpace.linearToSRGBTable[4096], 255]
        #expect(Array(out.rgba[0..<3]) == expected)
        // The public entry reports the warning too.
        var options = ThumbnailOptions()
        options.views = [.hero]
        options.sizes.hero = ThumbnailSize(width: 64, height: 48)
        options.supersampling = 1
        let result = try Thumbnailer.render(layered, options: options)
        #expect(result.warnings.contains { $0.code == ThumbnailerError.Code.textureTooLarge.rawValue })
    }

    @Test func webpRoundTripsThroughLibwebp() throws {
        var rgba = [UInt8](repeating: 255, count: 96 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<96 { rgba[(y * 96 + x) * 4] = UInt8(x * 2); rgba[(y * 96 + x) * 4 + 1] = UInt8(y * 3) }
        }
        let webp = try #require(WebPCodec.encode(rgba: rgba, width: 96, height: 64, quality: 80, method: 3))
        #expect(Array(webp.prefix(4)) == Array("RIFF".utf8) && Array(webp[8..<12]) == Array("WEBP".utf8))
        let back = try #require(WebPCodec.decode(webp))
        #expect(back.width == 96 && back.height == 64)
        let i = (32 * 96 + 48) * 4
        #expect(abs(Int(back.rgba[i]) - 96) <= 8 && abs(Int(back.rgba[i + 1]) - 96) <= 8)
        // Same pixels, same bytes.
        #expect(WebPCodec.encode(rgba: rgba, width: 96, height: 64, quality: 80, method: 3) == webp)
        #expect(WebPCodec.decode([1, 2, 3]) == nil)
    }
}
