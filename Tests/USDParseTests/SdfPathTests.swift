import Dispatch
import Synchronization
import Testing

@testable import USDParse

/// `SdfPath` as a node chain: text round trips, element accessors, equality and hashing between
/// appended and parsed paths, and an order equal to the order of the canonical strings.
@Suite struct SdfPathTests {
    /// One path of every element kind, and relative forms.
    static let samples = [
        "/", "/A", "/A/B", "/A/B/C", "/A.x", "/A/B.x:y", "/A{v=x}", "/A{v=}", "/A{v=x}B", "/A{v=x}{w=y}",
        "/A{v=x}B.c", "/A{v=x}.c", "/A.rel[/T]", "/A.rel[/T/U.x]", "/A.rel[/T.r[/U]]", "/A.rel[/T].attr",
        "../Sib", "../../Up/Down", "Child", "Child/Grand.attr", ".attr", "..",
    ]

    @Test(arguments: samples)
    func textRoundTrips(_ text: String) {
        let p = SdfPath(text)
        #expect(p.string == text)
        #expect(p.description == text)
        #expect(p.utf8Count == text.utf8.count)
        #expect(p.isAbsolute == text.hasPrefix("/"))
        #expect(p.node?.kind != .opaque)
    }

    @Test func elementAccessors() {
        let p = SdfPath("/A{v=x}B.c")
        #expect(p.isPropertyPath)
        #expect(p.name == "c")
        #expect(p.propertyName == "c")
        #expect(p.primPath == SdfPath("/A{v=x}B"))
        #expect(p.parent == SdfPath("/A{v=x}B"))
        #expect(p.parent.name == "B")
        #expect(p.parent.parent == SdfPath("/A{v=x}"))
        #expect(p.parent.parent.name == "{v=x}")
        #expect(p.parent.parent.variantSelection! == ("v", "x"))
        #expect(p.parent.parent.parent == SdfPath("/A"))
        #expect(SdfPath("/A").parent == .root)
        #expect(SdfPath.root.parent == .empty)
        #expect(SdfPath.root.name == "")
        #expect(SdfPath.empty.isEmpty && SdfPath("").isEmpty && SdfPath.empty.string == "")
        #expect(SdfPath("/").isRoot)

        let target = SdfPath("/A.rel[/T.x]")
        #expect(target.isPropertyPath)
        #expect(target.primPath == SdfPath("/A"))
        #expect(target.propertyName == "rel[/T.x]")
        #expect(target.parent == SdfPath("/A.rel"))
        #expect(!SdfPath("/A/B").isPropertyPath)
        #expect(SdfPath("/A/B").propertyName == nil)
        #expect(SdfPath("/A/B").primPath == SdfPath("/A/B"))
        #expect(SdfPath("Child").parent == .empty)
        #expect(SdfPath("/A{v=x}B").containsVariantSelection && !SdfPath("/A/B").containsVariantSelection)
    }

    @Test func appendedPathsEqualParsedPaths() {
        let built: [(SdfPath, String)] = [
            (SdfPath.root.appendingChild("A").appendingChild("B"), "/A/B"),
            (SdfPath.root.appendingChild("A").appendingProperty("x:y"), "/A.x:y"),
            (SdfPath.root.appendingChild("A").appendingVariantSelection(set: "v", variant: "x").appendingChild("B"), "/A{v=x}B"),
            (SdfPath.root.appendingChild("A").appendingVariantSelection(set: "v", variant: ""), "/A{v=}"),
            (SdfPath.root.appendingChild("A").appendingProperty("rel").appendingElement("[/T]"), "/A.rel[/T]"),
            (SdfPath.root.appendingElement("A").appendingElement("{v=x}").appendingElement("B"), "/A{v=x}B"),
            (SdfPath.empty.appendingChild("A"), "/A"),
        ]
        for (path, text) in built {
            let parsed = SdfPath(text)
            #expect(path == parsed, "\(text)")
            #expect(path.hashValue == parsed.hashValue, "\(text)")
            #expect(path.string == text)
            #expect(Set([path, parsed]).count == 1)
            #expect(!(path < parsed) && !(parsed < path))
        }
        #expect(SdfPath("/A/B") != SdfPath("/A/C"))
        #expect(SdfPath("/A/B") != SdfPath("/A.B"))
        #expect(SdfPath("/A/B") != SdfPath("/A{B=}"))
        #expect(SdfPath("/AB") != SdfPath("/A/B"))
        #expect(SdfPath.root != .empty)
        let dictionary = [SdfPath("/A/B.x"): 1, SdfPath("/A/B"): 2]
        #expect(dictionary[SdfPath.root.appendingChild("A").appendingChild("B").appendingProperty("x")] == 1)
    }

    @Test func prefixesAndRewrites() {
        let p = SdfPath("/A/B{v=x}C.d")
        #expect(p.hasPrefix(.root))
        #expect(p.hasPrefix(SdfPath("/A")))
        #expect(p.hasPrefix(SdfPath("/A/B")))
        #expect(p.hasPrefix(SdfPath("/A/B{v=x}C")))
        #expect(p.hasPrefix(p))
        #expect(!p.hasPrefix(SdfPath("/A/Bx")))
        #expect(!p.hasPrefix(SdfPath("/A/B/C")))
        #expect(!SdfPath("/AB").hasPrefix(SdfPath("/A")))
        #expect(!SdfPath("Child").hasPrefix(.root))
        #expect(p.strippingVariantSelections == SdfPath("/A/B/C.d"))
        #expect(SdfPath("/A{v=x}{w=y}").strippingVariantSelections == SdfPath("/A"))
        #expect(SdfPath("/A/B.x").replacingPrefix(SdfPath("/A"), with: SdfPath("/Z/Y")) == SdfPath("/Z/Y/B.x"))
        #expect(SdfPath("/A/B.x").replacingPrefix(SdfPath("/A"), with: .root) == SdfPath("/B.x"))
        #expect(SdfPath("/A/B").replacingPrefix(.root, with: SdfPath("/R")) == SdfPath("/R/A/B"))
        #expect(SdfPath("/Q").replacingPrefix(SdfPath("/A"), with: SdfPath("/Z")) == SdfPath("/Q"))
        let anchor = SdfPath("/World/Room")
        #expect(SdfPath("../Sib").resolved(against: anchor) == SdfPath("/World/Sib"))
        #expect(SdfPath("../../Up/Down").resolved(against: anchor) == SdfPath("/Up/Down"))
        #expect(SdfPath("Child/Grand.attr").resolved(against: anchor) == SdfPath("/World/Room/Child/Grand.attr"))
        #expect(SdfPath(".attr").resolved(against: anchor) == SdfPath("/World/Room.attr"))
        #expect(SdfPath("./Child").resolved(against: anchor) == SdfPath("/World/Room/Child"))
        #expect(SdfPath("..").resolved(against: anchor) == SdfPath("/World"))
        #expect(SdfPath("/Abs").resolved(against: anchor) == SdfPath("/Abs"))
    }

    @Test func malformedTextIsKeptVerbatim() {
        for text in ["/A//B", "/A/", "/A.b.c", "/A{v", "/A.r[/T", "/A}", "A.b/C", "//"] {
            let p = SdfPath(text)
            #expect(p.string == text)
            #expect(p == SdfPath(text))
            #expect(p.isAbsolute == text.hasPrefix("/"))
        }
        #expect(SdfPath("/A//B") != SdfPath("/A/B"))
    }

    @Test func orderMatchesCanonicalStrings() {
        var texts = Self.samples + [
            "/A/B/C/D", "/A/BC", "/A/B.c", "/A/B{v=a}", "/A/B{v=b}C", "/A/b", "/AB", "/A.B", "/A_", "/a",
            "/A/B/C.z", "/A/B/C.a", "/Z", "/A.rel[/A]", "/A.rel[/B]", "/A.rel", "/A/B.x:y:z", "/É", "/E",
        ]
        texts += ["/A//B", "/A/"]  // opaque paths order by their text too
        let paths = texts.map(SdfPath.init)
        #expect(paths.sorted().map(\.string) == texts.sorted())
        for a in paths {
            for b in paths { #expect((a < b) == (a.string < b.string), "\(a) < \(b)") }
        }
        // Distinct chains that share no nodes still order by text.
        let appended = SdfPath.root.appendingChild("A").appendingChild("B").appendingChild("C")
        #expect(appended < SdfPath("/A/B/D") && SdfPath("/A/B") < appended && !(appended < SdfPath("/A/B/C")))
    }

    @Test func deepChainsCompareAndSpellWithoutRecursion() {
        var a = SdfPath.root, b = SdfPath.root
        for _ in 0..<100_000 {
            a = a.appendingChild("N")
            b = b.appendingChild("N")
        }
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(!(a < b))
        #expect(a.parent < b)
        #expect(a.utf8Count == 200_000)
        #expect(a.string.utf8.count == 200_000)
        #expect(a.appendingChild("M").parent == b)
        a = .root
        b = .root  // frees both 100,000-node chains iteratively
    }

    /// Three chains built apart: equal pairs stay equal and different ones different however
    /// often, and in whatever order, they are compared (comparisons link equal chains as twins),
    /// also for descendants appended after the links were made.
    @Test func equalityHoldsAcrossLinkedChains() {
        func chain(_ names: [String]) -> SdfPath { names.reduce(SdfPath.root) { $0.appendingChild($1) } }
        let names = ["Room", "Geometry", "Walls", "Wall_0"]
        let (a, b, c) = (chain(names), chain(names), chain(names))
        let others = (0..<names.count).map { k in chain(names.enumerated().map { $0.offset == k ? $0.element + "x" : $0.element }) }
        for _ in 0..<3 {
            #expect(a == b && b == c && c == a && b == a)
            for o in others { #expect(a != o && o != b && c != o) }
        }
        #expect(a.appendingProperty("points") == c.appendingProperty("points"))
        #expect(a.appendingProperty("points") != b.appendingProperty("normals"))
        #expect(a.parent.appendingChild("Wall_1") == c.parent.appendingChild("Wall_1"))
        #expect(a.parent.appendingChild("Wall_1") != b)
        #expect(Set([a, b, c] + others).count == 1 + others.count)
    }

    /// Comparisons from many threads at once, of chains nobody compared before, agree with the
    /// text of the paths.
    @Test func concurrentComparisonsAgree() {
        func chain(_ i: Int) -> SdfPath {
            SdfPath.root.appendingChild("Room").appendingChild("Group\(i % 7)").appendingChild("Item\(i % 5)")
        }
        let left = (0..<64).map(chain), right = (0..<64).map(chain)
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4096) { k in
            let (i, j) = (k % 64, (k / 64) % 64)
            if (left[i] == right[j]) != (left[i].string == right[j].string) { wrong.withLock { $0 += 1 } }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(left.indices.allSatisfy { left[$0] == right[$0] })
    }
}
