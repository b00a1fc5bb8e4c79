import Testing

@testable import JobPipeline

/// The job child's path helpers, which stand in for Foundation's `NSString` path methods.
struct PathTextTests {
    @Test(arguments: [
        ("in/scan.usdz", "scan.usdz", "in"), ("scan.usdz", "scan.usdz", ""), ("/scan.usdz", "scan.usdz", "/"),
        ("/a/b/c.json", "c.json", "/a/b"), ("a/b/", "b", "a"), ("/", "/", "/"), ("", "", ""),
        ("./x.usdz", "x.usdz", "."),
    ])
    func lastComponentAndParent(path: String, last: String, parent: String) {
        #expect(PathText.lastComponent(path) == last)
        #expect(PathText.parent(path) == parent)
    }

    @Test(arguments: [("orbit-01.webp", "orbit-01"), ("hero", "hero"), (".hidden", ".hidden"), ("a.b.c", "a.b"),
                      ("thumbs.d/plan", "thumbs.d/plan")])
    func deletingExtension(name: String, expected: String) {
        #expect(PathText.deletingExtension(name) == expected)
    }

    @Test func fixedDecimalsMatchPrintf() {
        #expect(HTML.fixed(2.5, 0) == "2")  // printf rounds half to even on the binary value
        #expect(HTML.fixed(0.125, 2) == "0.12")
        #expect(HTML.fixed(-0.001, 2) == "0.00")
        #expect(HTML.fixed(1234.5678, 1) == "1234.6")
        #expect(HTML.fixed(.nan, 2) == "—")
        // Longer than the first buffer: every digit of the binary value is kept, as printf writes it.
        let long = HTML.fixed(1e100, 1)
        #expect(long.count == 103 && long.hasPrefix("10000000000000000159028911") && long.hasSuffix(".0"))
    }
}
