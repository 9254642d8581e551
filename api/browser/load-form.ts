// The load-test start form: only the credential fields of the chosen authentication show.
const type = document.getElementById('authType') as HTMLSelectElement | null;
if (type) {
  const show = () => {
    for (const group of document.querySelectorAll<HTMLElement>('#load-form [data-auth]'))
      group.hidden = group.dataset.auth !== type.value;
  };
  type.addEventListener('change', show);
  show();
}
