extension Duration {
    /// The duration in seconds, with its fraction: what NIO's deadlines are computed from.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
