/// `def`, `over`, `class`.
public enum SdfSpecifier: Int, Hashable, Sendable { case def = 0, over = 1, `class` = 2 }
