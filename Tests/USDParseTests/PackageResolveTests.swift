import Testing
@testable import USDParse

/// usd-format.md 12.4 against `resolve.usdz`:
/// scene/root.usda (root), scene/textures/a.png, scene/sub/layer.usda, scene/sub/textures/b.png,
/// scene/Textures/Mixed.PNG, scene/0/copy.png, scene/inner.usdz (inner.usda, tex/c.png, sub/n.usda,
/// deeper.usdz (d.usda, d.png)), textures/top.png.
@Suite struct PackageResolveTests {
    let package: USDZPackage
    let root = "scene/root.usda"
    let sub = "scene/sub/layer.usda"

    init() throws { package = try ZipTestFiles.package("resolve.usdz") }

    @Test func rootLayerLivesInADirectory() {
        #expect(package.rootLayerPath == root)
    }

    @Test func emptyPathIsNoAsset() {
        #expect(package.resolve("", anchor: root) == nil)
    }

    @Test func anchoredPathsAreRelativeToTheAnchorDirectory() {
        #expect(package.resolve("./textures/a.png", anchor: root) == "scene/textures/a.png")
        #expect(package.resolve("./textures/b.png", anchor: sub) == "scene/sub/textures/b.png")
        #expect(package.resolve("../textures/a.png", anchor: sub) == "scene/textures/a.png")
        #expect(package.resolve("../../textures/top.png", anchor: sub) == "textures/top.png")
        #expect(package.resolve("../textures/top.png", anchor: root) == "textures/top.png")
        #expect(package.resolve("./sub/../textures/./a.png", anchor: root) == "scene/textures/a.png")
        // Anchored paths never fall back to the root layer's directory.
        #expect(package.resolve("./textures/a.png", anchor: sub) == nil)
        #expect(package.resolve("./nope.png", anchor: root) == nil)
    }

    @Test func climbingAboveThePackageRootIsRefused() {
        #expect(package.resolve("../../top.png", anchor: root) == nil)
        #expect(package.resolve("../../../textures/top.png", anchor: sub) == nil)
        #expect(package.resolve("textures/../../../textures/top.png", anchor: root) == nil)
        #expect(package.resolve("..", anchor: root) == nil)
    }

    @Test func searchPathsTryTheAnchorThenTheRootLayerDirectory() {
        #expect(package.resolve("textures/a.png", anchor: root) == "scene/textures/a.png")
        #expect(package.resolve("0/copy.png", anchor: root) == "scene/0/copy.png")
        // scene/sub/textures/a.png does not exist: found next to the root layer instead.
        #expect(package.resolve("textures/a.png", anchor: sub) == "scene/textures/a.png")
        #expect(package.resolve("textures/b.png", anchor: sub) == "scene/sub/textures/b.png")
        #expect(package.resolve("textures/b.png", anchor: root) == nil)
        #expect(package.resolve("textures/top.png", anchor: root) == nil, "the package root is not searched")
        #expect(package.resolve(".hidden/x.png", anchor: root) == nil)
    }

    @Test func absolutePathsAndURIsAreOutsideThePackage() {
        for path in [
            "/scene/textures/a.png", "/textures/top.png", "\\textures\\top.png", "C:\\textures\\top.png",
            "C:/textures/top.png", "file:///textures/top.png", "file:textures/top.png",
            "http://example.com/textures/top.png", "https://example.com/a.png", "s3://bucket/a.png",
        ] {
            #expect(package.resolve(path, anchor: root) == nil, "\(path)")
        }
    }

    @Test func caseInsensitiveMatchIsAFallback() {
        #expect(package.resolve("./textures/A.PNG", anchor: root) == "scene/textures/a.png")
        #expect(package.resolve("textures/mixed.png", anchor: root) == "scene/Textures/Mixed.PNG")
        #expect(package.resolve("TEXTURES/MIXED.PNG", anchor: sub) == "scene/Textures/Mixed.PNG")
        #expect(package.resolve("./Textures/Mixed.PNG", anchor: root) == "scene/Textures/Mixed.PNG")
    }

    @Test func packageRelativeSyntaxOpensNestedPackages() throws {
        #expect(package.resolve("./inner.usdz[tex/c.png]", anchor: root) == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("inner.usdz[tex/c.png]", anchor: root) == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("../inner.usdz[tex/c.png]", anchor: sub) == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("inner.usdz[deeper.usdz[d.png]]", anchor: root)
            == "scene/inner.usdz[deeper.usdz[d.png]]")
        #expect(package.resolve("inner.usdz[TEX/C.PNG]", anchor: root) == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("inner.usdz[missing.png]", anchor: root) == nil)
        #expect(package.resolve("textures/a.png[x.png]", anchor: root) == nil)
        #expect(package.resolve("inner.usdz[../textures/a.png]", anchor: root) == nil)
        let path = try #require(package.resolve("inner.usdz[deeper.usdz[d.png]]", anchor: root))
        #expect(ZipTestFiles.text(try package.data(at: path)) == "PNG:d")
    }

    @Test func anchorsInsideNestedPackagesResolveThere() throws {
        let inner = "scene/inner.usdz[inner.usda]"
        #expect(package.contains(inner))
        #expect(package.resolve("./tex/c.png", anchor: inner) == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("./sub/n.usda", anchor: inner) == "scene/inner.usdz[sub/n.usda]")
        // Search path from sub/n.usda: sub/tex/c.png is missing, the nested root's directory has it.
        #expect(package.resolve("tex/c.png", anchor: "scene/inner.usdz[sub/n.usda]") == "scene/inner.usdz[tex/c.png]")
        #expect(package.resolve("../tex/c.png", anchor: "scene/inner.usdz[sub/n.usda]")
            == "scene/inner.usdz[tex/c.png]")
        // A nested package is its own sandbox.
        #expect(package.resolve("../textures/a.png", anchor: inner) == nil)
        #expect(package.resolve("deeper.usdz[d.png]", anchor: inner) == "scene/inner.usdz[deeper.usdz[d.png]]")
        #expect(package.resolve("./d.png", anchor: "scene/inner.usdz[deeper.usdz[d.usda]]")
            == "scene/inner.usdz[deeper.usdz[d.png]]")
        #expect(package.resolve("./tex/c.png", anchor: "scene/missing.usdz[inner.usda]") == nil)
        let c = try #require(package.resolve("./tex/c.png", anchor: inner))
        #expect(ZipTestFiles.text(try package.data(at: c)) == "PNG:c")
    }

    @Test func packagePathSyntax() {
        #expect(PackagePath.split("a.usdz[b.png]")! == ("a.usdz", "b.png"))
        #expect(PackagePath.split("a.usdz[b.usdz[c.png]]")! == ("a.usdz", "b.usdz[c.png]"))
        #expect(PackagePath.split("dir/a\\[1\\].usdz[b.png]")! == ("dir/a[1].usdz", "b.png"))
        #expect(PackagePath.split("a.usdz[b.png\\]") == nil)
        #expect(PackagePath.split("a[b]c[d]") == nil)
        #expect(PackagePath.split("tex[1].png") == nil)
        #expect(PackagePath.split("[b]") == nil)
        #expect(PackagePath.split("a.usdz[]") == nil)
        #expect(PackagePath.join("a[1].usdz", "b.png") == "a\\[1\\].usdz[b.png]")
        #expect(PackagePath.normalize("../x", in: "a/b") == "a/x")
        #expect(PackagePath.normalize("../../../x", in: "a/b") == nil)
        #expect(PackagePath.normalize("x", in: "") == "x")
        #expect(PackagePath.isOutside("C:\\x"))
        #expect(PackagePath.isOutside("mailto:x"))
        #expect(PackagePath.isOutside("a+b.c-d:rest"))
        #expect(!PackagePath.isOutside("inner.usdz[a:b]"))
        #expect(!PackagePath.isOutside("0/texture.png"))
    }
}
