// The counts per state over the catalog: how many tasks are scheduled, overdue, paused, failing
// and ended, and in all — of the whole schedule, or of the Session the filter names — as the
// Host keeps them (`counts` of each catalog page). Each is a button that sets the State filter
// (pressed while it is the filter). Nothing is shown by a Host that sends no counts.
import { html } from './html.js';

/** The counts shown, in order: the member of `StateCounts`, the State filter it sets, its words. */
const SHOWN = [
  ['total', '', 'All'],
  ['scheduled', 'scheduled', 'Scheduled'],
  ['overdue', 'overdue', 'Overdue'],
  ['paused', 'paused', 'Paused'],
  ['failing', 'failing', 'Failing'],
  ['ended', 'inactive', 'Ended'],
];

const number = new Intl.NumberFormat('en-US');

/** The bar over `counts` (`{all, session?}`); `onStatus(status)` when a count is chosen. */
export function CountsBar({ counts, sessionId, status, onStatus }) {
  const shown = sessionId && counts?.session ? counts.session : counts?.all;
  if (!shown) return null;
  const scope = sessionId && counts.session ? `in Session ${sessionId}` : 'in all Sessions';
  return html`<div class="counts" role="group" aria-label="Task counts">
    ${SHOWN.map(
      ([member, value, words]) => html`<button
        key=${member}
        type="button"
        class=${`count count-${member}`}
        aria-pressed=${status === value ? 'true' : 'false'}
        title=${value === '' ? 'Show tasks in any state' : `Show only ${words.toLowerCase()} tasks`}
        onClick=${() => onStatus(value)}
      >
        <span class="count-words">${words}</span> <strong class="count-number">${number.format(shown[member] ?? 0)}</strong>
      </button>`,
    )}
    <span class="muted count-scope">${scope}</span>
  </div>`;
}
