import Layering

extension FuzzTarget {
    /// The RoomPlan `CapturedRoom` JSON decoder, then layering of the room alone (geometry
    /// synthesis, measurements, quality grade).
    public static let roomplan = FuzzTarget(
        name: "roomplan", summary: "RoomPlan CapturedRoom JSON decoder and layering (input: a .json file)"
    ) { bytes in
        do {
            let (room, warnings) = try CapturedRoomDecoder.decode(bytes)
            let layered = try RoomLayering.layer(scene: nil, capturedRoom: room)
            return .accepted(
                summary: "\(warnings.count) decoder warnings, \(layered.scene.nodes.count) root nodes, "
                    + "\(layered.warnings.count) layering warnings")
        } catch {
            return .refused(error)
        }
    }
}
