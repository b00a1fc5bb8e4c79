/// `varying` / `uniform` (legacy `config` reads as uniform).
public enum SdfVariability: Int, Hashable, Sendable { case varying = 0, uniform = 1 }
