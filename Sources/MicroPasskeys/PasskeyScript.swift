import MicroCore

/// The passkeys' script, one same-origin file (the app's Content-Security-Policy allows
/// scripts from `'self'` only, and no inline script): it runs the browser's dialog for the
/// account page's add form (after a passkey's own dialog, for its button that confirms with
/// one) and for the sign-in page's button (and the username field's autofill, where the
/// browser offers passkeys there), and posts each answer back, base64url field by field.
///
/// The options are turned into the browser's types here rather than with
/// `PublicKeyCredential.parseCreationOptionsFromJSON`, which not every current browser has.
enum PasskeyScript {
    /// The file's text.
    static let source = #"""
        "use strict";
        (() => {
          const bytes = (text) => {
            const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
            return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), (c) => c.charCodeAt(0));
          };
          const text = (buffer) => {
            let binary = "";
            for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
            return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          };
          const post = async (url, fields, signal) => {
            const response = await fetch(url, {
              method: "POST", credentials: "same-origin", body: new URLSearchParams(fields),
              headers: { "Accept": "application/json" }, signal,
            });
            const answer = await response.json().catch(() => ({}));
            if (!response.ok) throw new Error(answer.fields ? Object.values(answer.fields).flat().join(" ") : answer.error || `The server refused (${response.status}).`);
            return answer;
          };
          const refusal = (error) => error.name === "NotAllowedError" ? "No passkey was used: the dialog was closed or timed out." :
            error.name === "InvalidStateError" ? "This device holds one of your passkeys already." : error.message;
          const show = (form, message) => {
            const out = form.querySelector("[data-passkey-error]");
            out.textContent = message;
            out.hidden = !message;
          };

          // A dialog's options for navigator.credentials.get, and its answer as the pages take it.
          const requestOptions = (options) => {
            options.challenge = bytes(options.challenge);
            for (const allowed of options.allowCredentials) allowed.id = bytes(allowed.id);
            return options;
          };
          const assertion = (credential) => {
            const response = credential.response;
            return {
              credential_id: text(credential.rawId), client_data: text(response.clientDataJSON),
              authenticator_data: text(response.authenticatorData), signature: text(response.signature),
              user_handle: response.userHandle ? text(response.userHandle) : "",
            };
          };

          const add = document.querySelector("form[data-passkey=create]");
          if (add) {
            const buttons = add.querySelectorAll("button[type=submit]");
            if (!window.PublicKeyCredential) {
              show(add, "This browser cannot make passkeys.");
              for (const button of buttons) button.disabled = true;
            }
            // Options granted by a passkey's confirmation whose second dialog the browser
            // refused (one that allows one dialog a click): the next press opens it alone.
            let granted = null;
            add.addEventListener("submit", async (event) => {
              event.preventDefault();
              show(add, "");
              // The button that confirms with a passkey you have: that passkey's dialog first,
              // its answer in place of the password and code.
              const byPasskey = Boolean(event.submitter && "passkeyProof" in event.submitter.dataset);
              if (byPasskey && !add.elements.name.reportValidity()) return;
              for (const button of buttons) button.disabled = true;
              try {
                const csrf = add.elements._csrf.value;
                let options = byPasskey ? granted : null;
                granted = null;
                if (!options) {
                  let fields = new FormData(add);
                  if (byPasskey) {
                    const proof = requestOptions(await post(add.dataset.proofOptions, { _csrf: csrf }));
                    fields = { _csrf: csrf, ...assertion(await navigator.credentials.get({ publicKey: proof })) };
                  }
                  options = await post(add.dataset.options, fields);
                  options.challenge = bytes(options.challenge);
                  options.user.id = bytes(options.user.id);
                  for (const excluded of options.excludeCredentials) excluded.id = bytes(excluded.id);
                }
                let credential;
                try {
                  credential = await navigator.credentials.create({ publicKey: options });
                } catch (error) {
                  if (byPasskey && error.name === "NotAllowedError") {
                    granted = options;
                    throw new Error("Your passkey confirmed it: press the button again to make the new passkey.");
                  }
                  throw error;
                }
                const answer = await post(add.action, {
                  _csrf: csrf, name: add.elements.name.value, credential_id: text(credential.rawId),
                  client_data: text(credential.response.clientDataJSON),
                  authenticator_data: text(credential.response.getAuthenticatorData()),
                  algorithm: String(credential.response.getPublicKeyAlgorithm()),
                });
                location.assign(answer.location);
              } catch (error) {
                show(add, refusal(error));
              } finally {
                for (const button of buttons) button.disabled = false;
              }
            });
          }

          // The sign-in page's button, and the second step's: the dialog, then the answer.
          for (const form of document.querySelectorAll("form[data-passkey=get]")) {
            if (!window.PublicKeyCredential) {
              form.hidden = true;
              continue;
            }
            const csrf = form.elements._csrf.value;
            const button = form.querySelector("button[type=submit]");
            // The autofill's request, waiting while the page is open; the button's replaces it.
            let waiting = null;
            const ceremony = async (mediation, signal) => {
              const options = requestOptions(await post(form.dataset.options, { _csrf: csrf }, signal));
              const request = { publicKey: options };
              if (mediation) {
                request.mediation = mediation;
                request.signal = signal;
              }
              const credential = await navigator.credentials.get(request);
              const answer = await post(form.action, { _csrf: csrf, ...assertion(credential) });
              location.assign(answer.location);
            };
            const field = document.querySelector("input[autocomplete~=webauthn]");
            let failures = 0;
            // Offers the passkeys in the username field's autofill, with fresh options each
            // time: after a refusal (a few times, not for ever while the server is away), and a
            // little before the challenge's lifetime (PasskeyChallenge.lifetime) ends.
            const autofill = async () => {
              if (!("autofill" in form.dataset) || !field || !PublicKeyCredential.isConditionalMediationAvailable) return;
              if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
              const controller = new AbortController();
              waiting = controller;
              const renew = setTimeout(() => { if (waiting === controller) { controller.abort(); autofill(); } }, 240000);
              try {
                await ceremony("conditional", controller.signal);
              } catch (error) {
                if (error.name === "AbortError" || controller.signal.aborted) return;
                show(form, refusal(error));
                if (waiting === controller && ++failures < 3) setTimeout(autofill, 2000);
              } finally {
                clearTimeout(renew);
              }
            };
            form.addEventListener("submit", async (event) => {
              event.preventDefault();
              show(form, "");
              if (waiting) waiting.abort();
              waiting = null;
              button.disabled = true;
              try {
                await ceremony(null);
              } catch (error) {
                show(form, refusal(error));
                autofill();
              } finally {
                button.disabled = false;
              }
            });
            autofill();
          }
        })();

        """#

    /// Sends the file: JavaScript, kept by the browser but checked again each time (its entity
    /// tag is the text's digest, so a 304 until the app's upgrade changes it).
    static func send(_ request: Request) throws -> Never {
        request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-cache")
        try request.sendData(source, contentType: "text/javascript; charset=utf-8")
    }
}
