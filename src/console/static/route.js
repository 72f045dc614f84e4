// The page's address: the hash names the tab and what it shows, so reload, back and links work.
// `#/tasks` is the task list, `#/tasks/sch_12` the list with that task's detail open,
// `#/transcripts/demo` a Session's transcript (`#/transcripts/demo/msg-3` with one message
// marked), `#/inspector` the Inspector.

/** What a hash names: `{tab, taskId?, sessionId?, messageId?}`; an unknown hash is the task list. */
export function parseHash(hash) {
  const [tab, ...rest] = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  if (tab === 'transcripts') return { tab, sessionId: rest[0] ?? null, messageId: rest[1] ?? null };
  if (tab === 'inspector') return { tab };
  return { tab: 'tasks', taskId: tab === 'tasks' ? (rest[0] ?? null) : null };
}

/** The hash of a task's detail (or of the list, without an id). */
export const taskHref = (id) => (id ? `#/tasks/${encodeURIComponent(id)}` : '#/tasks');

/** The hash of a Session's transcript, with one message marked when `messageId` is given. */
export const transcriptHref = (sessionId, messageId) =>
  `#/transcripts/${encodeURIComponent(sessionId)}${messageId ? `/${encodeURIComponent(messageId)}` : ''}`;

/** Goes to `hash` as a new history entry (nothing happens when it is the current one). */
export function navigate(hash) {
  if (window.location.hash !== hash) window.location.hash = hash;
}
