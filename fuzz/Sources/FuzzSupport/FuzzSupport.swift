/// Stops the fuzzer with `message` when a property does not hold (`precondition` would
/// drop the message in a release build).
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

/// The fuzzer's input as bytes.
public func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}

/// The bytes before the first `separator` and those after it (all and nothing when absent).
public func split(_ bytes: [UInt8], at separator: UInt8) -> (head: [UInt8], rest: [UInt8]) {
    guard let index = bytes.firstIndex(of: separator) else { return (bytes, []) }
    return (Array(bytes[..<index]), Array(bytes[(index + 1)...]))
}

/// Bytes as text, invalid UTF-8 replaced (as the server does with a header or body).
public func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// Whether `needle` occurs in `haystack`, byte for byte (String's `contains` compares
/// characters, so `:a` is not found in `:á` spelled with a combining accent).
public func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return true
    }
    return false
}
