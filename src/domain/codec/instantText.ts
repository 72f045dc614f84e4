// A fast check of canonical instant text for the decoder, which reads millions of receipts when a
// large domain opens. It accepts exactly what `parseCanonicalInstant` accepts —
// `YYYY-MM-DDTHH:mm:ss.sssZ`, years 0001–9999, real calendar dates — using character codes and
// calendar arithmetic instead of Date parsing and formatting.

const ZERO = 48;
const SHAPE = '0000-00-00T00:00:00.000Z';
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + (text.charCodeAt(i) - ZERO);
  return value;
}

/** True when `text` is a canonical UTC instant (same answer as `parseCanonicalInstant(text) !== null`). */
export function isCanonicalInstantText(text: string): boolean {
  if (text.length !== SHAPE.length) return false;
  for (let i = 0; i < SHAPE.length; i++) {
    const code = text.charCodeAt(i);
    const want = SHAPE.charCodeAt(i);
    if (want === ZERO ? code < ZERO || code > ZERO + 9 : code !== want) return false;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = month === 2 && leap ? 29 : (DAYS[month - 1] ?? 0);
  return day <= monthDays && digits(text, 11, 2) <= 23 && digits(text, 14, 2) <= 59 && digits(text, 17, 2) <= 59;
}
