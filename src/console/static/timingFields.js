// The timing fields shared by the create and edit forms: a kind picker and the fields of the
// chosen kind. Zoned kinds always show the time-zone picker (prefilled with the browser's zone),
// so the zone is sent explicitly. Times are typed as 24-hour `HH:MM`; intervals and delays as
// seconds or `15m`, `2h`, `1d`. `errors` maps a state key to the refusal shown at that field.
// `idPrefix` keeps label targets unique per form.
import { WEEKDAY_NAMES } from './format.js';
import { html } from './html.js';
import { FieldError } from './problems.js';
import { TIMING_KINDS, ZONED } from './timing.js';

const WEEKDAY_LABELS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The state keys whose value differs between two timing states (all of them when the kind changed). */
export function changedTimingKeys(before, after) {
  if (before.kind !== after.kind) return Object.keys(after);
  return Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** The kind picker and the fields of `state.kind`; `onChange` receives the whole new state. */
export function TimingFields({ state, onChange, idPrefix, kinds = TIMING_KINDS, errors = {} }) {
  const set = (patch) => onChange({ ...state, ...patch });
  const id = (name) => `${idPrefix}-${name}`;
  const errorProps = (key) =>
    errors[key]
      ? { 'aria-invalid': 'true', 'aria-describedby': id(`${key}-error`) }
      : { 'aria-invalid': undefined, 'aria-describedby': undefined };
  const text = (name, label, key, extra = {}) => html`
    <div class=${`field ${errors[key] ? 'invalid' : ''}`}>
      <label for=${id(name)}>${label}</label>
      <input id=${id(name)} value=${state[key]} onInput=${(e) => set({ [key]: e.currentTarget.value })} ...${extra} ...${errorProps(key)} />
      <${FieldError} id=${id(`${key}-error`)} error=${errors[key]} field=${key} />
    </div>`;
  const toggleDay = (day, on) => set({ weekdays: on ? [...state.weekdays, day] : state.weekdays.filter((d) => d !== day) });
  const interval = { inputmode: 'text', autocomplete: 'off', spellcheck: false, placeholder: '15m, 2h, 1d or seconds' };

  return html`
    <div class="field">
      <label for=${id('kind')}>Timing</label>
      <select id=${id('kind')} value=${state.kind} onChange=${(e) => set({ kind: e.currentTarget.value })}>
        ${kinds.map((k) => html`<option value=${k.kind}>${k.label}</option>`)}
      </select>
    </div>
    ${state.kind === 'after_seconds' && text('after', 'Delay (15m, 2h, 1d or seconds)', 'afterSeconds', interval)}
    ${state.kind === 'every_seconds' && text('every', 'Interval (15m, 2h, 1d or seconds; at least 1 min)', 'everySeconds', interval)}
    ${state.kind === 'at' && text('date', 'Date', 'date', { type: 'date' })}
    ${
      ZONED.has(state.kind) &&
      state.kind !== 'cron' &&
      text('time', 'Time (24-hour, HH:MM)', 'time', { placeholder: 'HH:MM', inputmode: 'numeric', autocomplete: 'off', spellcheck: false })
    }
    ${
      state.kind === 'weekly' &&
      html`<fieldset class=${`weekdays ${errors.weekdays ? 'invalid' : ''}`} aria-describedby=${errors.weekdays ? id('weekdays-error') : undefined}>
      <legend>Weekdays</legend>
      ${WEEKDAY_NAMES.map(
        (name, i) => html`<label title=${WEEKDAY_LABELS[i]}>
          <input type="checkbox" checked=${state.weekdays.includes(i + 1)} onChange=${(e) => toggleDay(i + 1, e.currentTarget.checked)} />
          <span aria-hidden="true">${name}</span><span class="sr-only">${WEEKDAY_LABELS[i]}</span>
        </label>`,
      )}
      <${FieldError} id=${id('weekdays-error')} error=${errors.weekdays} field="weekdays" />
    </fieldset>`
    }
    ${state.kind === 'cron' && text('cron', 'Cron expression', 'expression', { placeholder: 'minute hour day month weekday', spellcheck: false })}
    ${ZONED.has(state.kind) && text('zone', 'Time zone', 'zone', { list: 'zones', autocomplete: 'off', spellcheck: false })}
  `;
}
