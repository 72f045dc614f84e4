// The database-blip trial: a Host process (postgresBlipChild.ts) runs a schedule service on a
// plain PostgreSQL storage while a driver sends it creates without pause and an admin connection
// terminates the storage's backends (found by their application_name) at random intervals of
// 2–20 ms. Every create answered without a code is acknowledged. After the kill loop the Host
// must still be running and must serve a create again; it then closes, and a fresh storage on
// the schema must hold every acknowledged task. A Host that exits on its own is a crash.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { random } from './crashTrial.ts';
import { randomSchema, run, SERVER_URL, serverPool } from './postgresHarness.ts';

const CHILD = join(import.meta.dirname, 'postgresBlipChild.ts');
const ROOT = join(import.meta.dirname, '..', '..');
/** Creates in flight at once. */
const IN_FLIGHT = 4;
/** How long the Host may take to serve again after the last kill before the round fails. */
const RECOVERY_LIMIT_MS = 30_000;

/** What one round saw. */
export interface BlipFigures {
  /** Creates answered without a code. */
  acknowledged: number;
  /** Creates answered `persistence_uncertain`. */
  uncertain: number;
  /** Other answers, by code. */
  refused: Record<string, number>;
  /** Backends terminated. */
  killed: number;
  /** Acknowledged tasks missing from the reopened schema. */
  lost: number;
  /** The Host exited before it was told to close (with its exit code and the end of its stderr). */
  crash?: string;
  /** From the last kill to the first create acknowledged after it, in ms (undefined when it never served again). */
  recoveryMs?: number;
  /** Warnings and errors the Host logged. */
  logged?: { warn: number; error: number };
}

/** A Host process of the trial (postgresBlipChild.ts). */
export interface Host {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the exit code and the end of stderr when the process exits. */
  readonly exited: Promise<string>;
  send(command: Record<string, unknown>): void;
  /** Resolves with the next answer of kind `e`. */
  next(e: string): Promise<Record<string, unknown>>;
  /** Called for every `created` answer. */
  onCreated?: (answer: Record<string, unknown>) => void;
}

/** Starts a Host process on `schema`, its connections named `applicationName`. */
export function startHost(schema: string, applicationName: string): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PG_BLIP_URL: SERVER_URL, PG_BLIP_SCHEMA: schema, PG_BLIP_APP: applicationName },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const waiting = new Map<string, Array<(answer: Record<string, unknown>) => void>>();
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => resolve(`exit code ${String(code)}${signal === null ? '' : ` (${signal})`}: ${stderr}`));
  });
  const host: Host = {
    child,
    exited,
    send: (command) => {
      if (child.exitCode === null && child.signalCode === null) child.stdin.write(`${JSON.stringify(command)}\n`);
    },
    next: (e) => new Promise((resolve) => waiting.set(e, [...(waiting.get(e) ?? []), resolve])),
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as Record<string, unknown>;
    if (answer.e === 'created') host.onCreated?.(answer);
    const resolve = waiting.get(String(answer.e))?.shift();
    resolve?.(answer);
  });
  return host;
}

/** Resolves after `ms` (the kill loop's pacing, not an assertion). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One round: `durationMs` of kills every 2–20 ms (seeded) against a Host under a steady stream of
 * creates, then recovery, close and a reopen that counts the acknowledged tasks missing.
 */
export async function blipRound(durationMs: number, seed: number): Promise<BlipFigures> {
  const schema = randomSchema();
  const applicationName = `agent-schedule-blip-${schema}`;
  const admin = serverPool('agent-schedule-blip-admin', 2);
  const figures: BlipFigures = { acknowledged: 0, uncertain: 0, refused: {}, killed: 0, lost: 0 };
  const acknowledged = new Set<string>();
  const host = startHost(schema, applicationName);
  let crashed: string | undefined;
  let closing = false;
  void host.exited.then((how) => {
    if (crashed === undefined && !closing) crashed = how;
  });
  try {
    const ready = await Promise.race([host.next('ready'), host.exited.then((how) => ({ e: 'exit', how }))]);
    if (ready.e !== 'ready') throw new Error(`the Host did not start: ${String(ready.how)}`);

    let lastAckAt = 0;
    const answered = new Map<number, (answer: Record<string, unknown>) => void>();
    host.onCreated = (answer) => {
      if (typeof answer.id === 'string') {
        acknowledged.add(answer.id);
        lastAckAt = performance.now();
      } else if (answer.code === 'persistence_uncertain') figures.uncertain++;
      else figures.refused[String(answer.code)] = (figures.refused[String(answer.code)] ?? 0) + 1;
      answered.get(Number(answer.n))?.(answer);
      answered.delete(Number(answer.n));
    };
    let n = 0;
    const createOne = (): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        const id = ++n;
        answered.set(id, resolve);
        host.send({ cmd: 'create', n: id, sessionId: `user-${id % 16}` });
      });

    let driving = true;
    const hostGone = host.exited.then(() => undefined);
    const drivers = Array.from({ length: IN_FLIGHT }, async () => {
      while (driving && crashed === undefined) await Promise.race([createOne(), hostGone]);
    });

    const rand = random(seed);
    const until = performance.now() + durationMs;
    let lastKillAt = performance.now();
    while (performance.now() < until && crashed === undefined) {
      const killed = await run(
        admin,
        `select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity
           where application_name = $1 and pid <> pg_backend_pid()) k`,
        [applicationName],
      );
      figures.killed += Number(killed.rows[0]?.n ?? 0);
      lastKillAt = performance.now();
      await pause(2 + Math.floor(rand() * 19));
    }
    driving = false;
    await Promise.all(drivers);

    if (crashed === undefined) {
      // The Host serves again: creates until one is acknowledged after the last kill.
      const deadline = lastKillAt + RECOVERY_LIMIT_MS;
      while (lastAckAt <= lastKillAt && performance.now() < deadline && crashed === undefined) {
        await Promise.race([createOne(), hostGone]);
        if (lastAckAt <= lastKillAt) await pause(10);
      }
      if (lastAckAt > lastKillAt) figures.recoveryMs = Math.round(lastAckAt - lastKillAt);
    }
    if (crashed === undefined) {
      closing = true;
      host.send({ cmd: 'close' });
      const closed: Record<string, unknown> = await Promise.race([host.next('closed'), host.exited.then((how) => ({ e: 'exit', how }))]);
      if (closed.e === 'closed') figures.logged = closed.logged as { warn: number; error: number };
      else crashed = String(closed.how);
      await host.exited;
    }
  } finally {
    if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill('SIGKILL');
    figures.acknowledged = acknowledged.size;
    if (crashed !== undefined) figures.crash = crashed;
    try {
      const reopened = postgresStorage({ pool: admin, schema });
      const domain = await reopened.open();
      await reopened.close();
      const stored = new Set(domain.tasks.map((t) => t.record.id));
      figures.lost = [...acknowledged].filter((id) => !stored.has(id)).length;
    } finally {
      await run(admin, `drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  }
  return figures;
}

/** The figures of several rounds, added up (the slowest recovery kept). */
export function addUp(rounds: readonly BlipFigures[]): BlipFigures & { rounds: number; crashes: number } {
  const refused: Record<string, number> = {};
  for (const r of rounds) for (const [code, count] of Object.entries(r.refused)) refused[code] = (refused[code] ?? 0) + count;
  const recoveries = rounds.map((r) => r.recoveryMs);
  return {
    rounds: rounds.length,
    acknowledged: rounds.reduce((sum, r) => sum + r.acknowledged, 0),
    uncertain: rounds.reduce((sum, r) => sum + r.uncertain, 0),
    refused,
    killed: rounds.reduce((sum, r) => sum + r.killed, 0),
    lost: rounds.reduce((sum, r) => sum + r.lost, 0),
    crashes: rounds.filter((r) => r.crash !== undefined).length,
    ...(recoveries.every((ms) => ms !== undefined) ? { recoveryMs: Math.max(...recoveries) } : {}),
  };
}
