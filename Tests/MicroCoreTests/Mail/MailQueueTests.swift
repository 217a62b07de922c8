import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

@Suite struct MailQueueTests {
    static func message(_ number: Int) -> MailMessage {
        MailMessage(from: try! MailAddress("tools@example.com"), to: try! MailAddress("ann\(number)@example.com"), subject: "Number \(number)", body: "")
    }

    /// A mailer that takes as long as its gate is shut: a slow server, or one that never answers.
    final class GatedMailer: Mailer {
        let open = Flag()
        let started = Locked(0)
        let sent = Locked<[String]>([])

        func send(_ message: MailMessage) async throws {
            started.withLock { $0 += 1 }
            while !open.isSet { try await Task.sleep(for: .milliseconds(5)) }
            sent.withLock { $0.append(message.subject) }
        }
    }

    @Test func messagesAreSentInTheirOrder() async {
        let mailer = RecordingMailer()
        let queue = MailQueue(mailer: mailer, logger: .quietForTests)
        for number in 1...20 { #expect(queue.enqueue(Self.message(number))) }
        let sent = await mailer.messages(atLeast: 20)
        #expect(sent.map(\.subject) == (1...20).map { "Number \($0)" })
        await queue.shutdown()
    }

    @Test func aFullQueueRefusesAndSaysSo() async {
        let mailer = GatedMailer()
        let log = LogRecorder()
        let queue = MailQueue(mailer: mailer, capacity: 3, logger: log.logger)
        #expect(queue.enqueue(Self.message(0)))
        // The first is being sent; three wait; the fifth finds no room.
        while mailer.started.withLock({ $0 }) == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        for number in 1...3 { #expect(queue.enqueue(Self.message(number))) }
        #expect(!queue.enqueue(Self.message(4)))
        #expect(log.messages(at: .warning) == ["Mail to ann4@example.com not sent: the mail queue is full (3 messages waiting)."])
        mailer.open.set()
        await queue.shutdown()
        #expect(mailer.sent.withLock { $0 } == ["Number 0", "Number 1", "Number 2", "Number 3"])
    }

    @Test func aFailureIsLoggedWithItsReasonAndTheNextIsSent() async {
        let mailer = RecordingMailer(failure: MailError("smtp.example.com:587: connection refused"))
        let log = LogRecorder()
        let queue = MailQueue(mailer: mailer, logger: log.logger)
        #expect(queue.enqueue(Self.message(1)))
        while log.messages(at: .error).isEmpty { try? await Task.sleep(for: .milliseconds(2)) }
        mailer.failure = nil
        #expect(queue.enqueue(Self.message(2)))
        await queue.shutdown()
        #expect(log.messages(at: .error) == ["Mail to ann1@example.com not sent: smtp.example.com:587: connection refused"])
        #expect(mailer.messages.map(\.subject) == ["Number 2"])
    }

    @Test func shutdownWaitsForWhatIsQueuedThenRefusesMore() async {
        let mailer = GatedMailer()
        let log = LogRecorder()
        let queue = MailQueue(mailer: mailer, logger: log.logger)
        for number in 1...3 { #expect(queue.enqueue(Self.message(number))) }
        Task {
            try? await Task.sleep(for: .milliseconds(100))
            mailer.open.set()
        }
        await queue.shutdown(timeout: .seconds(10))
        #expect(mailer.sent.withLock { $0 } == ["Number 1", "Number 2", "Number 3"])
        #expect(!queue.enqueue(Self.message(4)))
        #expect(log.messages(at: .warning) == ["Mail to ann4@example.com not sent: the mail queue is shut down."])
    }

    @Test func shutdownIsBounded() async {
        let mailer = GatedMailer()
        let log = LogRecorder()
        let queue = MailQueue(mailer: mailer, logger: log.logger)
        for number in 1...3 { #expect(queue.enqueue(Self.message(number))) }
        // The gate never opens: without its bound, the shutdown would never return. (A time
        // measured here would say more about the machine: with the whole suite at once on two
        // cores, the 0.2 s took seconds.)
        await queue.shutdown(timeout: .milliseconds(200))
        #expect(mailer.sent.withLock { $0 }.isEmpty)
        #expect(log.messages(at: .error).contains("The mail queue stopped after 0.2 s with 3 messages not sent."))
    }
}
