/// The positions of the routes a request tries, from the index nodes its path passed: each
/// node's list ascending, merged so that they come out in definition order.
///
/// A path passes the root and one node per segment it shares with the patterns; most pass
/// one or two nodes that hold routes, which are kept inline, so a request allocates nothing.
struct RouteCandidates {
    private var first: ArraySlice<Int> = []
    private var second: ArraySlice<Int> = []
    /// The lists past the second, for paths that pass three or more nodes holding routes.
    private var more: [ArraySlice<Int>] = []

    mutating func add(_ list: ArraySlice<Int>) {
        if list.isEmpty { return }
        if first.isEmpty {
            first = list
        } else if second.isEmpty {
            second = list
        } else {
            more.append(list)
        }
    }

    /// The next position in definition order; nil when none is left.
    mutating func next() -> Int? {
        if more.isEmpty {
            guard let a = first.first else { return second.popFirst() }
            guard let b = second.first, b < a else { return first.popFirst() }
            return second.popFirst()
        }
        // Three or more lists: the smallest head. The lists are disjoint (each route is filed
        // at one node), so no position comes out twice.
        var smallest = first.first ?? Int.max
        var which = 0
        if let b = second.first, b < smallest { smallest = b; which = 1 }
        for index in more.indices {
            if let head = more[index].first, head < smallest { smallest = head; which = index + 2 }
        }
        switch which {
        case 0: return first.popFirst()
        case 1: return second.popFirst()
        default: return more[which - 2].popFirst()
        }
    }
}
