import Foundation
import JobPipeline
import Layering
import SourceFiles
import WorkerCore

/// `convert`'s RoomPlan inputs: one JSON, or several rooms of one world frame merged into one
/// structure (`RoomSetMerger`).
extension ConvertCommand {
    /// Usage errors found from the paths alone: more rooms than `maxRooms`, a file given twice, a .json among several
    /// INPUTs, USD INPUTs and --roomplan files that do not pair up, a USD file among rooms to merge.
    static func checkRoomInputs(inputs: [String], roomPlans: [String]) throws {
        // Counted before any file is read.
        let maxRooms = CapturedRoomDecoder.Limits.default.maxRooms
        guard inputs.count <= maxRooms, roomPlans.count < maxRooms else {
            throw UsageError("more than \(maxRooms) rooms (maxRooms)")
        }
        var seen: [String: String] = [:]
        for p in inputs + roomPlans {
            let key = URL(fileURLWithPath: p).standardizedFileURL.path
            if let first = seen[key] { throw UsageError("\(p) is given twice (as \(first))") }
            seen[key] = p
        }
        if let usd = roomPlans.first(where: { !$0.lowercased().hasSuffix(".json") }) {
            throw UsageError("--roomplan \(usd): a RoomPlan CapturedRoom .json is expected")
        }
        let jsonInput = inputs.contains { $0.lowercased().hasSuffix(".json") }
        if jsonInput && inputs.count > 1 {
            throw UsageError("one .json INPUT at most; more rooms' JSON follow --roomplan")
        }
        if !jsonInput && roomPlans.count > 1 && roomPlans.count != inputs.count {
            throw UsageError(
                "\(inputs.count) USD INPUTs and \(roomPlans.count) --roomplan files: each room's USD goes with its own JSON")
        }
    }

    /// The JSON the pipeline reads: one file, or several rooms merged into one structure named
    /// after them (`Kitchen/capturedRoom.json+Bedroom2/capturedRoom.json`, the folder kept when
    /// file names repeat). A merge refusal is returned as a failure.
    func readRooms(_ paths: [String], maxBytes: Int) throws -> Result<(name: String, bytes: [UInt8]), PipelineError> {
        let names = Self.displayNames(paths)
        if paths.count == 1 { return .success((names[0], try FileReader.read(paths[0], maxBytes: maxBytes))) }
        var docs: [(name: String, bytes: [UInt8])] = []
        for (p, n) in zip(paths, names) { docs.append((n, try FileReader.read(p, maxBytes: maxBytes))) }
        do {
            return .success((names.joined(separator: "+"), try RoomSetMerger.merge(docs)))
        } catch let e as LayeringError {
            return .failure(PipelineError(code: e.code, message: e.message, phase: "reading",
                                          context: e.jsonPath.map { ["json_path": $0] } ?? [:]))
        }
    }

    /// Each path's file name, with its folder when two file names are the same.
    static func displayNames(_ paths: [String]) -> [String] {
        let last = paths.map { ($0 as NSString).lastPathComponent }
        return zip(paths, last).map { p, name in
            guard last.filter({ $0 == name }).count > 1 else { return name }
            let folder = ((p as NSString).deletingLastPathComponent as NSString).lastPathComponent
            return folder.isEmpty ? name : folder + "/" + name
        }
    }
}
