/// How a metadata key written in USDA maps onto a spec field: the field name and the value shape
/// the registered Sdf / schema field has (so a text layer yields the same value types a crate
/// layer stores). Keys not listed here are inferred from the literal.
enum USDAMetadataSchema {
    enum Shape: Sendable, Equatable {
        /// A scalar or array of a value type (parsed like an attribute value of that type).
        case value(SdfValueType, isArray: Bool)
        case dictionary
        case tokenListOp, stringListOp, pathListOp, referenceListOp, payloadListOp
        case permission
        case variantSelection
    }

    struct Entry: Sendable {
        var field: String
        var shape: Shape
    }

    /// Registered metadata, by the key written in text.
    private static let table: [String: Entry] = {
        let scalars: [(String, SdfValueType)] = [
            // Layer
            ("defaultPrim", .token), ("upAxis", .token), ("metersPerUnit", .double), ("kilogramsPerUnit", .double),
            ("timeCodesPerSecond", .double), ("framesPerSecond", .double), ("startTimeCode", .double),
            ("endTimeCode", .double), ("startFrame", .double), ("endFrame", .double), ("framePrecision", .int),
            ("owner", .string), ("sessionOwner", .string), ("hasOwnedSubLayers", .bool),
            ("colorConfiguration", .asset), ("colorManagementSystem", .token),
            ("autoPlay", .bool), ("sceneName", .string), ("playbackMode", .token),
            // Prim
            ("kind", .token), ("active", .bool), ("instanceable", .bool), ("hidden", .bool),
            ("symmetryFunction", .token), ("symmetricPeer", .string), ("prefix", .string), ("suffix", .string),
            ("displayName", .string), ("displayGroup", .string), ("comment", .string),
            // Properties
            ("interpolation", .token), ("elementSize", .int), ("colorSpace", .token), ("bindMaterialAs", .token),
            ("connectability", .token), ("outputName", .token), ("renderType", .token),
            ("unauthoredValuesIndex", .int), ("noLoadHint", .bool), ("arraySizeConstraint", .int64),
        ]
        var t: [String: Entry] = [:]
        for (k, type) in scalars { t[k] = Entry(field: k, shape: .value(type, isArray: false)) }
        for k in ["customData", "assetInfo", "customLayerData", "expressionVariables", "symmetryArguments",
                  "prefixSubstitutions", "suffixSubstitutions", "clips", "sdrMetadata", "limits"]
        {
            t[k] = Entry(field: k, shape: .dictionary)
        }
        t["doc"] = Entry(field: "documentation", shape: .value(.string, isArray: false))
        t["documentation"] = Entry(field: "documentation", shape: .value(.string, isArray: false))
        t["allowedTokens"] = Entry(field: "allowedTokens", shape: .value(.token, isArray: true))
        t["apiSchemas"] = Entry(field: "apiSchemas", shape: .tokenListOp)
        t["clipSets"] = Entry(field: "clipSets", shape: .stringListOp)
        t["references"] = Entry(field: "references", shape: .referenceListOp)
        t["payload"] = Entry(field: "payload", shape: .payloadListOp)
        t["inherits"] = Entry(field: "inheritPaths", shape: .pathListOp)
        t["specializes"] = Entry(field: "specializes", shape: .pathListOp)
        t["variantSets"] = Entry(field: "variantSetNames", shape: .stringListOp)
        t["variants"] = Entry(field: "variantSelection", shape: .variantSelection)
        t["permission"] = Entry(field: "permission", shape: .permission)
        return t
    }()

    /// Field names of every registered metadata key (`documentation`, `inheritPaths`, …).
    static let registeredFields: Set<String> = Set(table.values.map(\.field))

    /// The registered entry for `key`, or nil for unregistered metadata.
    static func entry(for key: String) -> Entry? { table[key] }

    /// True for shapes that accept the list-op keywords (`prepend`, `append`, …).
    static func isListOp(_ shape: Shape) -> Bool {
        switch shape {
        case .tokenListOp, .stringListOp, .pathListOp, .referenceListOp, .payloadListOp: return true
        default: return false
        }
    }
}
