// The check a storage runs on each delivery commit's row before writing it, by the length of the
// row's saved history: the whole row encoded and strictly decoded (how a put is checked when the
// storage holds no earlier version of it) against the check of a delivery on top of the stored
// row (its new receipts, target and status).
import { DomainState, prepareBatch } from '../src/adapters/domainState.ts';
import { applyDelivery } from '../src/domain/tasks/deliveryRow.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import { fmt } from './support/domains.ts';

const SIZES = [1, 10, 50, 200];
const ROUNDS = 5;
const PER_ROUND = 2_000;
const T0 = Date.parse('2030-01-01T08:00:00.000Z');
const RETENTION = { days: 3650, records: 200 };

/** Microseconds per check, the least of the rounds after a warm-up round. */
function perCheck(check: () => void): number {
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < PER_ROUND; i++) check();
    const us = ((performance.now() - start) / PER_ROUND) * 1000;
    if (round > 0) least = Math.min(least, us);
  }
  return least;
}

let row: TaskRow = {
  sessionId: 'session-1',
  status: 'active',
  record: {
    id: 'sch_1',
    kind: 'every',
    title: 'Check',
    prompt: 'Check the build and report.',
    scheduledAt: '2030-01-01T08:00:00.000Z',
    everySeconds: 600,
  },
};
const state = new DomainState();
state.apply(prepareBatch({ puts: [row], deletes: [] }));
console.log(`one delivery commit's row, checked before it is written; µs per row, least of ${ROUNDS} rounds of ${PER_ROUND}`);
console.log('');
console.log('| saved receipts | whole row decoded | delivery on the stored row | ratio |');
console.log('|---:|---:|---:|---:|');
for (let n = 0; n < Math.max(...SIZES); n++) {
  const occurrence = T0 + n * 600_000;
  const reminder = { occurrence, messageId: `msg-${n}`, deliveredAt: occurrence + 5, prompt: row.record.prompt, startedRecord: row.record };
  const next = applyDelivery(row, reminder, occurrence + 1, RETENTION);
  if (SIZES.includes(n + 1)) {
    const batch = { puts: [next], deletes: [] };
    const whole = perCheck(() => prepareBatch(batch));
    const delivery = perCheck(() => prepareBatch(batch, state));
    console.log(`| ${n + 1} | ${fmt(whole)} µs | ${fmt(delivery)} µs | ${(delivery / whole).toFixed(2)}× |`);
  }
  state.apply(prepareBatch({ puts: [next], deletes: [] }, state));
  row = next;
}
