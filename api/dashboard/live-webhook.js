// The inspector of one webhook: the list of captures and the selected one in full beside it (below on
// a narrow screen). New captures arrive over Server-Sent Events, rendered and escaped by the server,
// and go on top of the list with a brief highlight (not on a search's page, which has no live
// status); the newest is shown until the user picks another. Times in the list say how long ago,
// updated every 10 s (the exact time on hover). Copy buttons, copy as curl, and Replay… filling the
// replay form with the capture's id.
(() => {
  const detail = document.getElementById('requests');
  const list = document.getElementById('capture-list');
  const status = document.getElementById('live-status');
  if (!detail || !list) return;
  const webhook = detail.dataset.webhook;
  const seen = [...detail.querySelectorAll('article[data-id]')].map((a) => Number(a.dataset.id));
  const after = seen.length ? Math.max(...seen) : 0;
  /** The user picked a capture: new ones no longer take its place. */
  let picked = false;

  const select = (id) => {
    for (const a of detail.querySelectorAll('article[data-id]')) a.hidden = a.dataset.id !== String(id);
    for (const a of list.querySelectorAll('a[data-id]')) {
      if (a.dataset.id === String(id)) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
    }
  };

  list.addEventListener('click', (event) => {
    const link = event.target.closest('a[data-id]');
    if (!link) return;
    event.preventDefault();
    picked = true;
    select(link.dataset.id);
    // On a narrow screen the detail is below the list: bring it into view.
    if (detail.getBoundingClientRect().top > window.innerHeight) detail.scrollIntoView({ block: 'start' });
  });

  const copy = async (button, text, done) => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = done;
    } catch {
      window.prompt('Copy this', text);
    }
  };
  document.addEventListener('click', (event) => {
    const plain = event.target.closest('button.copy');
    if (plain) return void copy(plain, plain.dataset.copy, 'Copied');
    const curl = event.target.closest('.copy-curl');
    if (curl) return void copy(curl, curl.dataset.curl, 'Copied');
    const replay = event.target.closest('.replay-this');
    const form = document.getElementById('replay');
    if (replay && form) {
      form.elements.request_id.value = replay.dataset.id;
      form.elements.target_url.focus();
    }
  });

  /** "12 s ago": as the server writes it (webhook-cards.ts). */
  const ago = (iso) => {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return `${Math.floor(s / 86400)} d ago`;
  };
  setInterval(() => {
    for (const t of list.querySelectorAll('time[datetime]')) t.textContent = ago(t.dateTime);
  }, 10_000);

  if (!status) return; // a search's results: not live
  const source = new EventSource(`/dashboard/webhooks/${encodeURIComponent(webhook)}/events?after=${after}`);
  source.addEventListener('open', () => (status.textContent = 'Live: new requests appear here as they arrive.'));
  source.addEventListener('requests', (event) => {
    const { data } = JSON.parse(event.data);
    // Newest first in the answer: add oldest first so the newest ends on top.
    for (const r of [...data.requests].reverse()) {
      if (detail.querySelector(`article[data-id="${r.id}"]`)) continue;
      list.insertAdjacentHTML('afterbegin', r.item); // rendered and escaped by the server
      detail.insertAdjacentHTML('afterbegin', r.card);
      list.firstElementChild.classList.add('fresh');
    }
    if (!data.requests.length) return;
    document.getElementById('no-captures')?.remove();
    if (!picked) select(data.requests[0].id);
    status.textContent = `Live: ${data.requests.length} new request(s) at ${new Date().toLocaleTimeString()}.`;
  });
  source.addEventListener('end', () => {
    status.textContent = 'This webhook was deleted.';
    source.close();
  });
  source.addEventListener('error', () => (status.textContent = 'Reconnecting…'));
})();
