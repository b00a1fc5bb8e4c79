import Layering
import SourceFiles

/// Several rooms of one home as one input: the RoomPlan JSONs merged into one structure
/// (`RoomSetMerger`), each named after its file (with its folder when file names repeat). Shared by
/// `convert` and `job-exec`.
public enum RoomInputs {
    /// The most rooms one conversion takes (the decoder's `maxRooms`).
    public static var maxRooms: Int { CapturedRoomDecoder.Limits.default.maxRooms }

    /// Each path's file name, with its folder when two file names are the same.
    public static func displayNames(_ paths: [String]) -> [String] {
        let last = paths.map(PathText.lastComponent)
        return zip(paths, last).map { p, name in
            guard last.filter({ $0 == name }).count > 1 else { return name }
            let folder = PathText.lastComponent(PathText.parent(p))
            return folder.isEmpty || folder == "/" ? name : folder + "/" + name
        }
    }

    /// The JSON the pipeline reads: one file, or several rooms merged into one structure named
    /// after them (`a.json+b.json`). A merge refusal is returned as a failure
    /// (`INPUTS_MISMATCHED` and the decoder's codes); a file that cannot be read throws
    /// `FileReader.Failure`.
    public static func readJSON(_ paths: [String], maxBytes: Int) throws -> Result<(name: String, bytes: [UInt8]), PipelineError> {
        let names = displayNames(paths)
        if paths.count == 1 { return .success((names[0], try FileReader.read(paths[0], maxBytes: maxBytes))) }
        var docs: [(name: String, bytes: [UInt8])] = []
        for (p, n) in zip(paths, names) { docs.append((n, try FileReader.read(p, maxBytes: maxBytes))) }
        do {
            return .success((names.joined(separator: "+"), try RoomSetMerger.merge(docs)))
        } catch let e as LayeringError {
            return .failure(PipelineError(code: e.code, message: e.message, phase: .reading,
                                          context: e.jsonPath.map { ["json_path": $0] } ?? [:]))
        }
    }

    /// USD sources of one room each, in order: the first is the pipeline's `usd`, the rest its
    /// `moreUSD` (merged into one scene). Throws `FileReader.Failure`.
    public static func readUSD(_ paths: [String], maxBytes: Int) throws -> [PipelineInput.USDSource] {
        let names = displayNames(paths)
        return try zip(paths, names).map { path, name in
            let dir = PathText.parent(path)
            return PipelineInput.USDSource(name: name, bytes: try FileReader.map(path, maxBytes: maxBytes),
                                           siblings: DirectoryAssetProvider(root: dir.isEmpty ? "." : dir, maxBytes: maxBytes))
        }
    }
}
