// The page's access to the Host: JSON requests that turn failures into ApiError (carrying the
// library or Host code), and the live event stream. Paths are written from the console's root
// (`/api/…`) and requested relative to the page, so the page works under any base path. Whether the Host answers is reported to
// `onAnswering` listeners after every request (the header's "live" says so only while it does).

/** A failed request: `code` and `message` as the Host sent them. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

const answering = new Set();

/** Calls `listener(true)` after each request the Host answered, `listener(false)` after each it did not; returns a function that stops. */
export function onAnswering(listener) {
  answering.add(listener);
  return () => answering.delete(listener);
}

const report = (answered) => {
  for (const listener of answering) listener(answered);
};

/** Statuses that say the Host is not serving (stopping, overloaded, a proxy without it). */
const NOT_SERVING = new Set([502, 503, 504]);

/** `path` (`/api/…`) relative to the page's own address, which is the console's root. */
export const consoleUrl = (path) => (path.startsWith('/') ? path.slice(1) : path);

/** Sends a request; resolves to the JSON answer, rejects with ApiError. */
export async function api(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(consoleUrl(path), init);
  } catch {
    report(false);
    throw new ApiError('host_unreachable', 'The Host does not answer. Is it still running?', 0);
  }
  report(!NOT_SERVING.has(response.status));
  const value = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(value?.code ?? 'internal_error', value?.message ?? `HTTP ${response.status}`, response.status);
  }
  return value;
}

/** The path of a task's resource. */
export const taskPath = (sessionId, id) => `/api/sessions/${encodeURIComponent(sessionId)}/tasks/${encodeURIComponent(id)}`;

/**
 * Listens to a Server-Sent Events stream, `/api/events` unless `path` names another; `handlers`
 * maps event names (`schedule/changed`, `delivery`, `clock`, `ready`) to functions of the data,
 * read with `parse` (JSON by default). `onError` hears of a lost connection. The browser
 * reconnects by itself while it can; when it gives up (the Host answered with an error, or
 * refused too often) the stream is opened again every `retryMs`. Returns a function that stops
 * listening.
 */
export function listenToEvents(handlers, { path = '/api/events', parse = JSON.parse, onError, retryMs = 2000 } = {}) {
  let source;
  let timer;
  let stopped = false;
  const open = () => {
    source = new EventSource(consoleUrl(path));
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => handler(parse(event.data)));
    }
    source.addEventListener('error', (event) => {
      onError?.(event);
      if (source.readyState === EventSource.CLOSED && !stopped) {
        clearTimeout(timer);
        timer = setTimeout(open, retryMs);
      }
    });
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    source.close();
  };
}

/**
 * The query string of a catalog request: `?limit=50&sort=…` with only the members that are set
 * (`drifted=true` only when `drifted` is true).
 */
export function catalogQuery({ limit = 50, cursor, sort, text, sessionId, kind, status, id, drifted = false } = {}) {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of Object.entries({ cursor, sort, text, sessionId, kind, status, id })) {
    if (value !== undefined && value !== '') query.set(name, value);
  }
  if (drifted) query.set('drifted', 'true');
  return `?${query}`;
}
