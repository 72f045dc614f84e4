// A zone's first use (`npm run bench zoneFirstUse`): the time of the next target of a daily cron
// rule when nothing about the zone's offsets around the instant is known yet — each case builds a
// fresh `ZoneRules`, so every case meets an offset period it has not seen. Cases cover every zone
// the project accepts, at instants spread over 1971–2036. The first round meets each zone for the
// first time in the process (its Intl formatter is made then); later rounds meet known zones at
// new instants. Before them the engine runs on three zone aliases no case uses, as a running Host
// has run it before it meets a zone new to it; the first of those, the process's very first
// target, is printed on its own. The sum of all targets is printed so two runs can be seen to agree.
import { cpus, loadavg } from 'node:os';
import { nextCronAfter, parseCron } from '../src/domain/time/cron/index.ts';
import { canonicalTimeZone } from '../src/domain/time/timeZone.ts';
import { ZoneRules } from '../src/domain/time/zoneRules.ts';
import { quantile } from './support/stats.ts';

const ROUNDS = 6;
const FROM_MS = Date.UTC(1971, 0, 1);
const TO_MS = Date.UTC(2037, 0, 1);
const SPEC = parseCron('30 9 * * *');

const zones = Intl.supportedValuesOf('timeZone').filter((zone) => canonicalTimeZone(zone) !== null);

/** A fixed pseudo-random sequence (a 32-bit LCG), so every run times the same cases. */
const SEED = 20_360_101;
let seed = SEED;
const random = (): number => {
  seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
  return seed / 2 ** 32;
};

/** Round r draws each zone's instant from the r-th of ROUNDS equal stretches of 1971–2036. */
const instantOf = (round: number): number => Math.floor(FROM_MS + ((round + random()) / ROUNDS) * (TO_MS - FROM_MS));

/** Aliases outside `zones` (Intl lists canonical ids only): one with DST, one without, one fixed offset. */
const WARM_UP = ['US/Eastern', 'US/Arizona', 'Etc/GMT-3'];
let coldMicros = 0;
for (const [i, zone] of WARM_UP.entries()) {
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = performance.now();
    nextCronAfter(SPEC, new ZoneRules(zone), instantOf(round));
    if (i === 0 && round === 0) coldMicros = (performance.now() - t0) * 1000;
  }
}
// The timed cases draw the same instants whether or not the warm-up ran.
seed = SEED;

const firstUse: number[] = [];
const knownZone: number[] = [];
let checksum = 0;
const started = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  for (const zone of zones) {
    const after = instantOf(round);
    const t0 = performance.now();
    const target = nextCronAfter(SPEC, new ZoneRules(zone), after);
    const micros = (performance.now() - t0) * 1000;
    (round === 0 ? firstUse : knownZone).push(micros);
    checksum = (checksum + (target ?? 0) / 60_000) % 1e9;
  }
}
const wallSeconds = (performance.now() - started) / 1000;

const fmt = (n: number, digits: number) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
function row(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((sum, us) => sum + us, 0);
  return `| ${label} | ${samples.length} | ${fmt(quantile(sorted, 0.5), 1)} | ${fmt(quantile(sorted, 0.99), 1)} | ${fmt((samples.length * 1e6) / total, 0)} |`;
}

console.log(
  `\`nextCronAfter('30 9 * * *')\` on a fresh \`ZoneRules\`, ${zones.length} zones × ${ROUNDS} instants in 1971–2036 ` +
    `(checksum ${checksum.toFixed(0)}, ${fmt(wallSeconds, 1)} s). Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.\n`,
);
console.log(`The process's first target (${WARM_UP[0]}, its code not yet compiled): ${fmt(coldMicros, 1)} µs.\n`);
console.log('| first target | cases | median µs | p99 µs | cases/s |');
console.log('|---|---:|---:|---:|---:|');
console.log(row("a zone's first use in the process", firstUse));
console.log(row('a new period of a known zone', knownZone));
console.log(row('all', [...firstUse, ...knownZone]));
