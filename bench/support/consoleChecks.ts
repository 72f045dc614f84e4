// What the web page's browser test and benchmark check in the page: whether every row the task
// list shows agrees with the controls (the search text in its title, its Session, kind and
// state), read from the rendered rows. `checkRows` runs inside the page (its source is sent as
// part of an expression), so it uses nothing from outside its own body.

/** The controls a list is checked against; `state` is the badge every row must carry (a State filter value). */
export interface RowControls {
  /** Lower-case text every title contains (the searches used match titles only). */
  readonly text?: string;
  readonly sessionId?: string;
  readonly kind?: string;
  readonly state?: string;
}

/** The rows on screen, whether the list is loading (the rows are then the last answer's), and the rows that disagree with the controls. */
export interface RowCheck {
  readonly rows: number;
  readonly busy: boolean;
  readonly bad: string[];
}

/** Checks the rows in the page against `controls` (run inside the page). */
export const checkRows = (controls: RowControls): RowCheck => {
  const table = document.querySelector('table.catalog-table');
  const trs = [...document.querySelectorAll('table.catalog-table tbody tr')];
  const bad: string[] = [];
  for (const tr of trs) {
    const row = tr as HTMLElement;
    const title = (row.querySelector('a.title-link')?.textContent ?? '').trim();
    const badges = [...row.querySelectorAll('.badges .badge')].map((b) => b.className);
    const has = (state: string) => badges.some((c) => c.split(' ').includes(`state-${state}`));
    const stateOk =
      controls.state === undefined ||
      (controls.state === 'inactive' ? has('ended') : controls.state === 'active' ? !has('ended') : has(controls.state));
    const ok =
      (controls.text === undefined || title.toLowerCase().includes(controls.text)) &&
      (controls.sessionId === undefined || row.dataset.session === controls.sessionId) &&
      (controls.kind === undefined || row.dataset.kind === controls.kind) &&
      stateOk;
    if (!ok) bad.push(`${title} [${row.dataset.session} ${row.dataset.kind} ${badges.join('|')}]`);
  }
  return { rows: trs.length, busy: table?.getAttribute('aria-busy') === 'true', bad };
};

/**
 * A page expression (for `page.evaluate`: the page's Content Security Policy refuses the string
 * predicates of `waitForFunction`) that installs `window.consoleCheck` (checkRows) and starts
 * watching the list: from then on, every time the list changes while it is not loading, its rows
 * are checked against `window.consoleControls` (when set) and each disagreement is added to
 * `window.consoleContradictions`.
 */
export const installRowChecks = (): string => `(${watchWith.toString()})(${checkRows.toString()})`;

/** A page function (after `installRowChecks`): true once the list shows rows, is not loading, and every row agrees with `controls`. */
export const rowsAgree = (controls: RowControls): boolean => {
  const check = (window as unknown as { consoleCheck: (c: RowControls) => RowCheck }).consoleCheck;
  const verdict = check(controls);
  return verdict.rows > 0 && !verdict.busy && verdict.bad.length === 0;
};

const watchWith = (check: (controls: RowControls) => RowCheck): void => {
  const w = window as unknown as {
    consoleCheck: (controls: RowControls) => RowCheck;
    consoleControls: RowControls | null;
    consoleContradictions: string[];
  };
  w.consoleCheck = check;
  w.consoleControls = null;
  w.consoleContradictions = [];
  new MutationObserver(() => {
    const controls = w.consoleControls;
    if (controls === null) return;
    const verdict = check(controls);
    if (!verdict.busy) for (const row of verdict.bad) w.consoleContradictions.push(`${JSON.stringify(controls)}: ${row}`);
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
};
