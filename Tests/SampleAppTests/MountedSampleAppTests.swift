import Foundation
import Micro
import MicroTesting
import Testing
import SampleApp

/// The sample app mounted under a sub-path: every link, form and asset carries it.
@Suite struct MountedSampleAppTests {
    @Test func everyLinkFormAndAssetIsUnderTheBasePath() async throws {
        let client = TestClient(try sampleApp { $0.basePath = "/utilities" })
        #expect(try await client.get("/utilities/tools/date-conversion").location == "/utilities/signin")
        #expect(try await client.post("/utilities/signin", form: ["username": "user", "password": "secret123"]).location
            == "/utilities/tools/date-conversion")
        #expect(try await client.get("/utilities/css/app.css").status == .ok)
        let pattern = try Regex(#"(?:href|action|src)="([^"]*)""#)
        for path in ["/", "/tools/date-conversion", "/tools/data-encoding", "/tools/data-encryption", "/admin/users", "/signout", "/protected"] {
            let page = try await client.get("/utilities" + path)
            #expect(page.status == .ok, "\(path)")
            let targets = page.text.matches(of: pattern).map { String($0.output[1].substring ?? "") }
            #expect(!targets.isEmpty, "\(path)")
            for target in targets where !target.hasPrefix("data:") && !target.hasPrefix("#") {
                #expect(target.hasPrefix("/utilities/"), "\(path): \(target)")
            }
        }
    }
}
