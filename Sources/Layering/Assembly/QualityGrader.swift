import SceneModel

/// The app's scan quality rules:
/// 1. wall confidence: share of walls with `high` confidence — ≥ 90 % A, ≥ 70 % B, else C (no
///    walls: C; no confidence in the input, i.e. USD without JSON: not graded);
/// 2. furniture: number of objects (every `objects.*` element) — ≥ 5 A, 2–4 B, < 2 C;
/// 3. closure: walls form a closed loop in plan view (`RoomMeasurements.wallsClosed`) — A, else C.
/// The grade is the worst of the graded rules (any C makes C; A only when all are A; else B).
/// The scan duration rule cannot be applied: the upload does not carry the duration (noted).
/// Input that is not a room (no walls and no CapturedRoom JSON) gets no grade.
///
/// A home of several rooms is also graded room by room (`home(_:rooms:curves:options:)`): each room
/// by the same rules on its own elements (its walls must close on their own), and the home's grade
/// is the worst of its rooms', its notes naming the rooms that set it. The whole-home rule inputs
/// (share of high walls, furniture, closure of all walls) stay as for one room; a structure whose
/// rooms hold no walls is graded on those alone, as a single room.
enum QualityGrader {
    static let durationNote = "scan duration is not part of the upload; the duration rule was not applied"

    /// Grade of `high` out of `total` walls, compared exactly in integers (9/10 is A, 7/10 is B).
    static func wallConfidenceGrade(high: Int, total: Int) -> String {
        guard total > 0 else { return "C" }
        if high * 10 >= total * 9 { return "A" }
        if high * 10 >= total * 7 { return "B" }
        return "C"
    }

    static func furnitureGrade(count: Int) -> String {
        count >= 5 ? "A" : count >= 2 ? "B" : "C"
    }

    static func closureGrade(closed: Bool) -> String { closed ? "A" : "C" }

    /// Worst of the given grades; nil when none.
    static func overall(_ grades: [String?]) -> String? {
        let g = grades.compactMap { $0 }
        if g.isEmpty { return nil }
        if g.contains("C") { return "C" }
        if g.allSatisfy({ $0 == "A" }) { return "A" }
        return "B"
    }

    static func grade(elements: [RoomElement], wallsClosed: Bool?, hasJSON: Bool) -> QualityGrade {
        var q = QualityGrade()
        let walls = elements.filter { $0.category == .wall }
        q.furnitureCount = elements.filter { $0.layer.kind == .objects }.count
        guard !walls.isEmpty || hasJSON else {
            q.notes = ["not a room: no walls and no CapturedRoom JSON; not graded", durationNote]
            return q
        }
        if walls.isEmpty {
            q.highConfidenceWallShare = nil
            q.wallConfidenceGrade = "C"
            q.notes.append("wall confidence: no walls (C)")
        } else if walls.contains(where: { $0.confidence != nil }) {
            let high = walls.filter { $0.confidence == "high" }.count
            q.highConfidenceWallShare = Double(high) / Double(walls.count)
            q.wallConfidenceGrade = wallConfidenceGrade(high: high, total: walls.count)
            q.notes.append("wall confidence: \(high) of \(walls.count) walls high (\(q.wallConfidenceGrade!))")
        } else {
            q.notes.append("wall confidence: unknown without CapturedRoom JSON; not graded")
        }
        q.furnitureGrade = furnitureGrade(count: q.furnitureCount)
        q.notes.append("furniture: \(q.furnitureCount) objects (\(q.furnitureGrade!))")
        let closed = wallsClosed ?? false
        q.wallsClosed = closed
        q.closureGrade = closureGrade(closed: closed)
        q.notes.append(closed ? "walls form a closed loop (A)" : "walls do not form a closed loop (C)")
        q.grade = overall([q.wallConfidenceGrade, q.furnitureGrade, q.closureGrade])
        q.notes.append(durationNote)
        return q
    }

    /// `whole` (the grade of all the home's elements) with each room's grade, and the home's grade
    /// the worst of the rooms'; `whole` unchanged when no room has a wall.
    static func home(
        _ whole: QualityGrade, elements: [RoomElement], rooms: [StructureRoom], curves: [String: CapturedRoom.Curve],
        options: LayeringOptions
    ) -> QualityGrade {
        var out = whole
        for r in rooms {
            let own = elements.filter { $0.room == r.name }
            let walls = own.filter { $0.category == .wall }.compactMap { RoomMeasurements.wallSegment($0, curve: curves[$0.identifier]) }
            let closed = walls.isEmpty ? nil : RoomMeasurements.wallsClosed(walls, tolerance: options.wallClosureTolerance)
            var q = grade(elements: own, wallsClosed: closed, hasJSON: true)
            q.notes.removeAll { $0 == durationNote }
            out.rooms.append(RoomGrade(room: r.name, quality: q))
        }
        guard out.rooms.contains(where: { $0.quality.wallsClosed != nil }), let worst = overall(out.rooms.map(\.quality.grade)) else {
            out.rooms = []
            return whole
        }
        out.grade = worst
        let setting = out.rooms.filter { $0.quality.grade == worst }.map(\.room)
        var notes = ["home: the worst of its \(out.rooms.count) rooms' grades (\(worst): \(setting.joined(separator: ", ")))"]
        for r in out.rooms where r.quality.grade != "A" {
            notes += r.quality.notes.filter { !$0.hasSuffix("(A)") }.map { "\(r.room): \($0)" }
        }
        out.notes = notes + whole.notes.map { "whole home: \($0)" }
        return out
    }
}
