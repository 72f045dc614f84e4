// The catalog's search box and filters: the text (applied as you type, after a 250 ms pause), the
// Session (a searchable field: applied once what is typed is one of the Host's Session ids, or
// at Enter, and cleared when emptied), the kind, the state, the order and "Drifted only".
import { html, useEffect, useSettled, useState } from './html.js';
import { SessionField, useSessionSuggestions } from './sessionField.js';

/** The pause in typing after which the search is applied. */
export const TYPING_PAUSE_MS = 250;

export const KINDS = ['after', 'at', 'every', 'daily', 'weekly', 'cron'];
/** The State filter's choices: the catalog's status filter value and its words. */
export const STATUSES = [
  ['', 'Any state'],
  ['scheduled', 'Scheduled'],
  ['overdue', 'Overdue'],
  ['active', 'Active (not ended)'],
  ['paused', 'Paused'],
  ['failing', 'Failing'],
  ['inactive', 'Ended'],
];
const SORTS = [
  ['next', 'Next target, soonest first'],
  ['lastDelivery', 'Last delivery, newest first'],
  ['title', 'Title'],
];

/** The search box and the filters; `onChange(patch)` with the changed members. */
export function CatalogFilters({ query, onChange }) {
  const [text, setText] = useState(query.text);
  const settledText = useSettled(text, TYPING_PAUSE_MS);
  useEffect(() => {
    if (settledText !== query.text) onChange({ text: settledText });
  }, [settledText]);

  const [sessionText, setSessionText] = useState(query.sessionId);
  const suggestions = useSessionSuggestions(sessionText);
  const typedSession = sessionText.trim();
  useEffect(() => {
    const known = suggestions.prefix === typedSession && suggestions.ids.includes(typedSession);
    if ((typedSession === '' || known) && typedSession !== query.sessionId) onChange({ sessionId: typedSession });
  }, [typedSession, suggestions]);

  const select = (id, label, key, options) => html`<div class="filter">
    <label for=${id}>${label}</label>
    <select id=${id} value=${query[key]} onChange=${(e) => onChange({ [key]: e.currentTarget.value })}>
      ${options.map(([value, words]) => html`<option key=${value} value=${value}>${words}</option>`)}
    </select>
  </div>`;
  return html`<div class="catalog-filters" role="search" aria-label="Find tasks">
    <div class="filter search">
      <label for="catalog-search">Search</label>
      <input
        id="catalog-search"
        type="search"
        value=${text}
        placeholder="Title, instruction, id or Session"
        onInput=${(e) => setText(e.currentTarget.value)}
        onKeyDown=${(e) => e.key === 'Enter' && onChange({ text })}
      />
    </div>
    <div class="filter">
      <label for="catalog-session">Session</label>
      <${SessionField}
        id="catalog-session"
        type="search"
        value=${sessionText}
        suggestions=${suggestions.ids}
        placeholder="All Sessions"
        onInput=${setSessionText}
        onKeyDown=${(e) => e.key === 'Enter' && onChange({ sessionId: typedSession })}
      />
    </div>
    ${select('catalog-kind', 'Kind', 'kind', [['', 'Any kind'], ...KINDS.map((k) => [k, k])])}
    ${select('catalog-status', 'State', 'status', STATUSES)}
    ${select('catalog-sort', 'Order', 'sort', SORTS)}
    <div class="filter check">
      <input
        id="catalog-drifted"
        class="drift-check"
        type="checkbox"
        checked=${query.drifted}
        onChange=${(e) => onChange({ drifted: e.currentTarget.checked })}
      />
      <label for="catalog-drifted" title="Tasks whose target the time-zone data in use no longer yields">Drifted only</label>
    </div>
  </div>`;
}
