/// What a code typed for the second step came to.
enum SecondFactorCheck: Sendable {
    /// Right, by this method: a code of a step not used before, or a recovery code (now spent).
    case passed(TwoFactorService.Method)
    /// Neither a code of now nor a recovery code.
    case wrong
    /// A right code of a step already used (a moment ago, or by another request at once): no
    /// use a second time, and the person should wait for the next one.
    case reused

    /// The method, when it passed.
    var method: TwoFactorService.Method? {
        if case .passed(let method) = self { return method }
        return nil
    }

    /// The refusal to show next to the field, when it did not pass.
    func refusal(_ settings: TwoFactorSettings) -> String {
        if case .reused = self { return settings.reusedCodeMessage }
        return settings.wrongCodeMessage
    }
}
