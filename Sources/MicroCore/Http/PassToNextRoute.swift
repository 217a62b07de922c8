import NIOHTTP1

/// Thrown by ``Request/pass()``: hands the request to the next matching route.
struct PassToNextRoute: Error {}
