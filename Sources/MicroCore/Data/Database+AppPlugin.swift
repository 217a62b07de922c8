extension Database: AppPlugin {
    /// Makes the database the app's: routes reach it as ``Request/database``, and the app
    /// runs its ``migrations`` when it starts, refusing to start when one fails.
    public func install(in app: App) {
        app.register(self)
        app.addPreparation("migrations: the app's database") { try await self.migrate() }
    }
}
