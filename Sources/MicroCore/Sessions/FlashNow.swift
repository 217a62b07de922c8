/// Flash messages for the current request only.
public final class FlashNow {
    fileprivate(set) var messages: [String: String] = [:]

    /// The message under `key`.
    public subscript(key: String) -> String? {
        get { messages[key] }
        set { messages[key] = newValue }
    }
}
