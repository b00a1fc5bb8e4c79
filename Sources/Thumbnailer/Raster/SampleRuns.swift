/// Which samples of a tile buffer a pass touches: per buffer row, runs of columns. A full tile
/// has one run per row; with adaptive supersampling a row holds the runs of the pixels that are
/// rendered at the full sample rate. Rows of samples that fall in one pixel row share its runs.
/// Allocated once per worker at the largest tile size and rebuilt for every tile.
struct SampleRuns {
    /// Runs of pixel row j: `spans[first[j] ..< first[j + 1]]`, inclusive buffer columns.
    let first: UnsafeMutablePointer<Int32>
    let spans: UnsafeMutablePointer<SIMD2<Int32>>
    /// Pixel row of each buffer row.
    let pixelRow: UnsafeMutablePointer<Int32>
    let maxPixelRows: Int
    let maxSpans: Int
    let maxRows: Int

    init(maxPixelRows: Int, maxPixelColumns: Int, maxRows: Int) {
        self.maxPixelRows = maxPixelRows
        maxSpans = maxPixelRows * (maxPixelColumns / 2 + 1)
        self.maxRows = maxRows
        first = .allocate(capacity: maxPixelRows + 1)
        spans = .allocate(capacity: maxSpans)
        pixelRow = .allocate(capacity: maxRows)
    }

    func deallocate() {
        first.deallocate()
        spans.deallocate()
        pixelRow.deallocate()
    }

    /// One run over every column of every row.
    func setFull(cols: Int, rows: Int) {
        first[0] = 0
        first[1] = 1
        spans[0] = SIMD2(0, Int32(cols - 1))
        pixelRow.update(repeating: 0, count: rows)
    }

    @inline(__always) func range(row r: Int) -> Range<Int> {
        let j = Int(pixelRow[r])
        return Int(first[j])..<Int(first[j + 1])
    }

    /// The first and last column any run of buffer row `r` covers; nil when the row has none.
    @inline(__always) func bounds(row r: Int) -> (lo: Int, hi: Int)? {
        let k = range(row: r)
        guard !k.isEmpty else { return nil }
        return (Int(spans[k.lowerBound].x), Int(spans[k.upperBound - 1].y))
    }
}
