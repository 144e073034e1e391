/**
 * The page's behaviour: countdown, polling of the status every 2 s, copy to the clipboard,
 * simulated payment of development charges, and the move to `successUrl`/`failedUrl` at the end.
 * Plain ES2017 (no build step), run under the page's CSP nonce.
 */
export const paymentPageScript = `(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var data = JSON.parse($('pay-data').textContent);
  var labels = { PENDING: 'Aguardando pagamento', PROCESSING: 'Pagamento em processamento…', PAID: 'Pagamento confirmado', RECEIVED: 'Pagamento confirmado', EXPIRED: 'Cobrança expirada' };
  var POLL_MS = 2000;
  var HIDDEN_POLL_MS = 10000;
  var REDIRECT_MS = 1500;
  // The server's clock, not the device's, decides when the charge expires.
  var skew = data.now - Date.now();
  var expiresAt = Date.parse(data.expiresAt);
  var finished = false;
  var pollTimer = null;
  var tickTimer = null;
  var feedbackTimer = null;

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function clock(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    if (s <= 3600) return pad(Math.floor(s / 60)) + ':' + pad(s % 60);
    return Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
  }
  function httpUrl(value) {
    if (!value) return null;
    try {
      var url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function tick() {
    if (finished) return;
    var left = expiresAt - (Date.now() + skew);
    $('countdown').textContent = clock(left);
    $('countdown-wrap').classList.toggle('urgent', left < 5 * 60 * 1000);
  }

  function apply(state) {
    if (!state || !labels[state.paymentStatus]) return;
    var label = labels[state.paymentStatus];
    // Only a change is written, so that screen readers announce each state once.
    if ($('status').textContent !== label) $('status').textContent = label;
    if (state.status === 'PAID' || state.status === 'EXPIRED') finish(state, true);
  }

  // The closing card says the outcome once: the status row, which said it while open, goes. A
  // change seen while open moves the focus to the card's title, so that it is announced in place
  // of the live status it replaces.
  function finish(state, live) {
    if (finished) return;
    finished = true;
    clearTimeout(pollTimer);
    clearInterval(tickTimer);
    var paid = state.status === 'PAID';
    var target = httpUrl(paid ? state.successUrl : state.failedUrl);
    $('pay').hidden = true;
    $('state-row').hidden = true;
    $('countdown-wrap').hidden = true;
    if (paid) $('amount-label').textContent = 'Valor pago';
    var done = $('done');
    done.className = 'card done ' + (paid ? 'paid' : 'expired');
    $('done-title').textContent = paid ? 'Pagamento confirmado' : 'Cobrança expirada';
    $('done-text').textContent = paid
      ? 'Obrigado! O pagamento de ' + data.amount + ' foi confirmado.'
      : 'O prazo para pagar esta cobrança terminou. Nenhum valor foi cobrado.';
    var link = $('done-link');
    if (target) {
      link.href = target;
      link.hidden = false;
      $('done-note').textContent = 'Você será levado de volta à loja em instantes.';
    } else {
      link.hidden = true;
      $('done-note').textContent = '';
    }
    done.hidden = false;
    if (live) $('done-title').focus();
    if (target) setTimeout(function () { window.location.replace(target); }, REDIRECT_MS);
  }

  function connection(ok) {
    var note = $('connection');
    note.hidden = ok;
    note.textContent = ok ? '' : 'Sem conexão com o servidor. Tentando de novo…';
  }

  function schedule() {
    clearTimeout(pollTimer);
    if (!finished) pollTimer = setTimeout(poll, document.hidden ? HIDDEN_POLL_MS : POLL_MS);
  }

  function poll() {
    if (finished) return;
    clearTimeout(pollTimer);
    fetch(data.statusUrl, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (state) { connection(true); apply(state); }, function () { connection(false); })
      .then(schedule, schedule);
  }

  function say(text) {
    var feedback = $('copy-feedback');
    clearTimeout(feedbackTimer);
    // Emptied first, so that a second "Copiado" is announced again.
    feedback.textContent = '';
    feedbackTimer = setTimeout(function () {
      feedback.textContent = text;
      feedbackTimer = setTimeout(function () { feedback.textContent = ''; }, 5000);
    }, 50);
  }

  function copyByHand(field) {
    field.focus();
    field.select();
    field.setSelectionRange(0, field.value.length);
    var copied = false;
    try { copied = document.execCommand('copy'); } catch (e) { copied = false; }
    say(copied ? 'Copiado' : 'Não foi possível copiar: selecione o código e copie manualmente.');
  }

  $('copy').addEventListener('click', function () {
    var field = $('brcode');
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { say('Copiado'); }, function () { copyByHand(field); });
    } else {
      copyByHand(field);
    }
  });
  $('brcode').addEventListener('focus', function (event) { event.target.select(); });

  var form = $('simulate-form');
  if (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = $('simulate');
      button.disabled = true;
      button.textContent = 'Simulando…';
      $('error').textContent = '';
      fetch(form.action, { method: 'POST', headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (response) {
          if (response.ok) return response.json();
          var reason = response.status === 409 ? 'esta cobrança não está mais aberta.'
            : response.status === 403 ? 'só cobranças de teste podem ser simuladas.'
            : response.status === 404 ? 'a cobrança não foi encontrada.'
            : 'tente de novo.';
          throw new Error('Não foi possível simular o pagamento: ' + reason);
        })
        .then(apply)
        .catch(function (error) {
          button.disabled = false;
          button.textContent = 'Simular pagamento';
          $('error').textContent = error && error.message && error.message.indexOf('Não foi') === 0 ? error.message : 'Não foi possível simular o pagamento: tente de novo.';
          poll();
        });
    });
  }

  document.addEventListener('visibilitychange', function () { if (!document.hidden) poll(); });

  if (data.status === 'PAID' || data.status === 'EXPIRED') {
    finish(data, false);
  } else {
    tick();
    tickTimer = setInterval(tick, 1000);
    schedule();
  }
})();`;
