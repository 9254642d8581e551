// The page of a video job: uploads the chosen file to the job's one-time link with a progress bar,
// then follows the job's status every 2 s until it is done (a download link), failed or expired.
(() => {
  const statusEl = document.getElementById('video-status');
  const bar = document.getElementById('video-progress');
  const form = document.getElementById('video-upload');
  const download = document.getElementById('video-download');
  if (!statusEl) return;
  const job = statusEl.dataset.job;
  const show = (s) => {
    statusEl.dataset.status = s.status;
    statusEl.textContent = `Status ${s.status}${s.status === 'processing' ? `, ${s.progress}% done` : ''}${s.reason ? `: ${s.reason}` : ''}`;
    bar.value = s.progress;
    if (s.download_url) {
      const a = document.createElement('a');
      a.href = new URL(s.download_url).pathname; // this origin: the page's CSP allows only 'self'
      a.download = '';
      a.textContent = 'Download the result';
      download.replaceChildren(a, ` (once, before ${s.download_expires_at.replace('T', ' ').slice(0, 16)} UTC)`);
    }
  };
  const follow = async () => {
    for (;;) {
      const res = await fetch(`/dashboard/videos/${encodeURIComponent(job)}/status`, {
        headers: { accept: 'application/json' },
      });
      if (!res.ok) return;
      const s = await res.json();
      show(s);
      if (!['queued', 'processing'].includes(s.status)) return;
      await new Promise((r) => setTimeout(r, 2000));
    }
  };
  if (form) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const request = new XMLHttpRequest();
      request.open('POST', form.action);
      request.upload.addEventListener('progress', (e) => {
        if (e.lengthComputable) statusEl.textContent = `Uploading: ${Math.floor((e.loaded / e.total) * 100)}%`;
      });
      request.addEventListener('load', () => {
        let answer = {};
        try {
          answer = JSON.parse(request.responseText || '{}');
        } catch {
          // a proxy's own error page: the status says enough
        }
        if (request.status !== 202) {
          statusEl.textContent = `Upload refused: ${answer.message ?? request.status}`;
          return;
        }
        form.remove();
        follow();
      });
      request.addEventListener('error', () => (statusEl.textContent = 'The upload was interrupted'));
      request.send(new FormData(form));
    });
  } else if (['queued', 'processing'].includes(statusEl.dataset.status)) {
    follow();
  }
})();
