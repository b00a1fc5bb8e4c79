/// `public` / `private`.
public enum SdfPermission: Int, Hashable, Sendable { case `public` = 0, `private` = 1 }
