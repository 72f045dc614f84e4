// The three kinds of slot plan as their constructors build them: a read states no batch, a write
// follows its rows' timing unless told to keep it, and each names every note (empty when none).
import { answer, read, resolved, unwritten, write } from '../../src/planning/slotPlan.ts';

const NONE = { effects: [], failures: [], retryNow: [], dropped: [], errors: [] };
const batch = { puts: [], deletes: ['sch_1'] };
const onWriteFailure = () => unwritten(resolved(null));

describe('slot plan constructors', () => {
  it.each([
    [
      'an answer is a read with nothing else to do',
      answer({ id: 'sch_1', deleted: true }),
      { kind: 'read', reply: { ok: true, value: { id: 'sch_1', deleted: true } }, ...NONE },
    ],
    [
      'a read keeps the notes it is given',
      read(resolved(null), { retryNow: ['sch_1'] }),
      { kind: 'read', reply: { ok: true, value: null }, ...NONE, retryNow: ['sch_1'] },
    ],
    [
      'a write follows its rows on the timer by default',
      write({ reply: resolved(null), batch, effects: [], changes: [], onWriteFailure }),
      { kind: 'write', batch, changes: [], commits: [], timing: 'track', ...NONE },
    ],
    [
      'a write that changes no timing says so',
      write({ reply: resolved(null), batch, effects: [], changes: [], onWriteFailure }, { timing: 'keep' }),
      { kind: 'write', timing: 'keep' },
    ],
    [
      'a failed write settles with nothing pending unless told',
      unwritten(resolved(null)),
      { reply: { ok: true, value: null }, effects: [], failures: [], commits: [] },
    ],
  ])('%s', (_title, plan, expected) => {
    expect(plan).toMatchObject(expected);
    expect('batch' in plan).toBe('kind' in plan && plan.kind === 'write');
  });
});
