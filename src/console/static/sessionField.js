// A Session id field for any number of Sessions: a text input whose suggestions (a <datalist>)
// come from a bounded search on the Host (`GET /api/sessions?prefix=…&limit=20`), asked again as
// the text changes (after a short pause), so the page never holds or renders a list of every
// Session. The catalog's filter and the create form use it.
import { api } from './api.js';
import { html, useEffect, useState } from './html.js';

/** How many suggestions the field shows. */
const SUGGESTIONS = 20;
/** The pause in typing before the suggestions are asked for. */
const TYPING_PAUSE_MS = 200;

/**
 * The suggestions for `text`: `{prefix, ids}`, `prefix` naming the text they were found for
 * (so a caller can tell whether `text` is one of the Host's Session ids).
 */
export function useSessionSuggestions(text) {
  const [found, setFound] = useState({ prefix: null, ids: [] });
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api('GET', `/api/sessions?prefix=${encodeURIComponent(text.trim())}&limit=${SUGGESTIONS}`).then(
        (ids) => live && setFound({ prefix: text.trim(), ids }),
        () => undefined,
      );
    }, TYPING_PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);
  return found;
}

/**
 * The input and its suggestions; `value` and `onInput(text)` as typed, the other props go on the
 * input (id, placeholder, aria-*).
 */
export function SessionField({ id, value, onInput, suggestions, ...rest }) {
  const listId = `${id}-choices`;
  return html`<input
      id=${id}
      value=${value}
      list=${listId}
      autocomplete="off"
      spellcheck="false"
      onInput=${(e) => onInput(e.currentTarget.value)}
      ...${rest}
    />
    <datalist id=${listId}>${suggestions.map((s) => html`<option key=${s} value=${s}></option>`)}</datalist>`;
}
