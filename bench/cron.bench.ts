// Cron engine benchmark (`npm run bench cron`): next-target throughput of nextCronAfter against
// croner 11 and cron-parser 5 on the same expressions, zones and instants. The instants are far
// from DST transitions and the expressions avoid the points where the three dialects differ, so
// every timed case has one right answer: the benchmark checks that all engines give it (before
// timing, and again through a checksum of every timed round) and throws otherwise.
import { cpus } from 'node:os';
import { CronExpressionParser } from 'cron-parser';
import { Cron } from 'croner';
import { type CronSpec, nextCronAfter, parseCron } from '../src/domain/time/cron/index.ts';
import { type ZoneRules, zoneRules } from '../src/domain/time/zoneRules.ts';

const EXPRESSIONS = [
  '* * * * *',
  '*/5 * * * *',
  '15,45 * * * *',
  '*/15 9-17 * * 1-5',
  '*/10 8-18 * 3-10 1-5',
  '0 9 * * 1-5',
  '30 8 * * *',
  '0 */2 * * *',
  '23 0-20/2 * * *',
  '0 22 * * 1-5',
  '0 0 * * 0',
  '5 4 * * 7',
  '45 23 * * 6',
  '0 0 1 * *',
  '0 12 15 * *',
  '0 9 1-7 * *',
  '0 0 13 * 5',
  '0 6 1,15 * 1',
  '0 0 1 */3 *',
  '0 0 1 1 *',
];
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Asia/Shanghai', 'Asia/Kolkata', 'Australia/Lord_Howe'];
/** Weeks away from every transition of the six zones. */
const INSTANTS = ['2027-01-13T10:17:23.000Z', '2027-02-09T19:02:55.000Z', '2027-07-14T03:41:09.000Z', '2027-08-20T12:00:00.000Z'].map(
  Date.parse,
);

interface Case {
  readonly expression: string;
  readonly zone: string;
  readonly after: number;
  readonly spec: CronSpec;
  readonly rules: ZoneRules;
  readonly croner: Cron;
  readonly cronerOptions: { timezone: string; domAndDow: boolean };
  readonly afterDate: Date;
}

const starField = (text: string | undefined) => text?.startsWith('*') === true;
const cases: Case[] = [];
for (const expression of EXPRESSIONS) {
  const [, , dom, , dow] = expression.split(' ');
  for (const zone of ZONES) {
    // croner's domAndDow is the day rule: AND when either day field is a star field, else OR.
    const cronerOptions = { timezone: zone, domAndDow: starField(dom) || starField(dow) };
    const croner = new Cron(expression, cronerOptions);
    const [spec, rules] = [parseCron(expression), zoneRules(zone)];
    for (const after of INSTANTS) cases.push({ expression, zone, after, spec, rules, croner, cronerOptions, afterDate: new Date(after) });
  }
}

type Engine = (c: Case) => number;

const engines = {
  ours: { name: 'agent-schedule `nextCronAfter` (parsed spec)', run: (c) => nextCronAfter(c.spec, c.rules, c.after) ?? Number.NaN },
  oursParsing: {
    name: 'agent-schedule `parseCron` + `nextCronAfter`',
    run: (c) => nextCronAfter(parseCron(c.expression), c.rules, c.after) ?? Number.NaN,
  },
  croner: { name: 'croner 11.0.1 `nextRun` (constructed job)', run: (c) => c.croner.nextRun(c.afterDate)?.getTime() ?? Number.NaN },
  cronerParsing: {
    name: 'croner 11.0.1 `new Cron` + `nextRun`',
    run: (c) => new Cron(c.expression, c.cronerOptions).nextRun(c.afterDate)?.getTime() ?? Number.NaN,
  },
  cronParser: {
    name: 'cron-parser 5.10.6 `parse` + `next`',
    run: (c) => CronExpressionParser.parse(c.expression, { currentDate: c.afterDate, tz: c.zone }).next().getTime(),
  },
} satisfies Record<string, { name: string; run: Engine }>;

// Every engine must give the same answer on every case before anything is timed.
const expected = cases.map((c) => engines.ours.run(c));
for (const engine of Object.values(engines)) {
  cases.forEach((c, i) => {
    const got = engine.run(c);
    if (got !== expected[i]) {
      throw new Error(
        `${engine.name} disagrees on '${c.expression}' in ${c.zone} after ${new Date(c.after).toISOString()}: ` +
          `${new Date(got).toISOString()} vs ${new Date(expected[i]!).toISOString()}`,
      );
    }
  });
}
const expectedSum = expected.reduce((sum, ms) => sum + ms / 60_000, 0);

/** Runs whole rounds over all cases for at least `budgetMs`; returns µs per next-target. */
function measure(run: Engine, budgetMs: number): number {
  let rounds = 0;
  const start = performance.now();
  let elapsed = 0;
  while (rounds < 3 || elapsed < budgetMs) {
    let sum = 0;
    for (const c of cases) sum += run(c) / 60_000;
    if (sum !== expectedSum) throw new Error('a timed round gave a different result');
    rounds++;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1000) / (rounds * cases.length);
}

for (const engine of Object.values(engines)) measure(engine.run, 300); // warm-up
const micros = Object.fromEntries(Object.entries(engines).map(([key, engine]) => [key, measure(engine.run, 2000)])) as Record<
  keyof typeof engines,
  number
>;

const fmt = (n: number, digits: number) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(
  `${EXPRESSIONS.length} expressions × ${ZONES.length} zones × ${INSTANTS.length} instants = ${cases.length} next-target cases, ` +
    `all engines agree on every case. Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}.\n`,
);
console.log('| engine | µs/op | ops/s |');
console.log('|---|---:|---:|');
for (const [key, engine] of Object.entries(engines)) {
  const us = micros[key as keyof typeof engines];
  console.log(`| ${engine.name} | ${fmt(us, 2)} | ${fmt(1e6 / us, 0)} |`);
}
const ratio = (theirs: number, ours: number) => `${fmt(theirs / ours, 1)}× faster`;
console.log('\n| comparison | agent-schedule is |');
console.log('|---|---:|');
console.log(`| next target: \`nextCronAfter\` vs croner \`nextRun\` | ${ratio(micros.croner, micros.ours)} |`);
console.log(`| next target: \`nextCronAfter\` vs cron-parser \`parse\` + \`next\` | ${ratio(micros.cronParser, micros.ours)} |`);
console.log(
  `| parse + next: \`parseCron\` + \`nextCronAfter\` vs croner \`new Cron\` + \`nextRun\` | ${ratio(micros.cronerParsing, micros.oursParsing)} |`,
);
console.log(
  `| parse + next: \`parseCron\` + \`nextCronAfter\` vs cron-parser \`parse\` + \`next\` | ${ratio(micros.cronParser, micros.oursParsing)} |`,
);
