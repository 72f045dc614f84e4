// The timing fields shared by the create and edit forms: a kind picker and the fields of the
// chosen kind. Zoned kinds always show the time-zone picker (prefilled with the browser's zone),
// so the zone is sent explicitly. `idPrefix` keeps label targets unique per form.
import { WEEKDAY_NAMES } from './format.js';
import { html } from './html.js';
import { TIMING_KINDS, ZONED } from './timing.js';

const WEEKDAY_LABELS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The kind picker and the fields of `state.kind`; `onChange` receives the whole new state. */
export function TimingFields({ state, onChange, idPrefix, kinds = TIMING_KINDS }) {
  const set = (patch) => onChange({ ...state, ...patch });
  const id = (name) => `${idPrefix}-${name}`;
  const text = (name, label, key, extra = {}) => html`
    <div class="field">
      <label for=${id(name)}>${label}</label>
      <input id=${id(name)} value=${state[key]} onInput=${(e) => set({ [key]: e.currentTarget.value })} ...${extra} />
    </div>`;
  const toggleDay = (day, on) => set({ weekdays: on ? [...state.weekdays, day] : state.weekdays.filter((d) => d !== day) });

  return html`
    <div class="field">
      <label for=${id('kind')}>Timing</label>
      <select id=${id('kind')} value=${state.kind} onChange=${(e) => set({ kind: e.currentTarget.value })}>
        ${kinds.map((k) => html`<option value=${k.kind}>${k.label}</option>`)}
      </select>
    </div>
    ${state.kind === 'after_seconds' && text('after', 'Delay (seconds)', 'afterSeconds', { type: 'number', min: 1, step: 1 })}
    ${state.kind === 'every_seconds' && text('every', 'Interval (seconds, at least 60)', 'everySeconds', { type: 'number', min: 60, step: 1 })}
    ${state.kind === 'at' && text('date', 'Date', 'date', { type: 'date' })}
    ${ZONED.has(state.kind) && state.kind !== 'cron' && text('time', 'Time', 'time', { type: 'time' })}
    ${
      state.kind === 'weekly' &&
      html`<fieldset class="weekdays">
      <legend>Weekdays</legend>
      ${WEEKDAY_NAMES.map(
        (name, i) => html`<label title=${WEEKDAY_LABELS[i]}>
          <input type="checkbox" checked=${state.weekdays.includes(i + 1)} onChange=${(e) => toggleDay(i + 1, e.currentTarget.checked)} />
          <span aria-hidden="true">${name}</span><span class="sr-only">${WEEKDAY_LABELS[i]}</span>
        </label>`,
      )}
    </fieldset>`
    }
    ${state.kind === 'cron' && text('cron', 'Cron expression', 'expression', { placeholder: 'minute hour day month weekday', spellcheck: false })}
    ${ZONED.has(state.kind) && text('zone', 'Time zone', 'zone', { list: 'zones', autocomplete: 'off', spellcheck: false })}
  `;
}
