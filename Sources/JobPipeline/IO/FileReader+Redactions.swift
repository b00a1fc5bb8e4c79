import FoundationEssentials
import SourceFiles

extension FileReader {
    /// Every regular file under `dir` (the worker's face-blurred textures), by path relative to it,
    /// sorted; each read as `read` does. Throws `Failure` (`IO_NOT_FOUND` when `dir` cannot be listed).
    public static func readRedactions(_ dir: String, maxBytes: Int) throws -> [PipelineInput.RedactedTexture] {
        guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: dir) else {
            throw FileReader.Failure(code: .notFound, message: "cannot list \(dir)")
        }
        var out: [PipelineInput.RedactedTexture] = []
        for rel in paths {
            var isDir = false
            guard FileManager.default.fileExists(atPath: dir + "/" + rel, isDirectory: &isDir), !isDir else { continue }
            out.append(.init(relativePath: rel, bytes: try FileReader.read(dir + "/" + rel, maxBytes: maxBytes)))
        }
        return out.sorted { $0.relativePath < $1.relativePath }
    }
}
