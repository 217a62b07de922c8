"""Four aiosmtpd servers on 127.0.0.1 for Micro's mail client (Tests/Mail/with-mail-server.sh):

  plain     no TLS required (STARTTLS offered, not required), no AUTH
  starttls  STARTTLS required before anything else, then AUTH (PLAIN and LOGIN) required
  tls       TLS from the first byte (implicit TLS, smtps), AUTH offered
  notls     plain, and offers no STARTTLS at all

Each keeps the messages it receives in a folder of its own under --maildir: NNNN.eml (the
message as received, dot-stuffing undone) and NNNN.json (the envelope, whether it came over
TLS, the login, and the headers and body as Python's email package reads them). Writes --ready once all four listen; stops on SIGTERM or SIGINT.
"""

import argparse
import email
import email.policy
import json
import os
import signal
import ssl
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Keeper:
    """Saves each message into its folder, each file written whole before it appears."""

    def __init__(self, folder):
        self.folder = folder
        self.count = 0
        self.lock = threading.Lock()
        os.makedirs(folder, mode=0o755, exist_ok=True)

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            base = os.path.join(self.folder, f"{self.count:04d}")
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        # The message as Python's own parser reads it: a second opinion on the headers' encoded
        # words and the body's quoted-printable.
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        sender, recipient = parsed["from"].addresses[0], parsed["to"].addresses[0]
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            # session.ssl is set by STARTTLS only; a connection of implicit TLS shows in its transport.
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "login": login,
            "headers": list(parsed.keys()),
            "from": [sender.display_name, sender.addr_spec],
            "to": [recipient.display_name, recipient.addr_spec],
            "subject": str(parsed["subject"]),
            "body": parsed.get_content(),
            "defects": [repr(defect) for defect in parsed.defects],
        }
        for suffix, content in ((".eml", envelope.original_content), (".json", json.dumps(record).encode())):
            with open(base + suffix + ".part", "wb") as file:
                file.write(content)
            os.replace(base + suffix + ".part", base + suffix)
        return "250 2.0.0 Ok: kept"


def authenticator(login, password):
    """Takes exactly this login and password."""

    def check(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        ok = auth_data.login.decode() == login and auth_data.password.decode() == password
        # handled=False: aiosmtpd then answers a refusal itself (535); True would leave it unanswered.
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    return check


def main():
    parser = argparse.ArgumentParser()
    for name in ("plain", "starttls", "tls", "notls"):
        parser.add_argument(f"--{name}-port", type=int, required=True)
    parser.add_argument("--certificate", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--login", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--maildir", required=True)
    parser.add_argument("--ready", required=True)
    arguments = parser.parse_args()
    os.umask(0o022)

    def tls_context():
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(arguments.certificate, arguments.key)
        return context

    check = authenticator(arguments.login, arguments.password)
    common = dict(hostname="127.0.0.1", server_hostname="mail.test", ready_timeout=30)
    controllers = [
        Controller(Keeper(os.path.join(arguments.maildir, "plain")), port=arguments.plain_port, tls_context=tls_context(), **common),
        Controller(
            Keeper(os.path.join(arguments.maildir, "starttls")), port=arguments.starttls_port, tls_context=tls_context(),
            require_starttls=True, authenticator=check, auth_required=True, **common),
        # auth_require_tls=False: aiosmtpd counts only STARTTLS as TLS, and would offer no AUTH
        # on a connection that is TLS from its first byte.
        Controller(
            Keeper(os.path.join(arguments.maildir, "tls")), port=arguments.tls_port, ssl_context=tls_context(),
            authenticator=check, auth_require_tls=False, **common),
        Controller(Keeper(os.path.join(arguments.maildir, "notls")), port=arguments.notls_port, **common),
    ]
    for controller in controllers:
        controller.start()
    with open(arguments.ready, "w") as file:
        file.write("ready\n")

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    for controller in controllers:
        controller.stop()


if __name__ == "__main__":
    main()
