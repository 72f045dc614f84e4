// Reading the figures back out of what a benchmark printed: its markdown tables, and for the
// delivery and restore benchmarks the few figures worth comparing between two versions of the code.
// Both the current table layouts and the earlier ones are understood, and a row of an earlier
// layout is named as the current row it corresponds to, so that like is compared with like.

/** One markdown table: the header's cells and each row's cells, trimmed. */
export interface MarkdownTable {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** One figure of one run. `digits` is how many decimals the benchmark printed. */
export interface Figure {
  readonly measure: string;
  readonly value: number;
  readonly unit: string;
  readonly digits: number;
}

/** The figures a benchmark's output yields, and how they were read. */
export interface Reading {
  readonly figures: readonly Figure[];
  /** Which layout was found and how its rows were named. */
  readonly notes: readonly string[];
}

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

const isSeparator = (cells: readonly string[]): boolean => cells.length > 0 && cells.every((c) => /^:?-+:?$/.test(c));

/** Every markdown table in the text: consecutive lines that start and end with `|`, the second a separator. */
export function markdownTables(text: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let block: string[][] = [];
  const flush = (): void => {
    const [header, separator, ...rows] = block;
    if (header !== undefined && separator !== undefined && isSeparator(separator)) tables.push({ header, rows });
    block = [];
  };
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t.startsWith('|') && t.endsWith('|') && t.length > 1) block.push(cellsOf(t));
    else flush();
  }
  flush();
  return tables;
}

/** `1,234.5 ms` → 1234.5, `ms`, 1 decimal; undefined when the cell does not start with a number. */
export function numberOf(cell: string): { value: number; unit: string; digits: number } | undefined {
  const m = /^(-?[\d,]*\.?\d+)\s*(.*)$/.exec(cell.trim());
  if (m === null) return undefined;
  const text = m[1]!.replaceAll(',', '');
  const value = Number(text);
  if (!Number.isFinite(value)) return undefined;
  return { value, unit: m[2]!.trim(), digits: text.includes('.') ? text.length - text.indexOf('.') - 1 : 0 };
}

const figure = (measure: string, cell: string | undefined): Figure | undefined => {
  const n = cell === undefined ? undefined : numberOf(cell);
  return n === undefined ? undefined : { measure, ...n };
};

const present = <T>(x: T | undefined): x is T => x !== undefined;

/** The rows of the tables whose first header cell is `first` (`measure | value`, `ratio | value`), first cell → second. */
function measureRows(text: string, first = 'measure'): Map<string, string> {
  const rows = new Map<string, string>();
  for (const table of markdownTables(text)) {
    if (table.header[0]?.toLowerCase() !== first) continue;
    for (const [measure, value] of table.rows) if (measure !== undefined && value !== undefined) rows.set(measure, value);
  }
  return rows;
}

/**
 * A delivery figure: the name it is compared under and the starts of the rows that print it (a row
 * renamed keeps its earlier start, so a commit from before the rename pairs with one after it).
 */
interface DeliveryFigure {
  readonly name: string;
  readonly starts: readonly string[];
}

const DELIVERY_FIGURES: readonly DeliveryFigure[] = [
  { name: 'wake → last commit, median', starts: ['wake → last commit, median'] },
  { name: 'wake → last commit, slowest', starts: ['wake → last commit, slowest'] },
  { name: 'wake → every actor settled (whenIdle), median', starts: ['wake → every actor settled (whenIdle)'] },
  { name: 'of which garbage collection, median', starts: ['of which garbage collection'] },
  { name: 'one event, one transition, one actor', starts: ['one event, one transition, one actor'] },
  { name: "burst median / the goal's floor", starts: ["burst median / the goal's floor"] },
  { name: "burst median / one hot actor's floor", starts: ["burst median / one hot actor's floor", 'burst median / floor (every event'] },
];

/**
 * The delivery benchmark: the wake-to-last-commit median and slowest of its runs and, where it
 * prints them, the wake-to-settled median and its garbage collection, the floor's one-event cost
 * measured in the same process and the burst's ratios to the goal's floor and to one hot actor's.
 */
export function readDelivery(text: string): Reading {
  const rows = [...measureRows(text), ...measureRows(text, 'ratio')];
  const figures = DELIVERY_FIGURES.map(({ name, starts }) => {
    const row = rows.find(([k]) => starts.some((start) => k.startsWith(start)));
    return row === undefined ? undefined : figure(name, row[1]);
  }).filter(present);
  return { figures, notes: figures.length === 0 ? ['delivery: no "wake → last commit" row found'] : [] };
}

/** The name a restore row is compared under: its size, source and whether passivation was on. */
const restoreCase = (tasks: string, source: string, passivation: string): string =>
  `${tasks} tasks (${source}), passivation ${passivation}`;

/**
 * The restore benchmark's start-to-serving table: for each system (`postgresStorage`, `pg-boss`) its
 * median time from the process's start to serving and its median RSS then.
 */
function readServing(text: string): Reading {
  for (const table of markdownTables(text)) {
    if (table.header[0]?.toLowerCase() !== 'system' || !/serving/.test(table.header[1] ?? '')) continue;
    const median = (cell: string | undefined): string | undefined => cell?.replace(/\s*\(.*\)$/, ''); // the range left out
    const figures = table.rows.flatMap((row) =>
      [figure(`${row[0]}: process start → serving`, median(row[1])), figure(`${row[0]}: RSS at serving`, median(row[2]))].filter(present),
    );
    return { figures, notes: [`serving: ${table.rows.length} systems`] };
  }
  return { figures: [], notes: [] };
}

/**
 * The restore benchmark: restore time and heap added for each case, and the start-to-serving
 * figures (readServing) where they were printed. The current layout has one row per case (tasks,
 * source, passivation, …); the earlier one had a single `measure | value` table for 100k tasks from
 * schedule.json with every task actor spawned, which is the current passivation-off row.
 */
export function readRestore(text: string): Reading {
  const serving = readServing(text);
  const cases = readRestoreCases(text);
  if (serving.figures.length === 0) return cases;
  const found = cases.figures.length === 0 ? [] : cases.notes;
  return { figures: [...cases.figures, ...serving.figures], notes: [...found, ...serving.notes] };
}

function readRestoreCases(text: string): Reading {
  for (const table of markdownTables(text)) {
    const column = (name: string): number => table.header.findIndex((h) => h.toLowerCase() === name);
    const cell = (row: readonly string[], name: string): string | undefined => row[column(name)];
    if (column('tasks') < 0 || column('passivation') < 0 || column('restore') < 0) continue;
    const figures = table.rows.flatMap((row) => {
      const name = restoreCase(cell(row, 'tasks') ?? '?', cell(row, 'source') ?? '?', cell(row, 'passivation') ?? '?');
      return [figure(`${name}: restore`, cell(row, 'restore')), figure(`${name}: heap added`, cell(row, 'heap added'))].filter(present);
    });
    return { figures, notes: [`restore: one row per case (${table.rows.length} rows)`] };
  }
  const rows = measureRows(text);
  const restore = [...rows].find(([k]) => k.startsWith('restore'));
  if (restore === undefined) return { figures: [], notes: ['restore: no restore table found'] };
  const heading = /^([\d,]+) active tasks/m.exec(text);
  const tasks = heading?.[1] ?? '?';
  const source = /five kinds/.test(text) && /schedule\.json/.test(text) ? 'five kinds, schedule.json' : 'schedule.json';
  const name = restoreCase(tasks, source, 'off');
  const figures = [figure(`${name}: restore`, restore[1]), figure(`${name}: heap added`, rows.get('heap added by the service'))].filter(
    present,
  );
  return {
    figures,
    notes: [`restore: single ${tasks}-task table ("${restore[0]}", every task actor spawned), read as the passivation-off row`],
  };
}

/**
 * Any other benchmark: every numeric cell of its tables, named by its row's first cell (after the
 * first column's header, unless that is `measure` or `ratio`) and by its column's header where the
 * table has more than one value column (`tasks in the Session 100: per create`). A
 * name that comes again in the same output is numbered (`… (2)`), so that like meets like.
 */
export function readMeasures(text: string): Reading {
  const figures: Figure[] = [];
  const seen = new Map<string, number>();
  for (const table of markdownTables(text)) {
    const first = table.header[0] ?? '';
    const named = /^(measure|ratio|)$/i.test(first);
    for (const row of table.rows) {
      const label = row[0];
      if (label === undefined) continue;
      const rowName = named ? label : `${first} ${label}`;
      for (let i = 1; i < row.length; i++) {
        const base = table.header.length === 2 ? rowName : `${rowName}: ${table.header[i] ?? i}`;
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        const found = figure(n === 1 ? base : `${base} (${n})`, row[i]);
        if (found !== undefined) figures.push(found);
      }
    }
  }
  return { figures, notes: [] };
}

/** The reader for a benchmark by name. */
export const readerFor = (bench: string): ((text: string) => Reading) =>
  bench === 'delivery' ? readDelivery : bench === 'restore' ? readRestore : readMeasures;
