// The acceptance oracle loads through the 'acceptance-oracle' alias and answers a known case.
import { oracleDaily } from 'acceptance-oracle';

it('oracle: America/New_York 02:30 on the 2027-03-14 gap day is skipped to the next day', () => {
  expect(oracleDaily('02:30:00', 'America/New_York', '2027-03-13T08:00:00.000Z')).toBe('2027-03-15T06:30:00.000Z');
});
