/// Waits in tiny steps until `condition` holds, or gives up after 60 seconds: a bound only a
/// failing test gets near, even when the whole run shares two busy cores.
public func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
