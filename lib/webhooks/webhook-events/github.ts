// GitHub's repository webhook deliveries: the event's name in X-GitHub-Event, a delivery GUID in
// X-GitHub-Delivery, the hook and its target in X-GitHub-Hook-*, a GitHub-Hookshot user agent, and
// the payload as compact JSON (content type json) with the fields and nesting of GitHub's "Webhook
// events and payloads" reference: action, the object, repository and sender. The values are ours.
import { randomBytes } from 'node:crypto';
import { type EventContext, type EventKind, gitSha, isoSeconds, numericId, unix, uuid } from './sample.ts';

const OWNER = 'octocat';
const REPO = 'hello-webhooks';
const FULL = `${OWNER}/${REPO}`;
const API = `https://api.github.com/repos/${FULL}`;
const WEB = `https://github.com/${FULL}`;

const user = {
  login: OWNER,
  id: 583231,
  node_id: 'MDQ6VXNlcjU4MzIzMQ==',
  avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
  gravatar_id: '',
  url: `https://api.github.com/users/${OWNER}`,
  html_url: `https://github.com/${OWNER}`,
  followers_url: `https://api.github.com/users/${OWNER}/followers`,
  repos_url: `https://api.github.com/users/${OWNER}/repos`,
  events_url: `https://api.github.com/users/${OWNER}/events{/privacy}`,
  type: 'User',
  user_view_type: 'public',
  site_admin: false,
};
const REPO_ID = 811_306_455;
const HOOK_ID = 498_213_077;

function repository(at: Date) {
  return {
    id: REPO_ID,
    node_id: 'R_kgDOMFuS1w',
    name: REPO,
    full_name: FULL,
    private: false,
    owner: user,
    html_url: WEB,
    description: 'Where webhooks are tried out',
    fork: false,
    url: API,
    hooks_url: `${API}/hooks`,
    issues_url: `${API}/issues{/number}`,
    pulls_url: `${API}/pulls{/number}`,
    created_at: '2024-06-10T09:12:44Z',
    updated_at: isoSeconds(at),
    pushed_at: isoSeconds(at),
    git_url: `git://github.com/${FULL}.git`,
    ssh_url: `git@github.com:${FULL}.git`,
    clone_url: `${WEB}.git`,
    homepage: null,
    size: 42,
    stargazers_count: 3,
    watchers_count: 3,
    language: 'TypeScript',
    has_issues: true,
    forks_count: 0,
    archived: false,
    disabled: false,
    open_issues_count: 1,
    topics: [],
    visibility: 'public',
    forks: 0,
    open_issues: 1,
    watchers: 3,
    default_branch: 'main',
  };
}

/** A delivery of `name`: its headers, the payload compact. */
function delivery(name: string, payload: (ctx: EventContext) => object): EventKind['build'] {
  return (ctx) => {
    const id = uuid();
    return {
      id,
      headers: {
        'content-type': 'application/json',
        'user-agent': `GitHub-Hookshot/${randomBytes(4).toString('hex').slice(0, 7)}`,
        'x-github-event': name,
        'x-github-delivery': id,
        'x-github-hook-id': String(HOOK_ID),
        'x-github-hook-installation-target-id': String(REPO_ID),
        'x-github-hook-installation-target-type': 'repository',
      },
      body: JSON.stringify(payload(ctx)),
    };
  };
}

function commit(at: Date) {
  const id = gitSha();
  const person = { name: 'The Octocat', email: 'octocat@github.com', username: OWNER };
  return {
    id,
    tree_id: gitSha(),
    distinct: true,
    message: 'Answer 200 before processing the event',
    timestamp: at.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    url: `${WEB}/commit/${id}`,
    author: person,
    committer: person,
    added: [],
    removed: [],
    modified: ['src/webhooks.ts'],
  };
}

/**
 * An issue or a pull request just opened (action opened), numbered afresh: `object` is its `key` field;
 * a pull request's payload names its number at the top too.
 */
function opened(
  name: 'issues' | 'pull_request',
  description: string,
  object: (number: number, at: string, now: Date) => object,
): EventKind {
  return {
    description,
    build: delivery(name, ({ now }) => {
      const number = numericId(2);
      const key = name === 'issues' ? 'issue' : 'pull_request';
      return {
        action: 'opened',
        ...(name === 'pull_request' ? { number } : {}),
        [key]: object(number, isoSeconds(now), now),
        repository: repository(now),
        sender: user,
      };
    }),
  };
}

export const GITHUB_EVENTS: Record<string, EventKind> = {
  push: {
    description: 'one commit pushed to main',
    build: delivery('push', ({ now }) => {
      const head = commit(now);
      const before = gitSha();
      return {
        ref: 'refs/heads/main',
        before,
        after: head.id,
        // A push's repository has its times as Unix seconds, and the names of old.
        repository: {
          ...repository(now),
          created_at: 1718010764,
          pushed_at: unix(now),
          stargazers: 3,
          master_branch: 'main',
        },
        pusher: { name: OWNER, email: 'octocat@github.com' },
        sender: user,
        created: false,
        deleted: false,
        forced: false,
        base_ref: null,
        compare: `${WEB}/compare/${before.slice(0, 12)}...${head.id.slice(0, 12)}`,
        commits: [head],
        head_commit: head,
      };
    }),
  },
  pull_request: opened('pull_request', 'a pull request opened (action opened)', (number, at, now) => {
    const side = (ref: string, sha: string) => ({ label: `${OWNER}:${ref}`, ref, sha, user, repo: repository(now) });
    return {
      url: `${API}/pulls/${number}`,
      id: numericId(10),
      node_id: `PR_kwDOMFuS1${randomBytes(6).toString('base64url')}`,
      html_url: `${WEB}/pull/${number}`,
      diff_url: `${WEB}/pull/${number}.diff`,
      patch_url: `${WEB}/pull/${number}.patch`,
      issue_url: `${API}/issues/${number}`,
      number,
      state: 'open',
      locked: false,
      title: 'Verify signatures before parsing',
      user,
      body: 'Checks X-Hub-Signature-256 over the raw body.',
      created_at: at,
      updated_at: at,
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      labels: [],
      milestone: null,
      draft: false,
      commits_url: `${API}/pulls/${number}/commits`,
      review_comments_url: `${API}/pulls/${number}/comments`,
      comments_url: `${API}/issues/${number}/comments`,
      statuses_url: `${API}/statuses/${gitSha()}`,
      head: side('verify-signatures', gitSha()),
      base: side('main', gitSha()),
      author_association: 'OWNER',
      auto_merge: null,
      active_lock_reason: null,
      merged: false,
      mergeable: null,
      rebaseable: null,
      mergeable_state: 'unknown',
      merged_by: null,
      comments: 0,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 12,
      deletions: 3,
      changed_files: 1,
    };
  }),
  issues: opened('issues', 'an issue opened (action opened)', (number, at) => ({
    url: `${API}/issues/${number}`,
    repository_url: API,
    labels_url: `${API}/issues/${number}/labels{/name}`,
    comments_url: `${API}/issues/${number}/comments`,
    events_url: `${API}/issues/${number}/events`,
    html_url: `${WEB}/issues/${number}`,
    id: numericId(10),
    node_id: `I_kwDOMFuS1${randomBytes(6).toString('base64url')}`,
    number,
    title: 'Deliveries time out after 10 s',
    user,
    labels: [],
    state: 'open',
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: 0,
    created_at: at,
    updated_at: at,
    closed_at: null,
    author_association: 'OWNER',
    active_lock_reason: null,
    body: 'The handler answers after the work is done; GitHub gives up at 10 s.',
    state_reason: null,
  })),
  ping: {
    description: 'the ping GitHub sends when a webhook is created',
    build: delivery('ping', ({ now, target }) => ({
      zen: 'Answer fast, work later.',
      hook_id: HOOK_ID,
      hook: {
        type: 'Repository',
        id: HOOK_ID,
        name: 'web',
        active: true,
        events: ['push', 'pull_request', 'issues'],
        config: { content_type: 'json', insecure_ssl: '0', url: target },
        updated_at: isoSeconds(now),
        created_at: isoSeconds(now),
        url: `${API}/hooks/${HOOK_ID}`,
        test_url: `${API}/hooks/${HOOK_ID}/test`,
        ping_url: `${API}/hooks/${HOOK_ID}/pings`,
        deliveries_url: `${API}/hooks/${HOOK_ID}/deliveries`,
        last_response: { code: null, status: 'unused', message: null },
      },
      repository: repository(now),
      sender: user,
    })),
  },
};
