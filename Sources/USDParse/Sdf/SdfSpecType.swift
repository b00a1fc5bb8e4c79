/// Sdf spec kinds (values as stored in crate SPECS).
public enum SdfSpecType: Int, Hashable, Sendable {
    case attribute = 1, connection = 2, expression = 3, mapper = 4, mapperArg = 5, prim = 6, pseudoRoot = 7,
        relationship = 8, relationshipTarget = 9, variant = 10, variantSet = 11
}
