/// A structural check of a JPEG stream, in pure Swift, before libjpeg sees it.
///
/// libjpeg reports fatal errors through `error_exit`, which must not return; Swift cannot unwind
/// through C frames, so every condition libjpeg treats as fatal for the supported subset is
/// checked here first: markers and their lengths, one baseline/extended/progressive 8-bit frame
/// with 1 or 3 components, valid sampling factors, Huffman tables (counts, canonical code
/// overflow, DC symbol range), quantisation tables defined before their first scan, scan headers
/// (components, tables, spectral selection and successive approximation) and a bounded number of
/// scans. Corrupt entropy-coded data only raises libjpeg warnings and is left to it.
enum JPEGValidator {
    struct Info: Sendable, Equatable {
        var width: Int
        var height: Int
        var components: Int
        var progressive: Bool
        var scans: Int
    }

    static let maxScans = 1000

    static func validate(_ b: [UInt8], maxSide: Int) -> Result<Info, ImageDecodeFailure> {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return .failure(Scanner.failure("no SOI marker")) }
        var scanner = Scanner(b: b, maxSide: maxSide)
        do throws(ImageDecodeFailure) {
            return .success(try scanner.run())
        } catch {
            return .failure(error)
        }
    }

    /// The walk over the stream's markers and what it has seen so far: the frame header, the
    /// tables defined and the number of scans.
    private struct Scanner {
        typealias Frame = (width: Int, height: Int, progressive: Bool, ids: [UInt8], tq: [UInt8], hv: [(UInt8, UInt8)])

        let b: [UInt8]
        let n: Int
        let maxSide: Int
        var pos = 2
        var frame: Frame?
        var quantDefined = [Bool](repeating: false, count: 4)
        var dcDefined = [Bool](repeating: false, count: 4)
        var acDefined = [Bool](repeating: false, count: 4)
        var scans = 0

        init(b: [UInt8], maxSide: Int) {
            self.b = b
            self.n = b.count
            self.maxSide = maxSide
        }

        /// The failure with `m` as its message (prefixed `JPEG: `).
        static func failure(
            _ m: String, _ code: ThumbnailerError.Code = .textureDecodeFailed
        ) -> ImageDecodeFailure {
            ImageDecodeFailure(code: code, message: "JPEG: \(m)")
        }

        /// Reads every marker up to EOI (or the end of the data) and returns what the stream
        /// declares.
        mutating func run() throws(ImageDecodeFailure) -> Info {
            while pos < n {
                // Find the next marker: 0xFF (fill bytes allowed) then a non-zero code.
                guard b[pos] == 0xFF else {
                    // Garbage between markers: libjpeg skips it with a warning.
                    pos += 1
                    continue
                }
                var p = pos + 1
                while p < n && b[p] == 0xFF { p += 1 }
                guard p < n else { break }
                let marker = b[p]
                pos = p + 1
                if marker == 0x00 { continue }
                if marker == 0xD9 { break }  // EOI
                if marker >= 0xD0 && marker <= 0xD7 { continue }  // stray RST: libjpeg resyncs with a warning
                if marker == 0x01 { continue }  // TEM, no length
                guard pos + 2 <= n else { break }  // truncated: libjpeg pads with a warning
                let length = Int(b[pos]) << 8 | Int(b[pos + 1])
                guard length >= 2 else { throw Self.failure("marker 0x\(JPEGValidator.hex(marker)) has length \(length)") }
                let segment = Segment(b: b, seg: pos + 2, end: pos + length, n: n, length: length)
                switch marker {
                case 0xC0, 0xC1, 0xC2:
                    try readFrame(segment, progressive: marker == 0xC2)
                case 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
                    throw Self.failure(
                        "lossless, hierarchical or arithmetic-coded JPEG is not supported",
                        .textureUnsupported)
                case 0xC4:
                    try readHuffmanTables(segment)
                case 0xDB:
                    try readQuantisationTables(segment)
                case 0xDD:
                    guard length == 4 else { throw Self.failure("bad restart interval length") }
                case 0xDC, 0xDE, 0xDF:
                    throw Self.failure("DNL and hierarchical markers are not supported", .textureUnsupported)
                case 0xDA:
                    try readScan(segment)
                    pos = entropyCodedEnd(from: segment.end)
                    continue
                default:
                    break  // APPn, COM and others: skipped by length
                }
                pos = segment.end
            }
            guard let f = frame else { throw Self.failure("no frame header") }
            guard scans > 0 else { throw Self.failure("no scan") }
            return Info(width: f.width, height: f.height, components: f.ids.count, progressive: f.progressive, scans: scans)
        }

        /// A marker segment: its payload starts at `seg` and ends at `end` (which may lie past
        /// the data's `n` bytes when truncated).
        struct Segment {
            let b: [UInt8]
            let seg: Int, end: Int, n: Int, length: Int

            /// The payload's byte `i`, nil past the segment or the data.
            func byte(_ i: Int) -> Int? { seg + i < min(end, n) ? Int(b[seg + i]) : nil }
        }

        /// A frame header (SOF0, SOF1 or SOF2): size, components and their sampling factors.
        mutating func readFrame(_ s: Segment, progressive: Bool) throws(ImageDecodeFailure) {
            guard frame == nil else { throw Self.failure("more than one frame header") }
            guard s.length >= 8, let precision = s.byte(0), let h0 = s.byte(1), let h1 = s.byte(2), let w0 = s.byte(3),
                let w1 = s.byte(4), let nc = s.byte(5)
            else { throw Self.failure("truncated frame header") }
            guard precision == 8 else { throw Self.failure("\(precision)-bit samples are not supported") }
            let height = h0 << 8 | h1, width = w0 << 8 | w1
            guard width > 0, height > 0 else { throw Self.failure("frame declares \(width)×\(height)") }
            guard width <= maxSide, height <= maxSide else {
                throw Self.failure(
                    "frame declares \(width)×\(height); the limit is \(maxSide) per side",
                    .textureTooLarge)
            }
            guard nc == 1 || nc == 3 else {
                throw Self.failure("\(nc) colour components are not supported", .textureUnsupported)
            }
            guard s.length == 8 + 3 * nc, s.end <= n else { throw Self.failure("bad frame header length") }
            var ids: [UInt8] = [], tq: [UInt8] = [], hv: [(UInt8, UInt8)] = []
            var blocks = 0
            for c in 0..<nc {
                let id = UInt8(s.byte(6 + 3 * c)!), sampling = s.byte(7 + 3 * c)!, q = s.byte(8 + 3 * c)!
                let h = sampling >> 4, v = sampling & 15
                guard (1...4).contains(h), (1...4).contains(v) else { throw Self.failure("bad sampling factors") }
                guard q < 4 else { throw Self.failure("bad quantisation table index") }
                guard !ids.contains(id) else { throw Self.failure("duplicate component id") }
                ids.append(id)
                tq.append(UInt8(q))
                hv.append((UInt8(h), UInt8(v)))
                blocks += h * v
            }
            guard nc == 1 || blocks <= 10 else { throw Self.failure("too many blocks per MCU") }
            frame = (width, height, progressive, ids, tq, hv)
        }

        /// A DHT segment: each table's class and slot, code counts, canonical code overflow and
        /// (DC tables) symbol range.
        mutating func readHuffmanTables(_ s: Segment) throws(ImageDecodeFailure) {
            let end = s.end
            guard end <= n else { throw Self.failure("truncated Huffman table") }
            var q = s.seg
            while q < end {
                let tc = Int(b[q]) >> 4, th = Int(b[q]) & 15
                guard tc <= 1, th <= 3 else { throw Self.failure("bad Huffman table index") }
                guard q + 17 <= end else { throw Self.failure("truncated Huffman table") }
                var counts = [Int](repeating: 0, count: 17)
                var total = 0
                for l in 1...16 {
                    counts[l] = Int(b[q + l])
                    total += counts[l]
                }
                guard total <= 256, q + 17 + total <= end else { throw Self.failure("bad Huffman table counts") }
                var code = 0
                for l in 1...16 {
                    code += counts[l]
                    if code > 0 || counts[l] > 0 {
                        guard code < (1 << l) else { throw Self.failure("Huffman code lengths overflow") }
                    }
                    code <<= 1
                }
                if tc == 0 {
                    for i in 0..<total where b[q + 17 + i] > 15 { throw Self.failure("bad DC Huffman symbol") }
                    dcDefined[th] = true
                } else {
                    acDefined[th] = true
                }
                q += 17 + total
            }
            guard q == end else { throw Self.failure("bad Huffman segment length") }
        }

        /// A DQT segment: each table's precision, slot and length.
        mutating func readQuantisationTables(_ s: Segment) throws(ImageDecodeFailure) {
            let end = s.end
            guard end <= n else { throw Self.failure("truncated quantisation table") }
            var q = s.seg
            while q < end {
                let pq = Int(b[q]) >> 4, tq = Int(b[q]) & 15
                guard pq <= 1, tq <= 3 else { throw Self.failure("bad quantisation table") }
                let size = 1 + 64 * (pq + 1)
                guard q + size <= end else { throw Self.failure("truncated quantisation table") }
                quantDefined[tq] = true
                q += size
            }
        }

        /// A scan header (SOS): its components and the tables they use, then the spectral
        /// selection and successive approximation (progressive) or the blocks per MCU.
        mutating func readScan(_ s: Segment) throws(ImageDecodeFailure) {
            guard let f = frame else { throw Self.failure("scan before frame header") }
            guard let ns = s.byte(0), (1...4).contains(ns), s.length == 6 + 2 * ns, s.end <= n else {
                throw Self.failure("bad scan header")
            }
            var seen: [UInt8] = []
            for c in 0..<ns {
                let id = UInt8(s.byte(1 + 2 * c)!), tables = s.byte(2 + 2 * c)!
                guard let k = f.ids.firstIndex(of: id), !seen.contains(id) else {
                    throw Self.failure("bad scan component")
                }
                seen.append(id)
                guard quantDefined[Int(f.tq[k])] else { throw Self.failure("quantisation table used before definition") }
                let td = tables >> 4, ta = tables & 15
                guard td <= 3, ta <= 3 else { throw Self.failure("bad Huffman table selector") }
                let ss = s.byte(1 + 2 * ns)!, se = s.byte(2 + 2 * ns)!
                if !f.progressive || ss == 0 {
                    let needsDC = !f.progressive || (s.byte(3 + 2 * ns)! >> 4) == 0
                    if needsDC {
                        guard dcDefined[td] else { throw Self.failure("DC Huffman table used before definition") }
                    }
                }
                if !f.progressive || se > 0 {
                    if !f.progressive || ss > 0 {
                        guard acDefined[ta] else { throw Self.failure("AC Huffman table used before definition") }
                    }
                }
            }
            let ss = s.byte(1 + 2 * ns)!, se = s.byte(2 + 2 * ns)!, a = s.byte(3 + 2 * ns)!
            let ah = a >> 4, al = a & 15
            if f.progressive {
                var bad = false
                if ss == 0 { bad = se != 0 } else { bad = se < ss || se > 63 || ns != 1 }
                if ah != 0 && al != ah - 1 { bad = true }
                if al > 13 { bad = true }
                if bad { throw Self.failure("bad progression parameters") }
            } else {
                let blocks = f.hv.indices.filter { seen.contains(f.ids[$0]) }
                    .reduce(0) { $0 + (ns == 1 ? 1 : Int(f.hv[$1].0) * Int(f.hv[$1].1)) }
                guard blocks <= 10 else { throw Self.failure("too many blocks per MCU") }
            }
            scans += 1
            guard scans <= JPEGValidator.maxScans else { throw Self.failure("more than \(JPEGValidator.maxScans) scans") }
        }

        /// Where the entropy-coded data that starts at `start` ends: the next marker that is not
        /// a stuffed zero, a restart marker or a fill byte.
        func entropyCodedEnd(from start: Int) -> Int {
            var q = start
            while q + 1 < n {
                if b[q] == 0xFF {
                    let m = b[q + 1]
                    if m == 0x00 || (m >= 0xD0 && m <= 0xD7) || m == 0xFF { q += m == 0xFF ? 1 : 2; continue }
                    break
                }
                q += 1
            }
            return q
        }
    }

    private static func hex(_ v: UInt8) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }
}
