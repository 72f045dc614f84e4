// Occurrence previews: instants, local readings and offsets in the rule's zone, and the notes
// that explain skipped (gap) and doubled (overlap) local times.
import { previewOccurrences } from '../../src/domain/reads/preview.ts';

const at = (text: string) => Date.parse(text);

describe('previewOccurrences: wall-clock rules', () => {
  it('cron 30 1 * * * in Europe/London notes the 2027-03-28 gap before the next occurrence', () => {
    expect(
      previewOccurrences({ kind: 'cron', expression: '30 1 * * *', timeZone: 'Europe/London' }, at('2027-03-26T12:00:00Z'), 3),
    ).toEqual([
      { at: '2027-03-27T01:30:00.000Z', local: '2027-03-27T01:30:00', offset: '+00:00', notes: [] },
      {
        at: '2027-03-29T00:30:00.000Z',
        local: '2027-03-29T01:30:00',
        offset: '+01:00',
        notes: ['01:30 does not exist on 2027-03-28 (the clock jumps forward from 01:00 to 02:00); skipped'],
      },
      { at: '2027-03-30T00:30:00.000Z', local: '2027-03-30T01:30:00', offset: '+01:00', notes: [] },
    ]);
  });

  it('cron 0 2 * * * in Europe/London is not in the gap: offset changes, no note', () => {
    const list = previewOccurrences({ kind: 'cron', expression: '0 2 * * *', timeZone: 'Europe/London' }, at('2027-03-27T12:00:00Z'), 2);
    expect(list.map((o) => [o.at, o.local, o.offset, o.notes.length])).toEqual([
      ['2027-03-28T01:00:00.000Z', '2027-03-28T02:00:00', '+01:00', 0],
      ['2027-03-29T01:00:00.000Z', '2027-03-29T02:00:00', '+01:00', 0],
    ]);
  });

  it('cron */15 * * * * and * * * * * in Europe/London list or count the skipped minutes', () => {
    const from = at('2027-03-28T00:50:00Z');
    const quarter = previewOccurrences({ kind: 'cron', expression: '*/15 * * * *', timeZone: 'Europe/London' }, from, 1);
    expect(quarter[0]?.notes).toEqual([
      '01:00, 01:15, 01:30 and 01:45 do not exist on 2027-03-28 (the clock jumps forward from 01:00 to 02:00); skipped',
    ]);
    const minute = previewOccurrences({ kind: 'cron', expression: '* * * * *', timeZone: 'Europe/London' }, at('2027-03-28T00:59:00Z'), 2);
    expect(minute[0]).toEqual({
      at: '2027-03-28T01:00:00.000Z',
      local: '2027-03-28T02:00:00',
      offset: '+01:00',
      notes: ['60 matching times from 01:00 to 01:59 do not exist on 2027-03-28 (the clock jumps forward from 01:00 to 02:00); skipped'],
    });
    expect(minute[1]?.notes).toEqual([]);
  });

  it('daily 01:30:00 in America/New_York notes the 2027-11-07 overlap and fires at -04:00', () => {
    const list = previewOccurrences({ kind: 'daily', time: '01:30:00', timeZone: 'America/New_York' }, at('2027-11-06T12:00:00Z'), 2);
    expect(list).toEqual([
      {
        at: '2027-11-07T05:30:00.000Z',
        local: '2027-11-07T01:30:00',
        offset: '-04:00',
        notes: ['01:30 occurs twice on 2027-11-07; fires at the earlier instant (-04:00)'],
      },
      { at: '2027-11-08T06:30:00.000Z', local: '2027-11-08T01:30:00', offset: '-05:00', notes: [] },
    ]);
  });

  it('daily 09:00:00 in Pacific/Apia notes the skipped date 2011-12-30', () => {
    const list = previewOccurrences({ kind: 'daily', time: '09:00:00', timeZone: 'Pacific/Apia' }, at('2011-12-29T20:00:00Z'), 1);
    expect(list).toEqual([
      {
        at: '2011-12-30T19:00:00.000Z',
        local: '2011-12-31T09:00:00',
        offset: '+14:00',
        notes: ['09:00 does not exist on 2011-12-30 (the clock jumps forward from 2011-12-30 00:00 to 2011-12-31 00:00); skipped'],
      },
    ]);
  });

  it('weekly 02:30:00 on [7] in America/New_York notes the gap Sunday only', () => {
    const list = previewOccurrences(
      { kind: 'weekly', time: '02:30:00', timeZone: 'America/New_York', weekdays: [7] },
      at('2027-03-01T00:00:00Z'),
      3,
    );
    expect(list.map((o) => o.local)).toEqual(['2027-03-07T02:30:00', '2027-03-21T02:30:00', '2027-03-28T02:30:00']);
    expect(list.map((o) => o.notes)).toEqual([
      [],
      ['02:30 does not exist on 2027-03-14 (the clock jumps forward from 02:00 to 03:00); skipped'],
      [],
    ]);
  });

  it('daily 01:45:00 in Australia/Lord_Howe: the half-hour overlap fires at +11:00', () => {
    const [first] = previewOccurrences({ kind: 'daily', time: '01:45:00', timeZone: 'Australia/Lord_Howe' }, at('2027-04-03T00:00:00Z'), 1);
    expect(first).toEqual({
      at: '2027-04-03T14:45:00.000Z',
      local: '2027-04-04T01:45:00',
      offset: '+11:00',
      notes: ['01:45 occurs twice on 2027-04-04; fires at the earlier instant (+11:00)'],
    });
  });

  it('fractions and offsets with seconds: daily 12:00:00.250 in Africa/Monrovia in 1960 (-00:44:30)', () => {
    const [first] = previewOccurrences({ kind: 'daily', time: '12:00:00.250', timeZone: 'Africa/Monrovia' }, at('1960-06-01T00:00:00Z'), 1);
    expect(first).toEqual({ at: '1960-06-01T12:44:30.250Z', local: '1960-06-01T12:00:00.250', offset: '-00:44:30', notes: [] });
  });
});

describe('previewOccurrences: UTC kinds, counts and the end of the range', () => {
  it('every 300 s from the given instant, in UTC', () => {
    expect(previewOccurrences({ kind: 'every', everySeconds: 300 }, at('2030-01-01T08:00:00Z'), 2)).toEqual([
      { at: '2030-01-01T08:05:00.000Z', local: '2030-01-01T08:05:00', offset: '+00:00', notes: [] },
      { at: '2030-01-01T08:10:00.000Z', local: '2030-01-01T08:10:00', offset: '+00:00', notes: [] },
    ]);
  });

  it('after and at have one occurrence; an at not after the start has none', () => {
    expect(previewOccurrences({ kind: 'after', afterSeconds: 90 }, at('2030-01-01T08:00:00Z'), 5).map((o) => o.at)).toEqual([
      '2030-01-01T08:01:30.000Z',
    ]);
    expect(previewOccurrences({ kind: 'at', at: at('2030-01-02T00:00:00.5Z') }, at('2030-01-01T08:00:00Z'), 5).map((o) => o.local)).toEqual(
      ['2030-01-02T00:00:00.500'],
    );
    expect(previewOccurrences({ kind: 'at', at: at('2030-01-01T08:00:00Z') }, at('2030-01-01T08:00:00Z'), 5)).toEqual([]);
  });

  it('count 0 gives nothing; the list stops early at 9999-12-31T23:59:59.999Z', () => {
    expect(previewOccurrences({ kind: 'every', everySeconds: 60 }, 0, 0)).toEqual([]);
    const daily = previewOccurrences({ kind: 'daily', time: '23:59:59.999', timeZone: 'UTC' }, at('9999-12-29T00:00:00Z'), 10);
    expect(daily.map((o) => o.at)).toEqual(['9999-12-29T23:59:59.999Z', '9999-12-30T23:59:59.999Z', '9999-12-31T23:59:59.999Z']);
    expect(previewOccurrences({ kind: 'every', everySeconds: 86_400 }, at('9999-12-29T12:00:00Z'), 10)).toHaveLength(2);
    expect(previewOccurrences({ kind: 'cron', expression: '0 0 1 1 *', timeZone: 'UTC' }, at('9998-06-01T00:00:00Z'), 10)).toHaveLength(1);
  });
});
