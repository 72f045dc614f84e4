// The row a committed delivery writes: the receipt (with a run-now mark or the coalesced
// occurrences), the next target, and what a run-now delivery leaves alone.
import { applyDelivery, receiptOf } from '../../src/domain/tasks/deliveryRow.ts';
import { DEFAULT_RETENTION } from '../../src/domain/tasks/retention.ts';
import type { ScheduleRecord } from '../../src/domain/tasks/types.ts';
import { countOccurrences, MISSED_COUNT_LIMIT } from '../../src/domain/time/recurrence.ts';
import { activeRow, at, EVERY_MINUTE } from './rowFixtures.ts';

const every = EVERY_MINUTE;
const cron: ScheduleRecord = {
  id: 'sch_2',
  kind: 'cron',
  title: 't',
  prompt: 'p',
  scheduledAt: '2030-03-31T00:30:00.000Z',
  expression: '30 * * * *',
  timeZone: 'Europe/Berlin',
};
const after: ScheduleRecord = {
  id: 'sch_3',
  kind: 'after',
  title: 't',
  prompt: 'p',
  scheduledAt: '2030-01-01T09:00:00.000Z',
  afterSeconds: 3600,
};
const rowOf = activeRow;
const ack = (record: ScheduleRecord, occurrence: string, extra: { trigger?: 'manual' } = {}) => ({
  occurrence: at(occurrence),
  messageId: 'm1',
  deliveredAt: at(occurrence) + 10,
  prompt: record.prompt,
  startedRecord: record,
  ...extra,
});

describe('missed occurrences', () => {
  it('an on-time delivery coalesced nothing', () => {
    const receipt = receiptOf(ack(every, every.scheduledAt));
    expect(receipt.missed).toBeUndefined();
    expect(receipt.firstMissed).toBeUndefined();
  });

  it('a late fixed-rate delivery counts the grid points before the one it delivers', () => {
    const receipt = receiptOf(ack(every, '2030-01-01T08:10:00.000Z'));
    expect(receipt).toMatchObject({ scheduledAt: '2030-01-01T08:10:00.000Z', missed: 9, firstMissed: '2030-01-01T08:01:00.000Z' });
  });

  it('counts exactly across a daylight-saving change and far beyond a thousand', () => {
    // 30 * * * * in Berlin, from 00:30 UTC on 31 March 2030: one firing an hour.
    expect(
      countOccurrences(
        { kind: 'cron', expression: '30 * * * *', timeZone: 'Europe/Berlin' },
        at(cron.scheduledAt),
        at('2030-03-31T05:30:00.000Z'),
      ),
    ).toBe(5);
    const everyMinute = { kind: 'cron', expression: '* * * * *', timeZone: 'America/New_York' } as const;
    const from = at('2030-11-03T04:00:00.000Z'); // the night New York falls back
    // 2,500 minutes, less the 60 of the repeated hour: a wall time that occurs twice fires once.
    expect(countOccurrences(everyMinute, from, from + 2_500 * 60_000)).toBe(2_440);
    expect(countOccurrences({ kind: 'every', everySeconds: 60 }, from, from + 5_000_000 * 60_000)).toBe(5_000_000);
    expect(countOccurrences(everyMinute, from, from + 20_000 * 60_000)).toBe(MISSED_COUNT_LIMIT);
  });

  it('a late cron delivery names the committed target as the first missed one', () => {
    const receipt = receiptOf(ack(cron, '2030-03-31T05:30:00.000Z'));
    expect(receipt).toMatchObject({ missed: 5, firstMissed: cron.scheduledAt });
  });

  it('a one-shot never counts missed occurrences', () => {
    const receipt = receiptOf(ack(after, '2030-01-01T09:00:00.000Z'));
    expect(receipt.missed).toBeUndefined();
  });
});

describe('run-now deliveries', () => {
  it('a recurring task keeps its target; the answered request is dropped and the receipt is marked manual', () => {
    const row = rowOf(every, { triggeredAt: '2030-01-01T08:00:20.000Z' });
    const next = applyDelivery(
      row,
      ack(every, '2030-01-01T08:00:20.000Z', { trigger: 'manual' }),
      at('2030-01-01T08:00:20.000Z'),
      DEFAULT_RETENTION,
    );
    expect(next.record).toBe(every);
    expect(next.triggeredAt).toBeUndefined();
    expect(next.status).toBe('active');
    expect(next.lastDelivery).toMatchObject({ scheduledAt: '2030-01-01T08:00:20.000Z', trigger: 'manual' });
    expect(next.lastDelivery?.missed).toBeUndefined();
  });

  it('a paused recurring task run now stays paused', () => {
    const row = rowOf(every, { pausedAt: '2030-01-01T08:00:00.000Z', triggeredAt: '2030-01-01T08:30:00.000Z' });
    const next = applyDelivery(
      row,
      ack(every, '2030-01-01T08:30:00.000Z', { trigger: 'manual' }),
      at('2030-01-01T08:30:00.000Z'),
      DEFAULT_RETENTION,
    );
    expect(next.pausedAt).toBe('2030-01-01T08:00:00.000Z');
    expect(next.record.scheduledAt).toBe(every.scheduledAt);
  });

  it('a one-shot run now ends, keeping neither its pause nor its request', () => {
    const row = rowOf(after, { pausedAt: '2030-01-01T08:00:00.000Z', triggeredAt: '2030-01-01T08:10:00.000Z' });
    const next = applyDelivery(
      row,
      ack(after, '2030-01-01T08:10:00.000Z', { trigger: 'manual' }),
      at('2030-01-01T08:10:00.000Z'),
      DEFAULT_RETENTION,
    );
    expect(next.status).toBe('inactive');
    expect(next.pausedAt).toBeUndefined();
    expect(next.triggeredAt).toBeUndefined();
  });

  it('a due delivery answers a request made before it; a request made after the attempt began waits', () => {
    const answered = applyDelivery(
      rowOf(every, { triggeredAt: '2030-01-01T08:01:00.000Z' }),
      ack(every, every.scheduledAt),
      at('2030-01-01T08:01:00.000Z'),
      DEFAULT_RETENTION,
    );
    expect(answered.triggeredAt).toBeUndefined();
    expect(answered.record.scheduledAt).toBe('2030-01-01T08:02:00.000Z');
    const waiting = applyDelivery(
      rowOf(every, { triggeredAt: '2030-01-01T08:01:00.500Z' }),
      ack(every, every.scheduledAt),
      at('2030-01-01T08:01:00.000Z'),
      DEFAULT_RETENTION,
    );
    expect(waiting.triggeredAt).toBe('2030-01-01T08:01:00.500Z');
  });
});
