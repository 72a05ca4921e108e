/**
 * The browser side of passkeys, served by us as one external script (`PASSKEY_PATHS.script`) so the pages keep a
 * CSP without inline script (`script-src 'nonce-…'` on the script element). No library, no CDN: it turns the
 * server's JSON options (base64url members, as `@simplewebauthn/server` makes them) into the binary form
 * `navigator.credentials` wants, and the credential back into JSON (WebAuthn Level 3 §5.1.8 `toJSON` shape), which
 * it puts into the form's hidden `credential` field and submits. The form carries the CSRF token; no fetch, so the
 * CSP needs no `connect-src`.
 *
 * Forms it drives (attributes set by lib/features/passkeys/views.ts):
 * - `form[data-passkey=create]` with `data-options` (creation options): on submit, `credentials.create`.
 * - `form[data-passkey=get]` with `data-options` (request options): on submit, `credentials.get`; with
 *   `data-conditional`, also a conditional request at load (autofill in `autocomplete="username webauthn"`).
 * The words come from the page, not from this script: the form's `data-messages` attribute holds a JSON object
 * (`cancelled`, `failed`, `exists`) in the request's language (`passkey.script.*` messages); a message goes to
 * the element named by `data-error`. So the script stays one static, cacheable file under the CSP.
 */
export const PASSKEY_SCRIPT = `(function () {
  'use strict';
  if (!window.PublicKeyCredential || !navigator.credentials) return;
  function enc(buffer) {
    var bytes = new Uint8Array(buffer), text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function dec(value) {
    var text = atob(value.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((value.length + 3) % 4));
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  function withIds(list) {
    return (list || []).map(function (c) { return { type: c.type, id: dec(c.id), transports: c.transports }; });
  }
  function creation(o) {
    var p = Object.assign({}, o, { challenge: dec(o.challenge), user: Object.assign({}, o.user,
      { id: dec(o.user.id) }) });
    p.excludeCredentials = withIds(o.excludeCredentials);
    return p;
  }
  function request(o) {
    var p = Object.assign({}, o, { challenge: dec(o.challenge) });
    if (o.allowCredentials) p.allowCredentials = withIds(o.allowCredentials);
    return p;
  }
  function toJSON(cred) {
    var r = cred.response;
    var out = { id: cred.id, rawId: enc(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults(), response: { clientDataJSON: enc(r.clientDataJSON) } };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = enc(r.attestationObject);
      if (typeof r.getTransports === 'function') out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = enc(r.authenticatorData);
      out.response.signature = enc(r.signature);
      if (r.userHandle) out.response.userHandle = enc(r.userHandle);
    }
    return JSON.stringify(out);
  }
  function say(form, err) {
    var el = document.getElementById(form.getAttribute('data-error') || '');
    if (!el) return;
    var messages = {};
    try { messages = JSON.parse(form.getAttribute('data-messages') || '{}'); } catch (e) { /* keep none */ }
    var key = err && err.name === 'InvalidStateError' ? 'exists' : err && err.name === 'NotAllowedError' ? 'cancelled'
      : 'failed';
    el.textContent = messages[key] || messages.failed || '';
    el.hidden = false;
    var button = form.querySelector('button');
    if (button) button.focus();
  }
  function send(form, cred) {
    form.elements.namedItem('credential').value = toJSON(cred);
    form.submit();
  }
  document.querySelectorAll('form[data-passkey=create]').forEach(function (form) {
    form.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var options = creation(JSON.parse(form.getAttribute('data-options')));
      navigator.credentials.create({ publicKey: options }).then(function (cred) { send(form, cred); },
        function (err) { say(form, err); });
    });
  });
  document.querySelectorAll('form[data-passkey=get]').forEach(function (form) {
    var json = JSON.parse(form.getAttribute('data-options'));
    var running = null;
    var sent = false; // one assertion per page: a superseded request that still settles is ignored
    function run(conditional) {
      if (running) running.abort();
      var controller = new AbortController();
      running = controller;
      var req = { publicKey: request(json), signal: controller.signal };
      if (conditional) req.mediation = 'conditional';
      navigator.credentials.get(req).then(function (cred) {
        if (!cred || sent || controller !== running) return;
        sent = true;
        send(form, cred);
      }, function (err) {
        if (!conditional && controller === running && err.name !== 'AbortError') say(form, err);
      });
    }
    form.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      run(false);
    });
    if (form.hasAttribute('data-conditional')
      && typeof PublicKeyCredential.isConditionalMediationAvailable === 'function') {
      PublicKeyCredential.isConditionalMediationAvailable().then(function (available) { if (available) run(true); },
        function () {});
    }
  });
})();
`;
