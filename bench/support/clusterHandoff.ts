// Cluster benchmark, part 8: a Host joins while reminders fall due. Two Host processes serve
// one-shot reminders over 1,000 Sessions, due one after another over a minute of real time; a
// third Host joins 10 s into that minute and takes its share from them, shard by shard, as
// rebalancing hands the shards on. A shard handed on has no owner from its release until the
// joiner has opened it, and a reminder of it due meanwhile waits. Per reminder: from its due time
// to its flush into its Session (recording Sessions in each Host); over all of them, and over
// those of the shards that moved to the joining Host. A trigger the benchmark installs logs each
// change of a shard's owner (and of whom it is offered to, where the schema has offers), so the
// time each shard that moved spent with no owner is known: from its release to its acquisition,
// none when its lease passed straight from holder to taker.
import type pg from 'pg';
import { hostShare } from '../../src/adapters/postgres/shardKeeper.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { RESTORE_LEAD_MS } from '../../src/runtime/scheduler.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import { benchSchema, liveOwners } from './clusterDb.ts';
import { LEASE_MS, SIM_START, startGroup } from './clusterHosts.ts';
import { type ChildEvent, type HostChild, startHostChild } from './clusterProcess.ts';
import { dueRows, seedRows } from './clusterSeed.ts';
import { fmt } from './domains.ts';
import { quantile } from './stats.ts';

export const HANDOFF_TASKS = envNumber('CLUSTER_BENCH_HANDOFF_TASKS', 3_000);
const SESSIONS = 1_000;
const PREFIX = 'handoff-';
/** The reminders fall due over this long, one after another (real ms). */
const SPREAD_MS = 60_000;
/** The first reminder is due half an hour into the simulated day (the clocks are moved there). */
const FIRST_DUE = SIM_START + 30 * 60_000;
/** How long after the clocks' last move the first reminder falls due, and the joiner joins after it (real ms). */
const LEAD_MS = 3_000;
const JOIN_AFTER_MS = 10_000;
/** A reminder later than this is counted as late. */
const LATE_MS = 1_000;

export interface HandoffFigures {
  readonly reminders: number;
  readonly delivered: number;
  /** Lateness of every reminder delivered, ms, sorted. */
  readonly lateness: number[];
  /** Lateness of the reminders of the shards that moved to the joining Host, ms, sorted. */
  readonly moved: number[];
  readonly shardsMoved: number;
  /** From the join until the joining Host held its share (polled), ms; NaN if it never did. */
  readonly joinerShareMs: number;
  /** Per shard that moved to the joining Host: how long its lease had no owner on the way, ms, sorted. */
  readonly ownerless: number[];
  /** Per shard handed over (offered, then moved straight): from its offer to the move, ms, sorted. */
  readonly offerToMove: number[];
}

/** Logs every change of a shard's owner, or of whom it is offered to (read as JSON, so a schema without offers logs none). */
async function logMoves(admin: pg.Pool, schema: string): Promise<void> {
  const q = `"${schema}"`;
  await admin.query(
    `create table ${q}.bench_moves (n bigserial, at timestamptz not null default clock_timestamp(), shard smallint, was text, now text, offered_to text)`,
  );
  await admin.query(`create function ${q}.bench_move() returns trigger language plpgsql as $$
    begin
      if new.owner is distinct from old.owner or (to_jsonb(new) ->> 'offered_to') is distinct from (to_jsonb(old) ->> 'offered_to') then
        insert into ${q}.bench_moves (shard, was, now, offered_to) values (new.shard, old.owner, new.owner, to_jsonb(new) ->> 'offered_to');
      end if;
      return new;
    end $$`);
  await admin.query(`create trigger bench_move after update on ${q}.shard_leases for each row execute function ${q}.bench_move()`);
}

/** What the move log says of the shards `joiner` holds: time without an owner on the way, and offer → move of those handed over. */
async function movesOf(admin: pg.Pool, schema: string, joiner: string): Promise<{ ownerless: number[]; offerToMove: number[] }> {
  const { rows } = await admin.query(
    `select shard, was, now, offered_to, floor(extract(epoch from at) * 1000)::bigint::text as at_ms from "${schema}".bench_moves order by n`,
  );
  const ownerless: number[] = [];
  const offerToMove: number[] = [];
  const freedAt = new Map<number, number>();
  const offeredAt = new Map<number, number>();
  for (const row of rows) {
    const shard = Number(row.shard);
    const at = Number(row.at_ms);
    if (row.was === row.now) {
      if (row.offered_to === joiner) offeredAt.set(shard, at);
      continue;
    }
    if (row.now === null) freedAt.set(shard, at);
    if (row.now !== joiner) continue;
    const freed = row.was === null ? freedAt.get(shard) : undefined;
    ownerless.push(freed === undefined ? 0 : at - freed);
    const offered = offeredAt.get(shard);
    if (row.was !== null && offered !== undefined) offerToMove.push(at - offered);
  }
  return { ownerless: ownerless.sort((a, b) => a - b), offerToMove: offerToMove.sort((a, b) => a - b) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Task i falls due at FIRST_DUE + i × SPREAD_MS / tasks: one after another over the minute. */
const rows = () =>
  dueRows('at', HANDOFF_TASKS, SESSIONS, PREFIX, new Date(FIRST_DUE).toISOString()).map((row, i) => ({
    ...row,
    record: { ...row.record, scheduledAt: new Date(FIRST_DUE + Math.floor((i * SPREAD_MS) / HANDOFF_TASKS)).toISOString() },
  }));

export async function measureHandoff(admin: pg.Pool): Promise<HandoffFigures> {
  const schema = benchSchema('handoff');
  await seedRows(admin, schema, rows());
  const g = await startGroup(admin, { mode: 'cluster', count: 2, tag: 'handoff', schema, announce: PREFIX });
  // Started now, so that its start-up is not in the minute; it joins later.
  const joiner = await startHostChild(g.options('handoff-h2'));
  g.hosts.push(joiner);
  const heard: { sessionId: string; keys: string[]; at: number }[] = [];
  const hear = (host: HostChild): void =>
    host.onEvent((event: ChildEvent) => {
      if (event.e === 'delivered')
        heard.push({ sessionId: event.sessionId as string, keys: event.keys as string[], at: event.at as number });
    });
  for (const host of g.hosts) hear(host);
  try {
    const serving = g.hosts.filter((h) => h !== joiner);
    await Promise.all(serving.map((h) => h.send('idle')));
    // A minute before the first reminder, where a restored task gets its actor, then a few seconds.
    await Promise.all(g.hosts.map((h) => h.send('move', { sim: FIRST_DUE - RESTORE_LEAD_MS, real: realNow() })));
    await Promise.all(serving.map((h) => h.send('idle')));
    const anchorReal = realNow();
    const anchorSim = FIRST_DUE - LEAD_MS;
    await Promise.all(g.hosts.map((h) => h.send('move', { sim: anchorSim, real: anchorReal })));
    const realOf = (sim: number): number => anchorReal + (sim - anchorSim);
    await sleep(realOf(FIRST_DUE) + JOIN_AFTER_MS - realNow());
    await logMoves(admin, schema);
    const joinedAt = realNow();
    await joiner.send('join');
    const end = realOf(FIRST_DUE + SPREAD_MS) + 30_000;
    let joinerShareMs = Number.NaN;
    const count = (): number => heard.reduce((n, h) => n + h.keys.length, 0);
    while (count() < HANDOFF_TASKS && realNow() < end) {
      if (Number.isNaN(joinerShareMs)) {
        const owners = await liveOwners(admin, schema);
        if ([...owners.values()].filter((owner) => owner === joiner.hostId).length >= hostShare(2, 3)) joinerShareMs = realNow() - joinedAt;
      }
      await sleep(50);
    }
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    const moves = await movesOf(admin, schema, joiner.hostId);
    const owners = await liveOwners(admin, schema);
    const movedShards = new Set([...owners].filter(([, owner]) => owner === joiner.hostId).map(([shard]) => shard));
    const lateness: number[] = [];
    const moved: number[] = [];
    for (const { sessionId, keys, at } of heard)
      for (const key of keys) {
        const occurrence = Date.parse(key.slice(key.lastIndexOf('@') + 1));
        const late = Math.max(0, at - realOf(occurrence));
        lateness.push(late);
        if (movedShards.has(shardOf(sessionId))) moved.push(late);
      }
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    return {
      reminders: HANDOFF_TASKS,
      delivered: lateness.length,
      lateness: sorted(lateness),
      moved: sorted(moved),
      shardsMoved: movedShards.size,
      joinerShareMs,
      ...moves,
    };
  } finally {
    await g.stop();
  }
}

export function printHandoff(f: HandoffFigures): void {
  const ms = (xs: readonly number[], q: number): string => (xs.length === 0 ? '—' : `${fmt(quantile(xs, q), 0)} ms`);
  const late = (xs: readonly number[]): number => xs.filter((x) => x > LATE_MS).length;
  console.log(
    `${f.reminders.toLocaleString('en')} one-shot reminders over ${SESSIONS.toLocaleString('en')} Sessions, due one after another over ${SPREAD_MS / 1000} s on 2 Hosts; a third joins ${JOIN_AFTER_MS / 1000} s in; lateness from each reminder's due time to its flush into its Session; leaseMs ${LEASE_MS}`,
  );
  console.log('');
  console.log('| measure | value |');
  console.log('|---|---:|');
  console.log(`| reminders delivered | ${f.delivered.toLocaleString('en')} |`);
  console.log(`| lateness, all: median | ${ms(f.lateness, 0.5)} |`);
  console.log(`| lateness, all: p99 | ${ms(f.lateness, 0.99)} |`);
  console.log(`| lateness, all: max | ${ms(f.lateness, 1)} |`);
  console.log(`| reminders more than ${LATE_MS} ms late, all | ${late(f.lateness)} |`);
  console.log(`| shards moved to the joining Host | ${f.shardsMoved} |`);
  console.log(`| join → the joining Host holds its share | ${Number.isNaN(f.joinerShareMs) ? '—' : `${fmt(f.joinerShareMs, 0)} ms`} |`);
  console.log(`| reminders of the moved shards | ${f.moved.length.toLocaleString('en')} |`);
  console.log(`| lateness, moved shards: median | ${ms(f.moved, 0.5)} |`);
  console.log(`| lateness, moved shards: p99 | ${ms(f.moved, 0.99)} |`);
  console.log(`| lateness, moved shards: max | ${ms(f.moved, 1)} |`);
  console.log(`| reminders more than ${LATE_MS} ms late, moved shards | ${late(f.moved)} |`);
  console.log(`| moved shards that had no owner on the way | ${f.ownerless.filter((x) => x > 0).length} |`);
  console.log(`| time without an owner, per moved shard: median | ${ms(f.ownerless, 0.5)} |`);
  console.log(`| time without an owner, per moved shard: max | ${ms(f.ownerless, 1)} |`);
  console.log(`| shards handed over (offered, moved straight) | ${f.offerToMove.length} |`);
  console.log(`| offer → move, per shard handed over: median | ${ms(f.offerToMove, 0.5)} |`);
  console.log(`| offer → move, per shard handed over: max | ${ms(f.offerToMove, 1)} |`);
}
