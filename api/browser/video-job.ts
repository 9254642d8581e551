// The page of a video job: uploads the chosen file to the job's one-time link with a progress bar,
// then follows the job's status every 2 s until it is done (a download link), failed or expired.

/** The job's status, as GET /dashboard/videos/:id/status answers it (the REST status answer). */
interface JobStatus {
  status: string;
  progress: number;
  reason?: string | null;
  download_url?: string | null;
  download_expires_at?: string | null;
}

const statusEl = document.getElementById('video-status');
if (statusEl) videoJob(statusEl);

function videoJob(statusEl: HTMLElement) {
  const bar = document.getElementById('video-progress') as HTMLProgressElement | null;
  const form = document.getElementById('video-upload') as HTMLFormElement | null;
  const download = document.getElementById('video-download');
  const job = statusEl.dataset.job ?? '';
  const show = (s: JobStatus) => {
    statusEl.dataset.status = s.status;
    const progress = s.status === 'processing' ? `, ${s.progress}% done` : '';
    statusEl.textContent = `Status ${s.status}${progress}${s.reason ? `: ${s.reason}` : ''}`;
    if (bar) bar.value = s.progress;
    if (s.download_url && download) {
      const a = document.createElement('a');
      a.href = new URL(s.download_url).pathname; // this origin: the page's CSP allows only 'self'
      a.download = '';
      a.textContent = 'Download the result';
      const until = (s.download_expires_at ?? '').replace('T', ' ').slice(0, 16);
      download.replaceChildren(a, ` (once, before ${until} UTC)`);
    }
  };
  const follow = async () => {
    for (;;) {
      const res = await fetch(`/dashboard/videos/${encodeURIComponent(job)}/status`, {
        headers: { accept: 'application/json' },
      });
      if (!res.ok) return;
      const s = (await res.json()) as JobStatus;
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
        let answer: { message?: string } = {};
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
      request.addEventListener('error', () => {
        statusEl.textContent = 'The upload was interrupted';
      });
      request.send(new FormData(form));
    });
  } else if (['queued', 'processing'].includes(statusEl.dataset.status ?? '')) {
    follow();
  }
}
