import Foundation
import SourceFiles
import Testing
import USDParse

/// `DirectoryAssetProvider`: the assets beside a loose USD file, reachable only inside its folder,
/// whatever the authored path or the links on disk say.
@Suite struct DirectoryAssetProviderTests {
    static func provider(_ t: TempFolder, maxBytes: Int = 1 << 20) -> DirectoryAssetProvider {
        DirectoryAssetProvider(root: t.root, maxBytes: maxBytes)
    }

    @Test func pathsInsideTheFolderResolveAgainstTheirAnchor() throws {
        let t = try TempFolder()
        let bytes = try t.file(t.root + "/tex/a.png")
        try t.file(t.root + "/b.png")
        let p = Self.provider(t)
        #expect(p.resolve("tex/a.png", anchor: "scene.usda") == "tex/a.png")
        #expect(p.resolve("./tex//a.png", anchor: "scene.usda") == "tex/a.png")
        #expect(p.resolve("a.png", anchor: "tex/layer.usda") == "tex/a.png")
        #expect(p.resolve("../b.png", anchor: "tex/layer.usda") == "b.png", "up, but not above the folder")
        #expect(try p.data(at: "tex/a.png").array == bytes)
        #expect(p.resolve("missing.png", anchor: "scene.usda") == nil)
    }

    @Test(arguments: ["../outside/x.png", "tex/../../outside/x.png", "..", "../root/b.png"])
    func climbingAboveTheFolderIsRefused(_ path: String) throws {
        let t = try TempFolder()
        try t.file(t.outside + "/x.png")
        try t.file(t.root + "/b.png")
        try FileManager.default.createDirectory(atPath: t.root + "/tex", withIntermediateDirectories: true)
        #expect(Self.provider(t).resolve(path, anchor: "scene.usda") == nil, "\(path)")
    }

    @Test func absolutePathsAndURIsAreRefusedEvenInsideTheFolder() throws {
        let t = try TempFolder()
        try t.file(t.root + "/b.png")
        try t.file(t.outside + "/x.png")
        let p = Self.provider(t)
        for path in [t.root + "/b.png", t.outside + "/x.png", "/etc/passwd", "file://" + t.root + "/b.png",
                     "file:b.png", "C:\\b.png", "tex\\b.png", ""] {
            #expect(p.resolve(path, anchor: "scene.usda") == nil, "\(path)")
        }
    }

    @Test func linksOutOfTheFolderAreRefused() throws {
        let t = try TempFolder()
        try t.file(t.outside + "/x.png")
        try t.link(t.root + "/absolute.png", to: t.outside + "/x.png")
        try t.link(t.root + "/relative.png", to: "../outside/x.png")
        try t.link(t.root + "/folder", to: t.outside)            // a linked folder outside
        try t.link(t.root + "/up", to: "..")                      // the folder's parent
        // A folder beside it whose name begins with the folder's: outside, though its path
        // starts with the folder's path.
        try t.file(t.root + "-beside/x.png")
        try t.link(t.root + "/beside.png", to: t.root + "-beside/x.png")
        let p = Self.provider(t)
        for path in ["absolute.png", "relative.png", "folder/x.png", "up/outside/x.png", "folder", "beside.png"] {
            #expect(p.resolve(path, anchor: "scene.usda") == nil, "\(path)")
        }
    }

    @Test func linksThatStayInsideTheFolderResolve() throws {
        let t = try TempFolder()
        let bytes = try t.file(t.root + "/tex/a.png")
        try t.link(t.root + "/alias.png", to: "tex/a.png")
        try t.link(t.root + "/textures", to: "tex")              // a linked folder inside
        let p = Self.provider(t)
        #expect(p.resolve("alias.png", anchor: "scene.usda") == "alias.png")
        #expect(p.resolve("textures/a.png", anchor: "scene.usda") == "textures/a.png")
        #expect(try p.data(at: "textures/a.png").array == bytes)
    }

    @Test func linkLoopsDoNotResolve() throws {
        let t = try TempFolder()
        try t.link(t.root + "/a.png", to: "b.png")
        try t.link(t.root + "/b.png", to: "a.png")
        try t.link(t.root + "/self", to: "self")
        let p = Self.provider(t)
        #expect(p.resolve("a.png", anchor: "scene.usda") == nil)
        #expect(p.resolve("self/x.png", anchor: "scene.usda") == nil)
    }

    @Test func aFolderServedThroughALinkKeepsItsFilesAndItsBounds() throws {
        let t = try TempFolder()
        try t.file(t.root + "/b.png")
        try t.file(t.outside + "/x.png")
        try t.link(t.base + "/served", to: t.root)
        let p = DirectoryAssetProvider(root: t.base + "/served", maxBytes: 1 << 20)
        #expect(p.resolve("b.png", anchor: "scene.usda") == "b.png")
        #expect(p.resolve("../outside/x.png", anchor: "scene.usda") == nil)
    }

    @Test func readsAreBoundedAndFailuresAreTypedParseErrors() throws {
        let t = try TempFolder()
        try t.file(t.root + "/big.png", bytes: 101)
        try t.file(t.root + "/ok.png", bytes: 100)
        try FileManager.default.createDirectory(atPath: t.root + "/tex", withIntermediateDirectories: true)
        let p = Self.provider(t, maxBytes: 100)
        #expect(try p.data(at: "ok.png").count == 100)
        for (path, words) in [("big.png", "the limit is 100 bytes"), ("tex", "not a readable regular file"),
                              ("gone.png", "cannot open")] {
            do {
                _ = try p.data(at: path)
                Issue.record("\(path) was read")
            } catch let e as USDParseError {
                #expect(e.code == .noRootLayer, "\(path): \(e)")
                #expect(e.layer == path)
                #expect(e.message.contains(words), "\(path): \(e.message)")
            }
        }
    }
}
