import Foundation
import Micro

/// The tool pages: each maps its params to a pure function of `Tools/` and shows the result,
/// as a page or, for `Accept: application/json`, as `{"result": ...}` / `{"error": ...}`.
enum ToolRoutes {
    static let sessionZone = "tools.date.zone"
    static let sessionFormat = "tools.date.format"
    static let commonZones = [
        "UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "America/New_York", "America/Chicago",
        "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Shanghai",
        "Asia/Tokyo", "Australia/Sydney",
    ]

    /// The encryption tool's own bcrypt threads, for the process's life (as
    /// `PasswordHasher.shared`): its hashes (up to cost 14) queue there, never in front of a
    /// sign-in, and a flood of them is refused with a 503 when its queue is full.
    static let toolHasher = PasswordHasher(threads: 1, capacity: 8)

    /// The tool routes, whose bcrypt runs on `hasher`.
    static func install(in app: App, hasher: PasswordHasher = toolHasher) {
        app.before("/tools/*") { request in try request.authenticate() }

        app.get("/tools/date-conversion/?") { request in
            try dateConversion(request)
        }
        app.get("/tools/data-encoding/?") { request in
            try dataEncoding(request)
        }
        app.get("/tools/data-encryption/?") { request in
            try answer(request, template: "tools/data-encryption", title: "Data Encryption",
                values: encryptionValues(request, operation: .sha256, cost: DataEncryption.defaultCost), outcome: nil)
        }
        app.post("/tools/data-encryption/?") { request in
            try await dataEncryption(request, hasher: hasher)
        }
    }

    // MARK: Date conversion

    private static func dateConversion(_ request: Request) throws -> Response {
        let params = request.params
        let session = request.session
        // A zone with a control character is taken as sent (a tab is not trimmed away) so that
        // it is refused, never remembered.
        let zoneName = params["zone"].flatMap { DateConversion.hasControlCharacter($0) ? $0 : nil }
            ?? params["zone"].nonEmpty ?? session[sessionZone] ?? "UTC"
        let formatName = params["format"].nonEmpty ?? session[sessionFormat] ?? "iso8601"
        let unit = DateConversion.Unit(rawValue: params["unit"] ?? "") ?? .milliseconds
        var millis = params["millis"]?.trimmingCharacters(in: .whitespaces) ?? ""
        var date = params["date"]?.trimmingCharacters(in: .whitespaces) ?? ""
        var outcome: Result<String, ToolError>?
        do throws(ToolError) {
            let zone = try DateConversion.zone(named: zoneName)
            let format = try DateConversion.Format.named(formatName)
            // The choices are remembered once they are valid, and only when the request came
            // from the app's own pages (or a bookmark): the session cookie (SameSite=Lax) comes
            // with a link followed from any site, and such a link must not change them.
            if !isCrossSite(request) {
                if params["zone"].nonEmpty != nil { session[sessionZone] = zoneName }
                if params["format"].nonEmpty != nil { session[sessionFormat] = formatName }
            }
            let direction = params["to"] ?? (millis.isEmpty ? (date.isEmpty ? nil : "millis") : "date")
            if params["now"] != nil {
                let now = DateConversion.now()
                millis = unit == .seconds ? String(now / 1000) : String(now)
                date = try DateConversion.format(now, unit: .milliseconds, as: format, in: zone)
                outcome = .success(date)
            } else if direction == "date" {
                guard let value = Int64(millis) else {
                    throw ToolError(field: "millis", message: millis.isEmpty
                        ? "Enter a number of \(unit.rawValue) since 1970."
                        : "'\(millis)' is not a whole number of \(unit.rawValue).")
                }
                date = try DateConversion.format(value, unit: unit, as: format, in: zone)
                outcome = .success(date)
            } else if direction == "millis" {
                let value = try DateConversion.parse(date, in: zone)
                millis = unit == .seconds ? String(value.floorDivided(by: 1000)) : String(value)
                outcome = .success(millis)
            }
        } catch {
            outcome = .failure(error)
        }
        let values: [String: Any] = [
            "millis": millis, "date": date, "format": formatName, "zone": zoneName,
            "units": options(DateConversion.Unit.allCases.map { ($0.rawValue, $0.label) }, selected: unit.rawValue),
            "formats": DateConversion.Format.suggestions.map { ["value": $0] },
            "zones": commonZones.map { ["value": $0] },
        ]
        return try answer(request, template: "tools/date-conversion", title: "Date Conversion", values: values, outcome: outcome)
    }

    // MARK: Data encoding

    private static func dataEncoding(_ request: Request) throws -> Response {
        let input = request.params["input"] ?? ""
        let operation = DataEncoding.Operation(rawValue: request.params["op"] ?? "")
        var outcome: Result<String, ToolError>?
        if let raw = request.params["op"] {
            if let operation {
                do throws(ToolError) {
                    outcome = .success(try DataEncoding.apply(operation, to: input))
                } catch {
                    outcome = .failure(error)
                }
            } else {
                outcome = .failure(ToolError(field: "op", message: "Unknown operation '\(raw)'."))
            }
        }
        let values: [String: Any] = [
            "input": input,
            "operations": options(DataEncoding.Operation.allCases.map { ($0.rawValue, $0.label) },
                selected: (operation ?? .base64Encode).rawValue),
        ]
        return try answer(request, template: "tools/data-encoding", title: "Data Encoding", values: values, outcome: outcome)
    }

    // MARK: Data encryption

    private static func dataEncryption(_ request: Request, hasher: PasswordHasher) async throws -> Response {
        let params = request.params
        let operation = DataEncryption.Operation(rawValue: params["op"] ?? "")
        let costText = params["cost"].nonEmpty
        let cost = costText.flatMap { Int($0) }
        var outcome: Result<String, ToolError>
        if let operation {
            if costText != nil, cost == nil {
                outcome = .failure(ToolError(field: "cost", message: "The cost must be a whole number from 4 to 14."))
            } else {
                let input = params["input"] ?? ""
                let key = params["key"]
                let hash = params["hash"]
                // bcrypt takes up to a second or two at cost 14: never on the event loop, and
                // never on the sign-in's threads, which a flood of these would hold.
                outcome = try await hasher.run {
                    Result { () throws(ToolError) -> String in
                        try DataEncryption.apply(operation, input: input, key: key, hash: hash, cost: cost)
                    }
                }
            }
        } else {
            outcome = .failure(ToolError(field: "op", message: "Unknown operation '\(params["op"] ?? "")'."))
        }
        return try answer(request, template: "tools/data-encryption", title: "Data Encryption",
            values: encryptionValues(request, operation: operation ?? .sha256, cost: cost ?? DataEncryption.defaultCost),
            outcome: outcome)
    }

    private static func encryptionValues(_ request: Request, operation: DataEncryption.Operation, cost: Int) -> [String: Any] {
        // The input and the key are secrets: they are shown again only after a POST, never put
        // in a URL.
        let posted = request.method == .POST
        return [
            "input": posted ? request.params["input"] ?? "" : "",
            "key": posted ? request.params["key"] ?? "" : "",
            "hash": posted ? request.params["hash"] ?? "" : "",
            "cost": String(cost),
            "operations": options(DataEncryption.Operation.allCases.map { ($0.rawValue, $0.label) }, selected: operation.rawValue),
        ]
    }

    // MARK: Answering

    /// The page (status 422 on an error) or, when the client asks for JSON, the result.
    private static func answer(
        _ request: Request, template: String, title: String, values: [String: Any], outcome: Result<String, ToolError>?
    ) throws -> Response {
        if case .failure = outcome { request.response.status = .unprocessableEntity }
        if request.prefersJson {
            // A result may be a digest of a secret: no cache keeps it, whoever asked (Micro
            // already says so for a signed-in session; this holds should the tools ever open up).
            request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
            switch outcome {
            case .success(let result): return try JsonBody(["result": result]).makeResponse(for: request)
            case .failure(let error): return try JsonBody(["error": error.message, "field": error.field]).makeResponse(for: request)
            case nil:
                request.response.status = .badRequest
                return try JsonBody(["error": "Nothing to compute: give the tool's parameters."]).makeResponse(for: request)
            }
        }
        var context = values
        context["title"] = title
        if case .success(let result) = outcome {
            context["hasResult"] = true
            context["result"] = result
        }
        if case .failure(let error) = outcome {
            context["errors"] = [error.field: error.message]
            context["error"] = error.message
        }
        return try request.render(template, context).makeResponse(for: request)
    }

    /// Whether the browser says the request was started by another site (`Sec-Fetch-Site:
    /// cross-site`: a link, a form or an image there). Older browsers send no such header.
    private static func isCrossSite(_ request: Request) -> Bool {
        request.headers.first(name: "Sec-Fetch-Site")?.lowercased() == "cross-site"
    }

    /// Choices for a `<select>`, the chosen one marked.
    private static func options(_ choices: [(value: String, label: String)], selected: String) -> [[String: Any]] {
        choices.map { ["value": $0.value, "label": $0.label, "selected": $0.value == selected] }
    }
}

extension Optional where Wrapped == String {
    /// The text, unless it is missing or blank.
    var nonEmpty: String? {
        guard let text = self?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }
}

extension Int64 {
    /// Division rounding toward minus infinity, so -1 ms is second -1, not 0.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
