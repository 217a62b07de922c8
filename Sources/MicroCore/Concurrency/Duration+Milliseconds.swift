extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }

    /// `2 s`, `250 ms`.
    var words: String { milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms" }
}
