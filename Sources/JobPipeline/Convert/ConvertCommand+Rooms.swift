import FoundationEssentials
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
        let maxRooms = RoomInputs.maxRooms
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

    /// The JSON the pipeline reads (`RoomInputs.readJSON`).
    func readRooms(_ paths: [String], maxBytes: Int) throws -> Result<(name: String, bytes: [UInt8]), PipelineError> {
        try RoomInputs.readJSON(paths, maxBytes: maxBytes)
    }

    /// Each path's file name, with its folder when two file names are the same.
    static func displayNames(_ paths: [String]) -> [String] { RoomInputs.displayNames(paths) }
}
