// The host names a Host answers to besides its loopback names: entries of `ALLOWED_HOSTS`
// (option `allowedHosts`), each a DNS name, an IPv4 address or a bracketed IPv6 address,
// optionally with a port (`schedule.lan`, `192.168.1.20:8080`, `[fd00::5]`). A Host bound to
// every interface (`0.0.0.0`, `::`) must have at least one: its bind address names no host, so
// without a list it could not tell its own name from a rebound one.

/** The loopback names, answered on any port. */
export const LOOPBACK_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** One allowed host: a lower-case name and, when the entry gave one, a port. */
export interface AllowedHost {
  readonly name: string;
  readonly port?: number;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const ENTRY = new RegExp(`^(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);

/** Whether `hostname` binds every interface. */
export const isWildcardAddress = (hostname: string): boolean => hostname === '0.0.0.0' || hostname === '::' || hostname === '[::]';

/** Reads one entry; throws an Error saying what an entry looks like. */
export function parseAllowedHost(entry: string): AllowedHost {
  const text = entry.trim().toLowerCase();
  const match = ENTRY.exec(text);
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (match?.[1] === undefined || (port !== undefined && !(port >= 1 && port <= 65_535)))
    throw new Error(
      `${JSON.stringify(entry.slice(0, 100))} is not a host name with an optional port (such as schedule.lan, 192.168.1.20:8080 or [fd00::5]).`,
    );
  return port === undefined ? { name: match[1] } : { name: match[1], port };
}

/** Reads comma-separated entries; throws an Error for an empty list, an empty entry or a malformed one. */
export function parseAllowedHosts(text: string): string[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) throw new Error('an entry is empty; list host names separated by commas.');
  for (const entry of entries) parseAllowedHost(entry);
  return entries;
}
