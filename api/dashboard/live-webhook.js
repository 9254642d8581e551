// The live view of one webhook: new captures arrive over Server-Sent Events and are added on top
// (not on a search's page, which has no live status). Everything from a request is put in the page
// as text (textContent), never as HTML. On every page of a webhook: copy as curl, and Replay… fills
// the replay form with the capture's id.
(() => {
  const list = document.getElementById('requests');
  const status = document.getElementById('live-status');
  if (!list) return;
  const webhook = list.dataset.webhook;
  const seen = [...list.querySelectorAll('article[data-id]')].map((a) => Number(a.dataset.id));
  const after = seen.length ? Math.max(...seen) : 0;

  const el = (tag, props = {}, children = []) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === 'text') node.textContent = v;
      else if (k.startsWith('data-')) node.setAttribute(k, v);
      else node[k] = v;
    }
    for (const c of children) node.append(c);
    return node;
  };

  const card = (r) =>
    el('article', { className: 'req', 'data-id': String(r.id) }, [
      el('h2', {}, [`#${r.id} `, el('strong', { text: r.method }), ' ', el('code', { className: 'path', text: r.path }), ' ', el('time', { dateTime: r.created_at, text: r.created_at }), ` from ${r.ip_address}`]),
      el('details', {}, [el('summary', { text: 'Headers' }), el('pre', { text: Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`).join('\n') })]),
      ...(r.query_params ? [el('p', {}, ['Query ', el('code', { text: r.query_params })])] : []),
      el('pre', { className: 'body', text: r.pretty_body }),
      ...(r.delivery ? [el('p', { className: 'delivery', text: `Forwarded: ${r.delivery.status} (reload for the delivery log)` })] : []),
      el('button', { type: 'button', className: 'secondary copy-curl', text: 'Copy as curl', 'data-curl': r.curl }),
      ' ',
      el('button', { type: 'button', className: 'secondary replay-this', text: 'Replay…', 'data-id': String(r.id) }),
    ]);

  list.addEventListener('click', async (event) => {
    const replay = event.target.closest('.replay-this');
    const form = document.getElementById('replay');
    if (replay && form) {
      form.elements.request_id.value = replay.dataset.id;
      form.elements.target_url.focus();
      return;
    }
    const button = event.target.closest('.copy-curl');
    if (!button) return;
    try {
      await navigator.clipboard.writeText(button.dataset.curl);
      button.textContent = 'Copied';
    } catch {
      window.prompt('Copy this command', button.dataset.curl);
    }
  });

  if (!status) return; // a search's results: not live
  const source = new EventSource(`/dashboard/webhooks/${encodeURIComponent(webhook)}/events?after=${after}`);
  source.addEventListener('open', () => (status.textContent = 'Live: new requests appear here as they arrive.'));
  source.addEventListener('requests', (event) => {
    const { data } = JSON.parse(event.data);
    // Newest first in the answer: add oldest first so the newest ends on top.
    for (const r of [...data.requests].reverse()) {
      if (list.querySelector(`article[data-id="${r.id}"]`)) continue;
      list.prepend(card(r));
    }
    if (data.requests.length) status.textContent = `Live: ${data.requests.length} new request(s) at ${new Date().toLocaleTimeString()}.`;
  });
  source.addEventListener('end', () => {
    status.textContent = 'This webhook was deleted.';
    source.close();
  });
  source.addEventListener('error', () => (status.textContent = 'Reconnecting…'));
})();
