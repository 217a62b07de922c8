/// Something that adds routes, filters or services to an app in one line: `app.use(plugin)`.
///
/// ```swift
/// struct Health: AppPlugin {
///     func install(in app: App) { app.get("/health") { _ in "ok" } }
/// }
/// app.use(Health())
/// ```
public protocol AppPlugin {
    /// Adds what the plugin brings to `app`.
    func install(in app: App)
}

extension App {
    /// Installs `plugin`: its routes, filters and services.
    public func use(_ plugin: some AppPlugin) {
        plugin.install(in: self)
    }
}
