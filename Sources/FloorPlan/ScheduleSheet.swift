import SceneModel

/// The schedules of a home's plan, on A4 portrait pages after the drawings: the room schedule
/// (each room's name, story, area and perimeter, and the total) and the door and window schedule
/// (kind, width, height, sill height, room and wall of every row of `OpeningSchedule`). Areas are
/// each room's own floor polygon, inside its walls; the total is their sum (the pages say so).
/// Rows run on to further pages, at most `maxPages`.
struct ScheduleSheet {
    static let width = 210.0, height = 297.0, margin = 14.0
    static let rowHeight = 4.6, textSize = 2.5, headerSize = 4.0
    /// Most schedule pages written (a home has one).
    static let maxPages = 20

    let format: MeasureFormatter
    let vocabulary: PlanVocabulary
    private(set) var pages: [PlanSheet] = []
    private var y = 0.0

    init(format: MeasureFormatter, vocabulary: PlanVocabulary) {
        self.format = format
        self.vocabulary = vocabulary
    }

    static func sheets(rooms: [RoomFigures], openings: [OpeningFigures], format: MeasureFormatter, vocabulary: PlanVocabulary,
                       stories: Int) -> [PlanSheet]
    {
        var s = ScheduleSheet(format: format, vocabulary: vocabulary)
        let w = vocabulary.scheduleWords
        let rowHeight = Self.rowHeight
        s.newPage()
        s.heading(w.rooms)
        // Columns: title, start and end (mm from the left margin), numbers right-aligned.
        var roomColumns: [Column] = [(w.room, 0, 90, false), (w.area, 110, 140, true), (w.perimeter, 150, 182, true)]
        if stories > 1 { roomColumns.insert((w.story, 92, 108, false), at: 1) }
        s.row(roomColumns.map(\.title), columns: roomColumns, bold: true)
        for r in rooms.sorted(by: { ($0.story, $0.name) < ($1.story, $1.name) }) {
            var cells = [r.name, format.area(r.area), format.length(r.perimeter)]
            if stories > 1 { cells.insert("\(r.story + 1)", at: 1) }
            s.row(cells, columns: roomColumns)
        }
        var total = [w.total, format.area(rooms.reduce(0) { $0 + $1.area }), ""]
        if stories > 1 { total.insert("", at: 1) }
        s.row(total, columns: roomColumns, bold: true)
        s.note(w.convention)
        s.y += rowHeight
        s.heading(w.openings)
        let cols: [Column] = [
            ("#", 0, 7, true), (w.kind, 10, 30, false), (w.width, 30, 50, true), (w.height, 50, 70, true), (w.sill, 70, 90, true),
            (w.room, 94, 144, false), (w.wall, 146, 182, false),
        ]
        s.row(cols.map(\.title), columns: cols, bold: true)
        for (k, o) in openings.enumerated() {
            s.row([
                "\(k + 1)", vocabulary.openingKind(o.kind), format.length(o.width), o.height.map(format.length) ?? "–",
                o.sillHeight.map(format.length) ?? "–", o.rooms.joined(separator: " / "),
                o.walls.map { String($0.prefix(8)) }.joined(separator: " / "),
            ], columns: cols)
        }
        s.note(w.wallNote)
        return s.pages
    }

    private mutating func newPage() {
        guard pages.count < Self.maxPages else { return }
        var page = PlanSheet(story: 0, width: Self.width, height: Self.height, scale: 1, origin: .zero, items: [], title: "")
        page.kind = .schedule
        page.contentMin = .zero
        page.contentMax = SIMD2(Self.width, Self.height)
        pages.append(page)
        y = Self.margin
    }

    private mutating func add(_ item: PlanItem) {
        guard !pages.isEmpty else { return }
        pages[pages.count - 1].items.append(item)
    }

    private mutating func text(_ s: String, x: Double, size: Double, bold: Bool = false, right: Bool = false) {
        let w = SheetDrawing.textWidth(s, size: size)
        add(.text(s, at: SIMD2(right ? x - w / 2 : x + w / 2, y), size: size, angle: 0, colour: PlanColours.text, bold: bold,
                  role: .schedule, layer: .text))
    }

    /// Room for `lines` more rows, else a new page.
    private mutating func need(_ lines: Double) {
        if y + lines * Self.rowHeight > Self.height - Self.margin { newPage() }
    }

    private mutating func heading(_ s: String) {
        need(3)
        y += Self.rowHeight / 2
        text(s, x: Self.margin, size: Self.headerSize, bold: true)
        y += Self.rowHeight * 1.3
    }

    typealias Column = (title: String, from: Double, to: Double, right: Bool)

    /// One row: each cell in its column (mm from the left margin), numbers right-aligned, cut to
    /// fit the column.
    private mutating func row(_ cells: [String], columns: [Column], bold: Bool = false) {
        need(1)
        for (k, cell) in cells.enumerated() where k < columns.count && !cell.isEmpty {
            let col = columns[k]
            var c = cell
            while c.count > 1, SheetDrawing.textWidth(c, size: Self.textSize) > col.to - col.from - 1 { c = String(c.dropLast(2)) + "…" }
            text(c, x: Self.margin + (col.right ? col.to : col.from), size: Self.textSize, bold: bold, right: col.right)
        }
        let line = y + Self.rowHeight / 2
        add(.line(SIMD2(Self.margin, line), SIMD2(Self.width - Self.margin, line), width: bold ? 0.3 : 0.12,
                  colour: PlanColours.dimension, layer: .dimensions))
        y += Self.rowHeight
    }

    private mutating func note(_ s: String) {
        need(1)
        y += Self.rowHeight / 3
        text(s, x: Self.margin, size: 2.1)
        y += Self.rowHeight
    }
}
