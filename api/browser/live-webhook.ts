// The inspector of one webhook: the list of captures and the selected one in full beside it (below on
// a narrow screen). New captures arrive over Server-Sent Events, rendered and escaped by the server,
// and go on top of the list with a brief highlight (not on a search's page, which has no live
// status); the newest is shown until the user picks another. Times in the list say how long ago,
// updated every 10 s (the exact time on hover). Copy buttons, copy as curl, and Replay… filling the
// replay form with the capture's id.

/** A `requests` event: the new captures, newest first, each rendered by the server (webhooks.ts). */
interface RequestsEvent {
  data: { requests: Array<{ id: number; item: string; card: string }> };
}

const detail = document.getElementById('requests');
const list = document.getElementById('capture-list');
if (detail && list) inspect(detail, list, document.getElementById('live-status'));

function inspect(detail: HTMLElement, list: HTMLElement, status: HTMLElement | null) {
  const webhook = detail.dataset.webhook ?? '';
  const seen = [...detail.querySelectorAll<HTMLElement>('article[data-id]')].map((a) => Number(a.dataset.id));
  const after = seen.length ? Math.max(...seen) : 0;
  /** The user picked a capture: new ones no longer take its place. */
  let picked = false;

  const select = (id: number | string) => {
    for (const a of detail.querySelectorAll<HTMLElement>('article[data-id]')) a.hidden = a.dataset.id !== String(id);
    for (const a of list.querySelectorAll<HTMLElement>('a[data-id]')) {
      if (a.dataset.id === String(id)) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
    }
  };
  /** The element at or above the event's target that matches `selector`. */
  const closest = (event: Event, selector: string) =>
    event.target instanceof Element ? event.target.closest<HTMLElement>(selector) : null;

  list.addEventListener('click', (event) => {
    const link = closest(event, 'a[data-id]');
    if (!link) return;
    event.preventDefault();
    picked = true;
    select(link.dataset.id ?? '');
    // On a narrow screen the detail is below the list: bring it into view.
    if (detail.getBoundingClientRect().top > window.innerHeight) detail.scrollIntoView({ block: 'start' });
  });

  const copy = async (button: HTMLElement, text: string | undefined, done: string) => {
    try {
      await navigator.clipboard.writeText(text ?? '');
      button.textContent = done;
    } catch {
      window.prompt('Copy this', text);
    }
  };
  document.addEventListener('click', (event) => {
    const plain = closest(event, 'button.copy');
    if (plain) return void copy(plain, plain.dataset.copy, 'Copied');
    const curl = closest(event, '.copy-curl');
    if (curl) return void copy(curl, curl.dataset.curl, 'Copied');
    const replay = closest(event, '.replay-this');
    const form = document.getElementById('replay') as HTMLFormElement | null;
    if (replay && form) {
      const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
      field('request_id').value = replay.dataset.id ?? '';
      field('target_url').focus();
    }
  });

  /** "12 s ago": as the server writes it (webhook-cards.ts). */
  const ago = (iso: string) => {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return `${Math.floor(s / 86400)} d ago`;
  };
  setInterval(() => {
    for (const t of list.querySelectorAll<HTMLTimeElement>('time[datetime]')) t.textContent = ago(t.dateTime);
  }, 10_000);

  if (!status) return; // a search's results: not live
  const source = new EventSource(`/dashboard/webhooks/${encodeURIComponent(webhook)}/events?after=${after}`);
  source.addEventListener('open', () => {
    status.textContent = 'Live: new requests appear here as they arrive.';
  });
  source.addEventListener('requests', (event) => {
    const { data } = JSON.parse((event as MessageEvent<string>).data) as RequestsEvent;
    // Newest first in the answer: add oldest first so the newest ends on top.
    for (const r of [...data.requests].reverse()) {
      if (detail.querySelector(`article[data-id="${r.id}"]`)) continue;
      list.insertAdjacentHTML('afterbegin', r.item); // rendered and escaped by the server
      detail.insertAdjacentHTML('afterbegin', r.card);
      list.firstElementChild?.classList.add('fresh');
    }
    if (!data.requests.length) return;
    document.getElementById('no-captures')?.remove();
    if (!picked) select(data.requests[0]!.id);
    status.textContent = `Live: ${data.requests.length} new request(s) at ${new Date().toLocaleTimeString()}.`;
  });
  source.addEventListener('end', () => {
    status.textContent = 'This webhook was deleted.';
    source.close();
  });
  source.addEventListener('error', () => {
    status.textContent = 'Reconnecting…';
  });
}
