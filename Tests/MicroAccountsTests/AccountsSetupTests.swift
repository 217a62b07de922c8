import Foundation
import Micro
import MicroAccounts
import MicroAuth
@testable import MicroCore
import MicroTestSupport
import Testing

/// What the account pages need from the rest of the app, checked when it starts.
@Suite struct AccountsSetupTests {
    @Test func accountPagesWithoutAuthenticationStopStartUp() throws {
        let app = isolatedApp()
        app.use(Accounts())
        do {
            _ = try app.makeResponder()
            Issue.record("started without Authentication")
        } catch {
            #expect(error.message.contains("Accounts needs Authentication"))
        }
    }

    @Test func accountPagesAfterOrBeforeAuthenticationStart() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("users.yml", "users: []\n")
        for authenticationFirst in [true, false] {
            let app = isolatedApp()
            let authentication = Authentication(users: try YamlUserStore(file: folder.file("users.yml")))
            if authenticationFirst { app.use(authentication) }
            app.use(Accounts())
            if !authenticationFirst { app.use(authentication) }
            _ = try app.makeResponder()
        }
    }

    @Test func requiringASecondFactorWithNowhereToKeepItStopsStartUp() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("users.yml", "users: []\n")
        let app = isolatedApp()
        app.use(Authentication(users: try YamlUserStore(file: folder.file("users.yml"))))
        var accounts = Accounts()
        accounts.twoFactor.requiredForRoles = ["admin"]
        app.use(accounts)
        do {
            _ = try app.makeResponder()
            Issue.record("started with a requirement nobody could meet")
        } catch {
            #expect(error.message.contains("requiredForRoles needs the account pages' database"))
        }
    }
}
