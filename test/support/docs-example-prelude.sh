# Sourced before each example block of test/integration/docs-examples.test.ts.
# curl: the examples' sites are the loopback one ($SITE); each answer's status goes to $LOG/calls
# (after what the example's own --write-out prints), its body to $LOG/last.body.
# __answer_has: the last answer has every field named. __answer_status: the last answer's status is the one named.
set -e
curl() {
  local args=() a stream= own= next=
  for a in "$@"; do
    if [ -n "$next" ]; then own="$a"; next=; continue; fi
    case "$a" in -w|--write-out) next=1; continue ;; esac
    a="${a//https:\/\/staging.example.com/$SITE}"; a="${a//https:\/\/example.com/$SITE}"
    # DNS records are the DNS fixture's zone (example.test).
    a="${a//dns-lookup?domain=example.com/dns-lookup?domain=example.test}"
    [ "$a" = -N ] && stream=1
    args+=("$a")
  done
  # A stream (curl -N) is read for 2 s; what it sent by then is its answer.
  [ -n "$stream" ] && args=(--max-time 2 "${args[@]}")
  # curl's status, not tee's (a reader such as head may close the pipe early: that is not a failure here).
  local rc
  set +e
  command curl -w "$own%{stderr}@@ %{response_code} %{method} %{url}\n" "${args[@]}" 2>>"$LOG/calls" | tee "$LOG/last.body"
  rc=${PIPESTATUS[0]}
  set -e
  [ -n "$stream" ] && [ "$rc" = 28 ] && rc=0
  echo "@@ exit $rc" >>"$LOG/calls"
  return "$rc"
}
__answer_has() {
  node -e '
    const body = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const keys = new Set();
    (function walk(v) { if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) { if (!Array.isArray(v)) keys.add(k); walk(x); } })(body);
    const missing = process.argv.slice(2).filter((k) => !keys.has(k));
    if (missing.length) { console.error("@@ the answer lacks " + missing.join(", ") + " that the comment shows"); process.exit(1); }
  ' "$LOG/last.body" "$@" 2>>"$LOG/calls"
}
__answer_status() {
  local last
  last=$(grep -E '^@@ [0-9]{3} ' "$LOG/calls" | tail -n 1 | cut -d' ' -f2)
  if [ "$last" != "$1" ]; then echo "@@ the answer was $last, not the $1 the comment shows" >>"$LOG/calls"; return 1; fi
  echo "@@ shown $1" >>"$LOG/calls"
}
