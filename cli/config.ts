// Where the command finds its service: NETOPS_URL and NETOPS_API_KEY, else what `netops login` saved
// in the user's config folder ($XDG_CONFIG_HOME/netops, else ~/.config/netops; mode 0600: it holds a key).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors.ts';

export interface Service {
  url: string;
  key: string;
}

export function configDir(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config'), 'netops');
}

const configFile = () => path.join(configDir(), 'config.json');

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON: fix it or remove it (netops logout)`);
  }
}

/** Writes whole or not at all (a killed process leaves the old file), readable by the user only. */
export function writePrivate(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function saveService(service: Service): string {
  writePrivate(configFile(), service);
  return configFile();
}

/** Forgets the saved service; false when nothing was saved. */
export function forgetService(): boolean {
  try {
    fs.unlinkSync(configFile());
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** The service to talk to: each of the environment's variables over what was saved. */
export function currentService(): Service & {
  /** Where each was taken from, as `whoami` says it ("from NETOPS_URL"). */ from: string;
} {
  const saved = (readJson(configFile()) ?? {}) as Partial<Service>;
  const url = process.env.NETOPS_URL || saved.url;
  const key = process.env.NETOPS_API_KEY || saved.key;
  if (!url || !key)
    throw new UsageError(
      `No service to talk to: run \`netops login --url URL --key KEY\`, or set NETOPS_URL and NETOPS_API_KEY`,
    );
  // Each from where it was taken: the environment may give one and the saved file the other.
  const urlFrom = process.env.NETOPS_URL ? 'NETOPS_URL' : configFile();
  const keyFrom = process.env.NETOPS_API_KEY ? 'NETOPS_API_KEY' : configFile();
  return {
    url: normalizeUrl(url),
    key,
    from:
      urlFrom === keyFrom
        ? `from ${urlFrom}`
        : urlFrom === 'NETOPS_URL' && keyFrom === 'NETOPS_API_KEY'
          ? 'from NETOPS_URL and NETOPS_API_KEY'
          : `URL from ${urlFrom}, key from ${keyFrom}`,
  };
}

export function normalizeUrl(url: string): string {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new UsageError(`--url: ${url} is not an http or https URL`);
  return url.replace(/\/+$/, '');
}

/** A file of the config folder that belongs to one webhook of one service (listen's position). */
export function webhookStateFile(serviceUrl: string, webhookId: string): string {
  const service = createHash('sha256').update(serviceUrl).digest('hex').slice(0, 12);
  return path.join(configDir(), 'listen', `${service}-${webhookId}.json`);
}

/** The file of the webhook `netops listen` made for one service, API key and forward target (its key hashed). */
export function listenEndpointFile(serviceUrl: string, key: string, forwardTo: string): string {
  const of = createHash('sha256').update(`${serviceUrl}\n${key}\n${forwardTo}`).digest('hex').slice(0, 16);
  return path.join(configDir(), 'listen', `endpoint-${of}.json`);
}

export function readState<T>(file: string): T | undefined {
  return readJson(file) as T | undefined;
}
