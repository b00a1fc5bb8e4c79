import Foundation
import Testing
import Manifest
import SceneModel

@testable import TranscodeWorker
@testable import WorkerRuntime
@testable import WorkerCore
@testable import JobPipeline

/// `report.html`: the rendered views are embedded byte for byte, every layer and element is listed,
/// text from the inputs is escaped, nothing is loaded from elsewhere, and the bytes are
/// deterministic; `convert --report` writes it beside the other outputs.
@Suite struct ReportTests {
    static let usdz = "samples/roomplan/parametric_two_sections.usdz"
    static let json = "samples/roomplan/parametric_two_sections.json"
    static let views = ["thumbs/hero.webp", "thumbs/plan.webp"] + (0..<8).map { "thumbs/orbit-0\($0).webp" }

    func convert(thumbnails: Bool = true) throws -> PipelineResult {
        var input = try ConvertTests().input(usd: Self.usdz, json: Self.json)
        if !thumbnails { input.thumbnails = nil }
        return try TranscodePipeline.run(input)
    }

    func manifest(_ r: PipelineResult) throws -> [String: Any] {
        let bytes = try #require(r.files.last { $0.path == "layer_manifest.json" }?.bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func html(_ r: PipelineResult) throws -> String {
        String(decoding: try ReportBuilder.build(result: r), as: UTF8.self)
    }

    /// The page of `r` with its manifest's elements changed by `edit`.
    func html(_ r: PipelineResult, editingElements edit: (inout [ManifestDocument.Element]) -> Void) throws -> String {
        var r = r
        var document = try #require(r.manifest)
        edit(&document.elements)
        r.manifest = document
        return try html(r)
    }

    /// Every `<img>` of the page: its `data-path` and the bytes of its `data:image/webp;base64,` (or,
    /// for the vector floor plan, `data:image/svg+xml;base64,`) source.
    func images(_ html: String) throws -> [(path: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var rest = html[...]
        while let img = rest.range(of: "<img ") {
            let tagEnd = try #require(rest[img.upperBound...].range(of: ">"))
            let tag = rest[img.lowerBound..<tagEnd.upperBound]
            let src = try #require(
                tag.range(of: "src=\"data:image/webp;base64,") ?? tag.range(of: "src=\"data:image/svg+xml;base64,"),
                "an image that is not embedded WebP or SVG: \(tag.prefix(80))")
            let srcEnd = try #require(tag[src.upperBound...].firstIndex(of: "\""))
            let data = try #require(Data(base64Encoded: String(tag[src.upperBound..<srcEnd])))
            let pathStart = try #require(tag.range(of: "data-path=\""))
            let pathEnd = try #require(tag[pathStart.upperBound...].firstIndex(of: "\""))
            out.append((String(tag[pathStart.upperBound..<pathEnd]), [UInt8](data)))
            rest = rest[tagEnd.upperBound...]
        }
        return out
    }

    /// The elements the page is made of; anything else came from text that was not escaped.
    static let allowedElements: Set<String> = [
        "html", "head", "meta", "title", "style", "body", "main", "header", "footer", "section", "div", "p", "span",
        "strong", "h1", "h2", "h3", "ul", "li", "figure", "img", "figcaption", "table", "thead", "tbody", "tr", "th", "td",
    ]

    /// True when every tag of the page is one of `allowedElements`, every element is closed in order
    /// (`<img … />` and `<meta … />` close themselves), and `<`/`>` never appear outside tags
    /// except in the style sheet. Proves that escaped text neither opened nor closed an element.
    func wellFormed(_ html: String) -> Bool {
        var text = Substring(html)
        guard text.hasPrefix("<!DOCTYPE html>") else { return false }
        text = text.dropFirst("<!DOCTYPE html>".count)
        var open: [String] = []
        while let lt = text.firstIndex(of: "<") {
            if text[..<lt].contains(">") { return false }
            guard let gt = text[lt...].firstIndex(of: ">") else { return false }
            var tag = text[text.index(after: lt)..<gt]
            text = text[text.index(after: gt)...]
            let closing = tag.hasPrefix("/")
            if closing { tag = tag.dropFirst() }
            let selfClosing = tag.hasSuffix("/")
            let name = String(tag.prefix { $0.isLetter || $0.isNumber })
            guard Self.allowedElements.contains(name), !tag.dropFirst(name.count).contains("<") else { return false }
            if closing {
                guard open.popLast() == name else { return false }
            } else if !selfClosing {
                open.append(name)
                if name == "style" {
                    guard let end = text.range(of: "</style>") else { return false }
                    text = text[end.lowerBound...]
                }
            }
        }
        return open.isEmpty && !text.contains(">")
    }

    @Test func theRenderedViewsAreEmbeddedByteForByte() throws {
        let r = try convert()
        let page = try html(r)
        let embedded = try images(page)
        #expect(embedded.map(\.path) == Self.views + ["plan.svg"], "hero, plan, the 8 orbit views, then the vector plan")
        for (path, bytes) in embedded {
            let file = try #require(r.files.first { $0.path == path }?.bytes)
            #expect(bytes == file, "\(path) differs from the file")
        }
        #expect(page.components(separatedBy: "data:image/webp;base64,").count - 1 == 10)
        #expect(wellFormed(page))
    }

    @Test func everyLayerAndElementIsListed() throws {
        let r = try convert()
        let page = try html(r)
        let m = try manifest(r)
        let layers = try #require(m["layers"] as? [[String: Any]])
        let elements = try #require(m["elements"] as? [[String: Any]])
        #expect(!layers.isEmpty && elements.count == 21)
        for l in layers {
            let id = try #require(l["id"] as? String)
            // The layer's node under the name three.js and the manifest give it (layer_objects_chair).
            let node = "layer_" + id.replacingOccurrences(of: ".", with: "_")
            #expect(l["node_name"] as? String == node)
            #expect(page.contains("<td class=\"mono\">\(id)</td><td class=\"mono\">\(node)</td>"), "layer \(id)")
        }
        for el in elements {
            let id = try #require(el["identifier"] as? String)
            #expect(el["node_name"] as? String == id, "a RoomPlan UUID names its node as it is")
            #expect(page.contains(">\(id)</td>"), "element \(id)")
        }
        // Header facts: inputs, generator, grade with its reasons, metrics with units.
        #expect(page.contains("parametric_two_sections.usdz") && page.contains("parametric_two_sections.json"))
        #expect(page.contains("crowdroom-transcode-worker \(CommandLineTool.version)"))
        #expect(page.contains("<div class=\"grade grade-A\">A</div>"))
        let notes = try #require((m["quality"] as? [String: Any])?["notes"] as? [String])
        for note in notes { #expect(page.contains(HTML.escape(note))) }
        #expect(page.contains("29.00 m²") && page.contains("2.50 m"))
        #expect(page.contains("<h2>Warnings (0)</h2>") && page.contains("None."))
        // Inputs with sizes and digests, outputs with sizes.
        for input in try #require(m["inputs"] as? [[String: Any]]) {
            #expect(page.contains(try #require(input["sha256"] as? String)))
        }
        for f in r.files { #expect(page.contains("<td class=\"mono\">\(f.path)</td>"), "output \(f.path)") }
    }

    /// The element card counts stories only for scans that record them: "1 story" for the
    /// two-section sample, nothing (not "0 stories") for an iOS 16 scan without story numbers.
    @Test func theStoryCountIsShownOnlyWhenRecorded() throws {
        let withStory = try html(try convert(thumbnails: false))
        #expect(withStory.contains("<div class=\"n\">1 story</div>"))
        var input = try ConvertTests().input(usd: "samples/roomplan/ios16_mesh.usdz", json: "samples/roomplan/ios16_mesh.json")
        input.thumbnails = nil
        let r = try TranscodePipeline.run(input)
        #expect((try manifest(r)["stories"] as? [Any])?.isEmpty == true)
        let page = try html(r)
        #expect(page.contains("<div class=\"k\">Elements</div>"))
        #expect(!page.contains("stories") && !page.contains("1 story"))
    }

    @Test func textFromTheInputsIsEscaped() throws {
        var r = try convert()
        var m = try #require(r.manifest)
        m.elements[0].element.identifier = "<script>document.write('x')</script>"
        m.elements[1].element.category = ElementCategory(rawValue: "</td></tr></table><b>chair</b>")
        m.elements[2].element.attributes = ["Type\"><svg onload=alert(1)>": "a&b"]
        m.inputs[0].name = "\"><img src=x onerror=alert(1)>.usdz"
        m.warnings = [SceneWarning(code: "<script>alert(\"x\")</script>",
                                   message: "Tom & Jerry's \"room\" </td><iframe src=javascript:alert(1)>\u{1}",
                                   primPath: "/World/<b>Sofa</b>")]
        r.manifest = m
        let page = try html(r)

        for raw in ["<script", "<svg", "<iframe", "<b>", "<img src=x", "</td></tr></table>"] {
            #expect(!page.lowercased().contains(raw), "\(raw) reached the page unescaped")
        }
        #expect(page.contains("&lt;script&gt;document.write(&#39;x&#39;)&lt;/script&gt;"))
        #expect(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        #expect(page.contains("Tom &amp; Jerry&#39;s &quot;room&quot; &lt;/td&gt;&lt;iframe"))
        #expect(page.contains("/World/&lt;b&gt;Sofa&lt;/b&gt;"))
        #expect(page.contains("Type&quot;&gt;&lt;svg onload=alert(1)&gt;: a&amp;b"))
        #expect(!page.unicodeScalars.contains("\u{1}"))
        #expect(try images(page).count == 11, "no image beyond the thumbnails and the vector plan")
        #expect(wellFormed(page))
    }

    /// An element whose identifier loaders would not keep as a name (a USD path) shows the name
    /// its node has, the one the manifest gives.
    @Test func anElementNodeNamedOtherwiseShowsItsNodeName() throws {
        let page = try html(try convert()) { elements in
            elements[0].element.identifier = "usd:/World/Sofa 1"
            elements[0].nodeName = "usd__World_Sofa_1"
        }
        #expect(page.contains("usd:/World/Sofa 1<div class=\"attrs\">node usd__World_Sofa_1</div></td>"))
        #expect(page.components(separatedBy: "<div class=\"attrs\">node ").count == 2, "only where the names differ")
    }

    @Test func escapeCoversMarkupQuotesAndControlCharacters() {
        #expect(HTML.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
        #expect(HTML.escape("tab\there\nline") == "tab\there\nline")
        #expect(HTML.escape("x\u{0}y\u{1B}z\u{85}\u{FFFF}") == "x\u{FFFD}y\u{FFFD}z\u{FFFD}\u{FFFD}")
        #expect(HTML.escape("Größe 2 m²") == "Größe 2 m²")
        #expect(HTML.grouped(1_234_567) == "1,234,567" && HTML.grouped(999) == "999" && HTML.grouped(-1000) == "-1,000")
        #expect(HTML.fixed(-0.001, 2) == "0.00" && HTML.fixed(2.345, 1) == "2.3" && HTML.fixed(.nan, 2) == "—")
        #expect(HTML.byteSize(812) == "812 B" && HTML.byteSize(41_288) == "41,288 B (40.3 KiB)")
        #expect(wellFormed("<!DOCTYPE html><html><body><p>a &lt;b&gt;</p><img src=\"x\" /></body></html>"))
        #expect(!wellFormed("<!DOCTYPE html><html><body><p><b>unclosed</p></body></html>"))
        #expect(!wellFormed("<!DOCTYPE html><html><body><p><script>x</script></p></body></html>"))
        #expect(!wellFormed("<!DOCTYPE html><html><body><p>a > b</p></body></html>"))
    }

    @Test func thePageLoadsNothingFromElsewhere() throws {
        let page = try html(try convert())
        #expect(!page.contains("http://") && !page.contains("https://"))
        #expect(!page.contains("//:") && !page.contains("src=\"//"))
        #expect(!page.lowercased().contains("<script") && !page.lowercased().contains("<link"))
        #expect(!page.contains("url("))
        #expect(page.contains("default-src 'none'; img-src data:"))
    }

    @Test func theSameInputGivesTheSameBytes() throws {
        let a = try ReportBuilder.build(result: try convert())
        let b = try ReportBuilder.build(result: try convert())
        #expect(a == b)
        #expect(!a.isEmpty)
    }

    @Test func withoutThumbnailsThePageSaysSo() throws {
        let page = try html(try convert(thumbnails: false))
        #expect(page.contains("Thumbnails are disabled"))
        #expect(!page.contains("data:image/webp"))
        #expect(try images(page).map(\.path) == ["plan.svg"], "only the vector floor plan is an image")
        #expect(wellFormed(page))
    }

    @Test func aResultWithoutAManifestIsAnError() throws {
        var r = try convert(thumbnails: false)
        r.manifest = nil
        #expect { try ReportBuilder.build(result: r) } throws: { ($0 as? PipelineError)?.code == "REPORT_MANIFEST_INVALID" }
    }

    /// The page is made from the typed manifest the pipeline wrote from, not from the file's bytes:
    /// the document writes exactly the file, and a page made with the file's bytes replaced is the
    /// same page (less the file's size in the outputs table).
    @Test func thePageReadsTheTypedManifestNotItsBytes() throws {
        var r = try convert()
        let document = try #require(r.manifest)
        #expect(document.bytes == r.files.last?.bytes)
        #expect(r.files.last?.path == "layer_manifest.json")
        let before = try html(r)
        let size = r.files[r.files.count - 1].bytes.count
        r.files[r.files.count - 1].bytes = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        #expect(try html(r) == before)
        // And what the page shows follows the document.
        var renamed = document
        renamed.generator.version = "9.9.9-test"
        r.manifest = renamed
        #expect(try html(r).contains("crowdroom-transcode-worker 9.9.9-test"))
    }

    @Test func convertWithReportWritesThePageBeforeTheManifest() throws {
        #expect(ConvertCommand.help.contains("--report"))
        #expect(try ConvertCommand(["room.usdz", "--out", "o", "--report"]).options.report)
        #expect(try !ConvertCommand(["room.usdz", "--out", "o"]).options.report)

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let status = ConvertCommand.main([ConvertTests.path(Self.usdz), "--roomplan", ConvertTests.path(Self.json),
                                          "--out", out.path, "--report"])
        #expect(status == ExitStatus.ok)
        let written = [UInt8](try Data(contentsOf: out.appendingPathComponent("report.html")))
        #expect(written == (try ReportBuilder.build(result: try convert())))
        for path in Self.views + ["model.glb", "layer_manifest.json"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(path).path), "\(path)")
        }
    }

    @Test(.enabled(if: CommandLineToolTests.binary != nil, "the transcode-worker executable is not built"))
    func theJSONSummaryListsTheReport() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try CommandLineToolTests().run(["convert", Self.usdz, "--roomplan", Self.json, "--out", out.path,
                                                  "--report", "--json"])
        #expect(run.exited && run.status == 0, "\(run.stderr)")
        let files = try #require(run.json?["files"] as? [[String: Any]])
        let paths = files.compactMap { $0["path"] as? String }
        #expect(paths.suffix(2) == ["report.html", "layer_manifest.json"])
        let size = try #require(files.first { $0["path"] as? String == "report.html" }?["bytes"] as? Int)
        let onDisk = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("report.html").path)[.size] as? Int
        #expect(size == onDisk)
        let timing = try #require(run.json?["timing_ms"] as? [String: Any])
        #expect(timing["report"] != nil)
    }
}
