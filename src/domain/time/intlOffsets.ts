// A zone's UTC offset at one whole second, read from the runtime's Intl time-zone data the way
// temporal-polyfill reads it: the same formatter fields, the same clamp of the instant read, and
// the same sampling period per zone. zoneRules.ts lays these readings on temporal-polyfill's
// sampling grid, so the offsets it derives are Temporal's own, to the second. One formatter per
// zone, kept for the process (making one costs far more than a reading).
import { daysFromCivil } from './cron/civil.ts';

/**
 * temporal-polyfill reads a zone at every multiple of this many days since 1970 and looks for a
 * transition only between two readings that differ; zones with two transitions closer together
 * than 19 days get a shorter period (its table, keyed by the last part of the zone id, here in
 * lower case since Intl takes a zone id in any case).
 */
const PERIOD_DAYS_BY_NAME: Readonly<Record<string, number>> = {
  el_aaiun: 16,
  tucuman: 12,
  tirane: 11,
  riga: 10,
  simferopol: 9,
  vienna: 9,
  tunis: 8,
  boa_vista: 6,
  fortaleza: 6,
  maceio: 6,
  noronha: 6,
  recife: 6,
  gaza: 6,
  hebron: 6,
  denoronha: 6,
};
const DEFAULT_PERIOD_DAYS = 19;

/** The seconds between two grid readings of zone `id`. */
export const samplePeriodSec = (id: string): number =>
  86_400 * (PERIOD_DAYS_BY_NAME[id.slice(id.lastIndexOf('/') + 1).toLowerCase()] ?? DEFAULT_PERIOD_DAYS);

/**
 * Intl is read only within these seconds (from 1653 to the end of Temporal's range); an instant
 * outside is read at the nearer bound, so the offset is constant before the first and after the
 * last. Within them a year is never below 1, so no era arithmetic is needed.
 */
export const FIRST_READ_SEC = -1e10;
export const LAST_READ_SEC = 864e10;

/** A reading: the zone's offset from UTC, in whole seconds, at an epoch second. */
export type OffsetReader = (epochSec: number) => number;

const readers = new Map<string, OffsetReader>();

/** The reader of zone `id` (a valid named zone; Intl throws a RangeError otherwise). */
export function offsetReader(id: string): OffsetReader {
  let reader = readers.get(id);
  if (reader === undefined) {
    reader = makeReader(id);
    readers.set(id, reader);
  }
  return reader;
}

/** `YYYY-MM-DD, hh:mm:ss` as these formatters print it (checked against their parts once). */
const PRINTED = /(\d+)-(\d+)-(\d+), (\d+):(\d+):(\d+)/;

/**
 * temporal-polyfill's formatter options less its `era`: within the read range every year is
 * positive, so the era is never printed, and a formatter without it is made and read faster.
 */
const formatOf = (id: string): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat('en-u-hc-h23', {
    calendar: 'iso8601',
    timeZone: id,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });

/** A reading through formatToParts, which names every field whatever their order. */
const partsReading = (format: Intl.DateTimeFormat, sec: number): number => {
  const p: Record<string, string> = {};
  for (const part of format.formatToParts(sec * 1000)) p[part.type] = part.value;
  return wallSec(Number(p.year), Number(p.month), Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - sec;
};

/** A reading from the printed string, or `null` where it does not have the expected shape. */
const printedReading = (format: Intl.DateTimeFormat, sec: number): number | null => {
  const m = PRINTED.exec(format.format(sec * 1000));
  return m === null ? null : wallSec(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) - sec;
};

let printedOrderHolds: boolean | undefined;

/**
 * Whether this runtime prints the fields in the order PRINTED expects. The order is the locale's
 * pattern, the same for every zone, so it is checked once, on the first formatter made.
 */
function printedOrder(format: Intl.DateTimeFormat): boolean {
  if (printedOrderHolds === undefined) {
    const probes = [FIRST_READ_SEC, 0, 1_234_567_890, LAST_READ_SEC];
    printedOrderHolds = probes.every((sec) => printedReading(format, sec) === partsReading(format, sec));
  }
  return printedOrderHolds;
}

function makeReader(id: string): OffsetReader {
  const format = formatOf(id);
  // The printed string is read far faster than formatToParts builds its parts.
  if (!printedOrder(format)) return (sec) => partsReading(format, sec);
  return (sec) => printedReading(format, sec) ?? partsReading(format, sec);
}

/** The wall reading of local fields as epoch seconds (by day numbers: `Date.UTC` gives NaN past its range near Temporal's end). */
const wallSec = (year: number, month: number, day: number, hour: number, minute: number, second: number): number =>
  86_400 * daysFromCivil(year, month, day) + 3600 * hour + 60 * minute + second;
