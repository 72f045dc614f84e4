// A live preview of a recurring timing while it is being typed: the first occurrences the Host
// computes for it (in the rule's zone and the browser's). When the Host refuses the rule, the
// preview shows nothing and hands the refusal to `onProblem`, so the form shows it once, at its
// field.
import { api } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, useEffect, useState } from './html.js';
import { selectorOf } from './timing.js';

const PREVIEWABLE = new Set(['every_seconds', 'daily', 'weekly', 'cron']);

/** Shows the first `count` occurrences of `state`, refreshed 300 ms after the last change. */
export function RulePreview({ state, count = 3, onProblem }) {
  const [result, setResult] = useState(null);
  const key = JSON.stringify(selectorOf(state));
  const previewable = PREVIEWABLE.has(state.kind);

  useEffect(() => {
    if (!previewable) {
      onProblem?.(null);
      return undefined;
    }
    let live = true;
    const timer = setTimeout(() => {
      api('POST', '/api/preview', { ...JSON.parse(key), count })
        .then((occurrences) => {
          if (!live) return;
          setResult({ occurrences, key });
          onProblem?.(null);
        })
        .catch((error) => {
          if (!live) return;
          setResult({ error, key });
          // A Host that is away is not a problem of the rule.
          onProblem?.(error.code === 'host_unreachable' ? null : error);
        });
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, count, previewable, onProblem]);

  if (!previewable || result === null || result.error) return null;
  const zone = state.kind === 'every_seconds' ? 'UTC' : state.zone.trim();
  // Until the new answer arrives, the previous one stays, marked as out of date (not dimmed: dimmed
  // text loses its contrast).
  const stale = result.key !== key;
  return html`<div class=${`rule-preview ${stale ? 'stale' : ''}`} aria-live="polite" aria-busy=${stale ? 'true' : 'false'}>
    <p class="hint">First occurrences${stale ? ' (updating…)' : ''}:</p>
    <ul>
      ${result.occurrences.map(
        (o) => html`<li>
          ${formatInZone(o.at, zone)}${zone === browserZone() ? '' : html` <span class="muted">· ${formatInZone(o.at, browserZone())}</span>`}
          ${o.notes.map((n) => html`<div class="note">${n}</div>`)}
        </li>`,
      )}
    </ul>
  </div>`;
}
