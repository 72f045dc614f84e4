// How bench:compare reads the delivery benchmark's printout: each figure under one name, whichever
// label the commit that printed it used, so a run before a row's rename pairs with a run after it.
import { readDelivery, readRestore } from '../../bench/support/benchTables.ts';

const table = (first: string, rows: ReadonlyArray<readonly [string, string]>): string =>
  [`| ${first} | value |`, '|---|---:|', ...rows.map(([m, v]) => `| ${m} | ${v} |`)].join('\n');

const measures = table('measure', [
  ['wake → last commit, median', '214.1 ms'],
  ['wake → last commit, slowest', '252.9 ms'],
  ['wake → every actor settled (whenIdle), median', '215.2 ms'],
  ['of which garbage collection, median', '32.1 ms'],
]);

const figuresOf = (text: string): Record<string, number> => Object.fromEntries(readDelivery(text).figures.map((f) => [f.measure, f.value]));

describe('readDelivery', () => {
  it('reads the ratio to one hot actor under one name before and after its row was renamed', () => {
    const before = `${measures}\n\n${table('ratio', [
      ["burst median / floor (every event at one machine event's cost)", '1.39×'],
      ['wake → every actor settled / floor', '1.40×'],
    ])}`;
    const after = `${measures}\n\n${table('ratio', [
      ["burst median / the goal's floor (every event at one machine event's cost to one of 10,000 actors)", '0.81×'],
      ["wake → every actor settled / the goal's floor", '0.82×'],
      ["burst median / one hot actor's floor (every event at one machine event's cost to one actor)", '1.51×'],
      ["wake → every actor settled / one hot actor's floor", '1.52×'],
    ])}`;
    expect(figuresOf(before)).toEqual({
      'wake → last commit, median': 214.1,
      'wake → last commit, slowest': 252.9,
      'wake → every actor settled (whenIdle), median': 215.2,
      'of which garbage collection, median': 32.1,
      "burst median / one hot actor's floor": 1.39,
    });
    expect(figuresOf(after)).toEqual({
      'wake → last commit, median': 214.1,
      'wake → last commit, slowest': 252.9,
      'wake → every actor settled (whenIdle), median': 215.2,
      'of which garbage collection, median': 32.1,
      "burst median / the goal's floor": 0.81,
      "burst median / one hot actor's floor": 1.51,
    });
  });

  it('notes a printout without the delivery table', () => {
    expect(readDelivery('no tables here')).toEqual({ figures: [], notes: ['delivery: no "wake → last commit" row found'] });
  });
});

describe('readRestore', () => {
  it('reads the start-to-serving medians beside the restore cases, and the serving table alone', () => {
    const serving = [
      '| system | process start → serving, median (range) | RSS at serving, median (range) |',
      '|---|---:|---:|',
      '| postgresStorage | 339 ms (294–384) | 65 MB (65–66) |',
      '| pg-boss | 249 ms (217–281) | 59 MB (59–59) |',
    ].join('\n');
    const cases = [
      '| tasks | source | passivation | restore | of which storage open | heap added |',
      '|---:|---|---|---:|---:|---:|',
      '| 100,000 | five kinds, `schedule.json` | on | 644 ms | 471 ms | 56 MB |',
    ].join('\n');
    const both = readRestore(`${cases}\n\n${serving}\n`);
    expect(both.figures.map((f) => [f.measure, f.value, f.unit])).toEqual([
      ['100,000 tasks (five kinds, `schedule.json`), passivation on: restore', 644, 'ms'],
      ['100,000 tasks (five kinds, `schedule.json`), passivation on: heap added', 56, 'MB'],
      ['postgresStorage: process start → serving', 339, 'ms'],
      ['postgresStorage: RSS at serving', 65, 'MB'],
      ['pg-boss: process start → serving', 249, 'ms'],
      ['pg-boss: RSS at serving', 59, 'MB'],
    ]);
    expect(readRestore(`${serving}\n`).figures.map((f) => f.measure)).toEqual([
      'postgresStorage: process start → serving',
      'postgresStorage: RSS at serving',
      'pg-boss: process start → serving',
      'pg-boss: RSS at serving',
    ]);
  });
});
