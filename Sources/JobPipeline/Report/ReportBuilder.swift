import FoundationEssentials
import JSONCore
import WorkerCore

/// Writes `report.html`: one self-contained page that shows a converted room to people — inputs,
/// quality grade, metrics, the rendered views, layers, elements, warnings and files. Everything on
/// the page comes from the pipeline's result: the manifest for facts, the thumbnail files for the
/// images (embedded as `data:` URIs). The page loads nothing and runs no script; a
/// Content-Security-Policy forbids both. All text from the inputs is HTML-escaped.
public enum ReportBuilder {
    /// The report's path in the output directory.
    public static let fileName = "report.html"

    /// A manifest object as parsed (`JSONReader`, the manifest's own limits).
    typealias Object = ParsedJSON

    /// Builds the report of one conversion.
    ///
    /// - Parameter result: what `TranscodePipeline.run` returned. Its `files` must hold
    ///   `layer_manifest.json`; thumbnails listed in the manifest are embedded from the files of the
    ///   same paths (a listed thumbnail with no file is left out). `result` is only read.
    /// - Returns: the page as UTF-8 bytes, owned by the caller. Deterministic: the same result gives
    ///   the same bytes (no timestamps, no host names, no absolute paths). Lengths are shown in
    ///   metres and areas in square metres, in the manifest's frame (glTF: metres, +Y up); sizes in
    ///   bytes.
    /// - Throws: `PipelineError` with code `REPORT_MANIFEST_INVALID` (phase `report`) when
    ///   `layer_manifest.json` is missing or is not a JSON object.
    /// Builds the report of `result` and inserts it into its files before the manifest (which
    /// stays the last file written), with its time as the `report` phase. Throws as `build`.
    public static func add(to result: inout PipelineResult) throws(PipelineError) {
        let t0 = Clock.now()
        let page = try build(result: result)
        let at = result.files.lastIndex { $0.path == "layer_manifest.json" } ?? result.files.endIndex
        result.files.insert((fileName, page), at: at)
        result.summary.phaseMilliseconds.append((JobPhase.report, Clock.ms(t0, Clock.now())))
    }

    public static func build(result: PipelineResult) throws(PipelineError) -> [UInt8] {
        guard let manifestBytes = result.files.last(where: { $0.path == "layer_manifest.json" })?.bytes else {
            throw PipelineError(code: PipelineError.Code.reportManifestInvalid, message: "the result has no layer_manifest.json",
                                phase: .report)
        }
        guard let manifest = try? JSONReader.parse(manifestBytes, limits: .manifest), case .object = manifest else {
            throw PipelineError(code: PipelineError.Code.reportManifestInvalid, message: "layer_manifest.json is not a JSON object",
                                phase: .report)
        }
        var files: [String: [UInt8]] = [:]
        for f in result.files { files[f.path] = f.bytes }

        var h = ""
        // Base64 of the embedded images (4 characters per 3 bytes) plus the tables.
        h.reserveCapacity(result.files.filter { $0.path.hasSuffix(".webp") }.reduce(0) { $0 + $1.bytes.count } * 4 / 3 + 65_536)
        head(&h, manifest)
        h += "<body>\n<main>\n"
        header(&h, manifest)
        metrics(&h, manifest)
        views(&h, manifest, files: files)
        floorPlan(&h, manifest, files: files)
        layers(&h, manifest)
        elements(&h, manifest)
        warnings(&h, manifest)
        fileTables(&h, manifest, outputs: result.files)
        footer(&h, manifest)
        h += "</main>\n</body>\n</html>\n"
        return Array(h.utf8)
    }

    // MARK: page sections

    private static func head(_ h: inout String, _ m: Object) {
        let names = inputNames(m)
        h += """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'" />
            <title>Room report · \(e(names.isEmpty ? "conversion" : names.joined(separator: " + ")))</title>
            <style>
            \(style)
            </style>
            </head>

            """
    }

    private static func header(_ h: inout String, _ m: Object) {
        let names = inputNames(m)
        let generator = obj(m, "generator")
        let source = obj(m, "source")
        let quality = obj(m, "quality")
        let grade = str(quality, "grade")
        let gradeClass = ["A", "B", "C"].contains(grade ?? "") ? grade! : "none"

        h += "<header class=\"top\">\n<div class=\"title\">\n<p class=\"eyebrow\">CrowdRoom · room report</p>\n"
        h += "<h1>" + (names.isEmpty ? "(no input)" : names.map(e).joined(separator: " <span class=\"plus\">+</span> ")) + "</h1>\n"
        var facts: [String] = []
        facts.append("Generated by <strong>\(e(str(generator, "name") ?? "?")) \(e(str(generator, "version") ?? "?"))</strong>")
        if let format = str(source, "format") {
            let roomPlan = bool(source, "is_roomplan") == true
            facts.append("source \(e(format))" + (roomPlan ? " (RoomPlan)" : ""))
        }
        if let v = int(m, "schema_version") { facts.append("manifest schema \(v)") }
        h += "<p class=\"sub\">" + facts.joined(separator: " · ") + "</p>\n</div>\n"
        h += "<div class=\"grade-box\"><div class=\"grade grade-\(gradeClass)\">\(e(grade ?? "–"))</div>"
        h += "<div class=\"grade-label\">quality grade</div></div>\n</header>\n"

        // Why the grade is what it is.
        h += "<section class=\"card quality\">\n<h2>Quality</h2>\n"
        var rules: [String] = []
        if let share = num(quality, "high_confidence_wall_share") {
            rules.append(rule("High-confidence walls", "\(HTML.fixed(share * 100, 0)) %", str(quality, "wall_confidence_grade")))
        }
        if let n = int(quality, "furniture_count") {
            rules.append(rule("Furniture", "\(n) object" + (n == 1 ? "" : "s"), str(quality, "furniture_grade")))
        }
        if let closed = bool(quality, "walls_closed") {
            rules.append(rule("Walls closed", closed ? "yes" : "no", str(quality, "closure_grade")))
        }
        if !rules.isEmpty { h += "<div class=\"rules\">" + rules.joined() + "</div>\n" }
        let notes = list(quality, "notes").compactMap(\.stringValue)
        if notes.isEmpty {
            h += "<p class=\"muted\">" + (grade == nil ? "Not graded: the input is not a room." : "The manifest gives no reasons.") + "</p>\n"
        } else {
            h += "<ul class=\"notes\">\n" + notes.map { "<li>\(e($0))</li>\n" }.joined() + "</ul>\n"
        }
        h += "</section>\n"
    }

    private static func rule(_ name: String, _ value: String, _ grade: String?) -> String {
        let g = grade.map { "<span class=\"mini grade-\(["A", "B", "C"].contains($0) ? $0 : "none")\">\(e($0))</span>" } ?? ""
        return "<div class=\"rule\"><span class=\"k\">\(e(name))</span><span class=\"v\">\(e(value))</span>\(g)</div>"
    }

    private static func metrics(_ h: inout String, _ m: Object) {
        let metrics = obj(m, "metrics")
        let perLayer = obj(metrics, "counts_per_layer")
        func count(_ layer: String) -> Int { int(perLayer, layer) ?? 0 }
        let objects = keys(perLayer).filter { $0.hasPrefix("objects.") }.reduce(0) { $0 + (int(perLayer, $1) ?? 0) }
        func metres(_ key: String) -> String { num(metrics, key).map { HTML.fixed($0, 2) + " m" } ?? "—" }

        var cards: [(String, String, String?)] = []
        let area = num(metrics, "floor_area").map { HTML.fixed($0, 2) + " m²" } ?? "—"
        cards.append(("Floor area", area, num(metrics, "floor_area") == nil ? nil : str(metrics, "floor_area_source").map { "from \($0)" }))
        cards.append(("Perimeter", metres("perimeter"), nil))
        cards.append(("Ceiling height", metres("ceiling_height"), "median wall height"))
        cards.append(("Walls", String(int(metrics, "wall_count") ?? count("walls")), "total length " + metres("wall_length")))
        cards.append(("Doors", String(count("doors")), nil))
        cards.append(("Windows", String(count("windows")), nil))
        cards.append(("Openings", String(count("openings")), nil))
        cards.append(("Floors", String(count("floors")), nil))
        cards.append(("Objects", String(objects), nil))
        let elementCount = list(m, "elements").count
        let stories = list(m, "stories").compactMap(\.intValue)
        // Scans that record no story (RoomPlan before iOS 17) say nothing rather than "0 stories".
        cards.append(("Elements", String(elementCount),
                      stories.isEmpty ? nil : "\(stories.count) stor" + (stories.count == 1 ? "y" : "ies")))
        cards.append(("Sections", String(list(m, "sections").count), nil))
        let stats = obj(m, "stats")
        cards.append(("Triangles", HTML.grouped(int(stats, "triangles") ?? 0),
                      "\(int(stats, "meshes") ?? 0) meshes, \(int(stats, "materials") ?? 0) materials"))

        h += "<section>\n<h2>Metrics</h2>\n<div class=\"metrics\">\n"
        for (k, v, note) in cards {
            h += "<div class=\"metric\"><div class=\"k\">\(e(k))</div><div class=\"v\">\(e(v))</div>"
            if let note { h += "<div class=\"n\">\(e(note))</div>" }
            h += "</div>\n"
        }
        h += "</div>\n"
        let perStory = obj(metrics, "counts_per_story")
        if keys(perStory).count > 1 {
            let parts = keys(perStory).sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { key in
                (key == "-1" ? "no story" : "story \(key)") + ": \(int(perStory, key) ?? 0)"
            }
            h += "<p class=\"muted\">Elements per story: \(e(parts.joined(separator: ", ")))</p>\n"
        }
        h += "</section>\n"
    }

    private static func views(_ h: inout String, _ m: Object, files: [String: [UInt8]]) {
        let thumbs = objects(m, "thumbnails")
        func shown(_ kind: String) -> [(Object, [UInt8])] {
            thumbs.filter { str($0, "kind") == kind }
                .sorted { (str($0, "path") ?? "") < (str($1, "path") ?? "") }
                .compactMap { t in str(t, "path").flatMap { files[$0] }.map { (t, $0) } }
        }
        let hero = shown("hero"), plan = shown("plan"), orbit = shown("orbit")
        h += "<section>\n<h2>Views</h2>\n"
        if hero.isEmpty && plan.isEmpty && orbit.isEmpty {
            let skipped = objects(m, "warnings").contains { str($0, "code") == "THUMB_SKIPPED" }
            let why: String
            if skipped {
                why = "No thumbnails: the scene has nothing to draw (THUMB_SKIPPED)."
            } else if thumbs.isEmpty {
                why = "Thumbnails are disabled for this conversion (--no-thumbnails), so there are no views to show."
            } else {
                why = "No hero, plan or orbit view was rendered (only: "
                    + Set(thumbs.compactMap { str($0, "kind") }).sorted().joined(separator: ", ") + ")."
            }
            h += "<p class=\"empty\">\(e(why))</p>\n</section>\n"
            return
        }
        if !hero.isEmpty || !plan.isEmpty {
            let layout = hero.isEmpty || plan.isEmpty ? "single" : "pair"
            h += "<div class=\"views \(layout)\">\n"
            for (t, bytes) in hero { figure(&h, t, bytes, caption: "Hero view") }
            for (t, bytes) in plan { figure(&h, t, bytes, caption: "Floor plan (top-down)") }
            h += "</div>\n"
        }
        if !orbit.isEmpty {
            h += "<h3>Orbit (\(orbit.count) view\(orbit.count == 1 ? "" : "s") around the room)</h3>\n<div class=\"orbit\">\n"
            for (t, bytes) in orbit {
                let name = PathText.lastComponent(str(t, "path") ?? "")
                figure(&h, t, bytes, caption: PathText.deletingExtension(name), showPath: false)
            }
            h += "</div>\n"
        }
        let rooms = shown("room_card")
        if !rooms.isEmpty {
            h += "<h3>Rooms (\(rooms.count) seen from above)</h3>\n<div class=\"orbit\">\n"
            for (t, bytes) in rooms { figure(&h, t, bytes, caption: str(t, "room") ?? "Room", showPath: false) }
            h += "</div>\n"
        }
        h += "</section>\n"
    }

    private static func figure(_ h: inout String, _ t: Object, _ bytes: [UInt8], caption: String, showPath: Bool = true) {
        let path = str(t, "path") ?? ""
        let w = int(t, "width") ?? 0, hh = int(t, "height") ?? 0
        let kind = str(t, "kind") ?? "view"
        h += "<figure class=\"shot shot-\(e(kind))\">"
        h += "<img src=\"\(HTML.dataURI(mimeType: "image/webp", bytes: bytes))\" width=\"\(w)\" height=\"\(hh)\""
        h += " alt=\"\(e(caption))\" data-path=\"\(e(path))\" />"
        h += "<figcaption><span>\(e(caption))</span><span class=\"muted\">\(w) × \(hh)" + (showPath ? " · \(e(path))" : "")
        h += "</span></figcaption>"
        h += "</figure>\n"
    }

    private static func layers(_ h: inout String, _ m: Object) {
        let layers = objects(m, "layers")
        h += "<section>\n<h2>Layers</h2>\n"
        if layers.isEmpty {
            h += "<p class=\"empty\">No layers.</p>\n"
        } else {
            h += "<table>\n<thead><tr><th>Layer</th><th>Node</th><th>Kind</th><th class=\"num\">Elements</th>"
            h += "<th class=\"num\">Triangles</th><th>Shown by default</th></tr></thead>\n<tbody>\n"
            for l in layers {
                h += "<tr><td class=\"mono\">\(e(str(l, "id") ?? "?"))</td><td class=\"mono\">\(e(str(l, "node_name") ?? "—"))</td>"
                h += "<td>\(e(str(l, "kind") ?? "—"))</td>"
                h += "<td class=\"num\">\(int(l, "element_count") ?? 0)</td><td class=\"num\">\(HTML.grouped(int(l, "triangles") ?? 0))</td>"
                h += "<td>\(bool(l, "default_visible") == false ? "no" : "yes")</td></tr>\n"
            }
            h += "</tbody>\n</table>\n"
        }
        let sections = objects(m, "sections")
        if !sections.isEmpty {
            h += "<h3>Sections</h3>\n<p class=\"muted\">RoomPlan sections are labelled points; RoomPlan does not assign elements to them.</p>\n"
            h += "<table>\n<thead><tr><th>Label</th><th>Story</th><th>Centre x, y, z (m)</th></tr></thead>\n<tbody>\n"
            for s in sections {
                h += "<tr><td>\(e(str(s, "label") ?? "?"))</td><td>\(int(s, "story").map(String.init) ?? "—")</td>"
                h += "<td class=\"mono\">\(e(vector(s.member("center"), separator: ", ") ?? "—"))</td></tr>\n"
            }
            h += "</tbody>\n</table>\n"
        }
        h += "</section>\n"
    }

    private static func elements(_ h: inout String, _ m: Object) {
        let elements = objects(m, "elements")
        h += "<section>\n<h2>Elements (\(elements.count))</h2>\n"
        if elements.isEmpty {
            h += "<p class=\"empty\">No elements.</p>\n</section>\n"
            return
        }
        h += "<table class=\"elements\">\n<thead><tr><th class=\"num\">#</th><th>Identifier</th><th>Category</th><th>Layer</th>"
        h += "<th class=\"num\">W × H × D (m)</th><th>Confidence</th><th>Geometry</th><th>Story</th></tr></thead>\n<tbody>\n"
        for (i, el) in elements.enumerated() {
            var category = e(str(el, "category") ?? "?")
            if let attributes = obj(el, "attributes"), !keys(attributes).isEmpty {
                let text = keys(attributes).sorted().map { "\($0): \(str(attributes, $0) ?? "?")" }.joined(separator: ", ")
                category += "<div class=\"attrs\">\(e(text))</div>"
            }
            if let open = bool(el, "is_open") { category += "<div class=\"attrs\">\(open ? "open" : "closed")</div>" }
            let confidence = str(el, "confidence")
            let confidenceClass = ["high", "medium", "low"].contains(confidence ?? "") ? confidence! : "none"
            // The node's name, when loaders show it under another name than the identifier.
            var identifier = e(str(el, "identifier") ?? "?")
            if let node = str(el, "node_name"), node != str(el, "identifier") {
                identifier += "<div class=\"attrs\">node \(e(node))</div>"
            }
            h += "<tr><td class=\"num muted\">\(i + 1)</td><td class=\"mono id\">\(identifier)</td>"
            h += "<td>\(category)</td><td class=\"mono\">\(e(str(el, "layer") ?? "?"))</td>"
            h += "<td class=\"num\">\(e(vector(el.member("dimensions"), separator: " × ") ?? "—"))</td>"
            h += "<td><span class=\"chip conf-\(confidenceClass)\">\(e(confidence ?? "—"))</span></td>"
            h += "<td>\(e(str(el, "geometry") ?? "—"))</td><td>\(int(el, "story").map(String.init) ?? "—")</td></tr>\n"
        }
        h += "</tbody>\n</table>\n</section>\n"
    }

    private static func warnings(_ h: inout String, _ m: Object) {
        let warnings = objects(m, "warnings")
        h += "<section>\n<h2>Warnings (\(warnings.count))</h2>\n"
        if warnings.isEmpty {
            h += "<p class=\"empty\">None.</p>\n</section>\n"
            return
        }
        h += "<table class=\"warnings\">\n<thead><tr><th>Code</th><th>Message</th><th>Path</th></tr></thead>\n<tbody>\n"
        for w in warnings {
            h += "<tr><td class=\"mono\">\(e(str(w, "code") ?? "?"))</td><td>\(e(str(w, "message") ?? ""))</td>"
            h += "<td class=\"mono id\">\(e(str(w, "prim_path") ?? "—"))</td></tr>\n"
        }
        h += "</tbody>\n</table>\n</section>\n"
    }

    private static func fileTables(_ h: inout String, _ m: Object, outputs: [(path: String, bytes: [UInt8])]) {
        let inputs = objects(m, "inputs")
        h += "<section>\n<h2>Files</h2>\n<h3>Inputs</h3>\n"
        if inputs.isEmpty {
            h += "<p class=\"empty\">None.</p>\n"
        } else {
            h += "<table>\n<thead><tr><th>Name</th><th>Role</th><th>Format</th><th class=\"num\">Size</th><th>SHA-256</th></tr></thead>\n<tbody>\n"
            for f in inputs {
                h += "<tr><td class=\"mono id\">\(e(str(f, "name") ?? "?"))</td><td>\(e(str(f, "role") ?? "?"))</td>"
                h += "<td>\(e(str(f, "format") ?? "?"))</td><td class=\"num\">\(HTML.byteSize(int(f, "bytes") ?? 0))</td>"
                h += "<td class=\"mono hash\">\(e(str(f, "sha256") ?? "—"))</td></tr>\n"
            }
            h += "</tbody>\n</table>\n"
        }
        h += "<h3>Outputs</h3>\n<table>\n<thead><tr><th>Path</th><th class=\"num\">Size</th></tr></thead>\n<tbody>\n"
        var total = 0
        for f in outputs {
            total += f.bytes.count
            h += "<tr><td class=\"mono\">\(e(f.path))</td><td class=\"num\">\(HTML.byteSize(f.bytes.count))</td></tr>\n"
        }
        h += "<tr><td class=\"mono\">\(e(fileName))</td><td class=\"num muted\">this page</td></tr>\n"
        h += "<tr class=\"total\"><td>Total (without this page)</td><td class=\"num\">\(HTML.byteSize(total))</td></tr>\n"
        h += "</tbody>\n</table>\n"
        if let glb = obj(m, "glb"), let sha = str(glb, "sha256") {
            h += "<p class=\"muted\">\(e(str(glb, "path") ?? "model.glb")) SHA-256 <span class=\"mono\">\(e(sha))</span></p>\n"
        }
        h += "</section>\n"
    }

    private static func footer(_ h: inout String, _ m: Object) {
        let units = obj(m, "units")
        var text = "Lengths and coordinates in metres, areas in square metres, in the model's frame ("
            + (str(units, "output") ?? "metres, +Y up") + ")."
        if let up = str(units, "source_up_axis"), let mpu = num(units, "source_meters_per_unit") {
            text += " Source: up axis \(up), \(formatShortest(mpu)) m per unit."
        }
        h += "<footer>\(e(text))</footer>\n"
    }
}
