// The cluster trials' checks on the settled cluster, read from the trial's schema: the calls'
// effects (every acknowledged one present, every refused one absent, nothing never attempted),
// the deliveries (every reminder due before the fault in its Session's transcript, how long after
// the fault; no reminder twice in a transcript; redeliveries only where the earlier delivery's
// commit never landed, or by a Host that no longer owned the shard), and the shard balance.
import type { SqlPool } from '../../../src/adapters/postgres/driver.ts';
import { fairShare } from '../../../src/adapters/postgres/shardLeases.ts';
import { shardOf } from '../../../src/domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../../src/domain/tasks/types.ts';
import { run } from '../../storage/postgresHarness.ts';
import type { FollowupSeen } from './clusterProcess.ts';
import type { RunOp, SeededTask } from './clusterWorkload.ts';

/** Answers that say nothing of whether the call ran: no answer (the Host died), a throw, or an uncertain outcome. */
const UNCERTAIN = new Set(['persistence_uncertain', 'thrown']);

/** How a call ended, as the checks read its answer. */
export type Outcome = 'ok' | 'refused' | 'uncertain';

export function outcomeOf(op: RunOp, answer: unknown): Outcome {
  if (answer === undefined || answer === null) return 'uncertain';
  const code = (answer as { code?: unknown }).code;
  if (typeof code === 'string') return UNCERTAIN.has(code) ? 'uncertain' : 'refused';
  if (op.kind === 'delete') return (answer as { deleted?: unknown }).deleted === true ? 'ok' : 'refused';
  return 'ok';
}

interface StoredTask {
  readonly id: string;
  readonly sessionId: string;
  readonly row: TaskRow;
}

/** Every task row of the schema. */
export async function readTasks(pool: SqlPool, schema: string): Promise<Map<string, StoredTask>> {
  const result = await run(pool, `select id, session_id, row from "${schema}".tasks`);
  return new Map(
    result.rows.map((r) => [String(r.id), { id: String(r.id), sessionId: String(r.session_id), row: r.row as TaskRow }] as const),
  );
}

/** The calls' effects against the rows. */
export function checkEffects(
  rows: ReadonlyMap<string, StoredTask>,
  seeded: readonly SeededTask[],
  ops: ReadonlyArray<{ op: RunOp; answer: unknown }>,
): { problems: string[]; acknowledged: number; refused: number; uncertain: number; uncertainLanded: number } {
  const problems: string[] = [];
  const out = { problems, acknowledged: 0, refused: 0, uncertain: 0, uncertainLanded: 0 };
  const touched = new Set(ops.flatMap(({ op }) => (op.id === undefined ? [] : [op.id])));
  const byTitle = new Map<string, StoredTask[]>();
  for (const task of rows.values()) byTitle.set(task.row.record.title, [...(byTitle.get(task.row.record.title) ?? []), task]);
  const known = new Set(seeded.map((s) => s.title));
  for (const { op } of ops) if (op.title !== undefined) known.add(op.title);
  for (const [title, tasks] of byTitle) {
    if (!known.has(title)) problems.push(`${tasks.map((t) => t.id).join(', ')} carry the title ${title}, which no call wrote`);
    if (tasks.length > 1) problems.push(`the title ${title} is on ${tasks.length} rows (${tasks.map((t) => t.id).join(', ')})`);
  }
  for (const s of seeded) {
    if (touched.has(s.id)) continue;
    const row = rows.get(s.id);
    if (row === undefined) problems.push(`seeded ${s.id} (${s.title}) is missing though no call touched it`);
    else if (row.row.record.title !== s.title) problems.push(`seeded ${s.id} is titled ${row.row.record.title}, not ${s.title}`);
  }
  const seedTitle = new Map(seeded.map((s) => [s.id, s.title] as const));
  for (const { op, answer } of ops) {
    const outcome = outcomeOf(op, answer);
    if (outcome === 'ok') out.acknowledged++;
    else if (outcome === 'refused') out.refused++;
    else out.uncertain++;
    const said = `${op.kind} #${op.call.n} (${op.call.sessionId}) answered ${JSON.stringify(answer)?.slice(0, 200)}`;
    if (op.kind === 'create') {
      const landed = byTitle.get(op.title ?? '') ?? [];
      const id = (answer as { id?: unknown } | undefined)?.id;
      if (outcome === 'ok' && (landed.length !== 1 || landed[0]?.id !== id || landed[0]?.sessionId !== op.call.sessionId))
        problems.push(`${said}, but the rows hold ${landed.map((t) => `${t.id}@${t.sessionId}`).join(', ') || 'nothing'} with its title`);
      if (outcome === 'refused' && landed.length > 0) problems.push(`${said}, but its title is on ${landed[0]?.id}`);
      if (outcome === 'uncertain' && landed.length > 0) out.uncertainLanded++;
      continue;
    }
    const row = rows.get(op.id ?? '');
    if (op.kind === 'update') {
      const title = row?.row.record.title;
      if (outcome === 'ok' && title !== op.title) problems.push(`${said}, but ${op.id} is titled ${title ?? '(missing)'}`);
      if (outcome === 'refused' && title !== seedTitle.get(op.id ?? '')) problems.push(`${said}, but ${op.id} is titled ${title}`);
      if (outcome === 'uncertain' && title === op.title) out.uncertainLanded++;
      continue;
    }
    if (outcome === 'ok' && row !== undefined) problems.push(`${said}, but ${op.id} is still there`);
    if (outcome === 'refused' && row === undefined) problems.push(`${said}, but ${op.id} is gone`);
    if (outcome === 'uncertain' && row === undefined) out.uncertainLanded++;
  }
  return out;
}

/** A reminder delivered: its task, occurrence, and the Host clock (simulated) at the flush. */
interface Delivered {
  readonly occurrence: number;
  readonly at: number;
}

/** What the transcripts hold. */
export interface TranscriptFacts {
  /** Task id → its deliveries (from the idempotency keys). */
  readonly byTask: Map<string, Delivered[]>;
  /** `session message` → the keys that message holds. */
  readonly messages: Map<string, readonly string[]>;
  /** Keys held by more than one message of a Session. */
  readonly twice: string[];
  /** Reminders the transcripts hold. */
  keys: number;
}

export async function readTranscriptFacts(pool: SqlPool, schema: string): Promise<TranscriptFacts> {
  const result = await run(
    pool,
    `select session_id, message_id, idempotency_keys, created_at from "${schema}".host_transcript_messages order by session_id, seq`,
  );
  const facts: TranscriptFacts = { byTask: new Map(), messages: new Map(), twice: [], keys: 0 };
  const seen = new Set<string>();
  for (const r of result.rows) {
    const keys = (r.idempotency_keys as string[] | null) ?? [];
    const at = new Date(r.created_at as Date).getTime();
    facts.messages.set(`${String(r.session_id)} ${String(r.message_id)}`, keys);
    for (const key of keys) {
      facts.keys++;
      const sessionKey = `${String(r.session_id)} ${key}`;
      if (seen.has(sessionKey)) facts.twice.push(sessionKey);
      seen.add(sessionKey);
      const split = key.lastIndexOf('@');
      const id = key.slice(0, split);
      facts.byTask.set(id, [...(facts.byTask.get(id) ?? []), { occurrence: Date.parse(key.slice(split + 1)), at }]);
    }
  }
  return facts;
}

/** A task due (active, its occurrence reached) when the fault came. */
export interface DueAtFault {
  readonly id: string;
  readonly sessionId: string;
  readonly kind: string;
  readonly occurrence: number;
}

/** Active rows whose occurrence is at or before simulated `simNow`. */
export async function readDue(pool: SqlPool, schema: string, simNow: number): Promise<DueAtFault[]> {
  const result = await run(
    pool,
    `select id, session_id, row from "${schema}".tasks where status = 'active' and next_target <= $1::timestamptz`,
    [new Date(simNow).toISOString()],
  );
  return result.rows.map((r) => {
    const row = r.row as TaskRow;
    return { id: String(r.id), sessionId: String(r.session_id), kind: row.record.kind, occurrence: Date.parse(row.record.scheduledAt) };
  });
}

/** Active rows whose occurrence falls after simulated `from` and at or before `to`. */
export async function readDueBetween(pool: SqlPool, schema: string, from: number, to: number): Promise<DueAtFault[]> {
  return (await readDue(pool, schema, to)).filter((task) => task.occurrence > from);
}

/**
 * Each reminder due at the fault must be in the transcript (for a recurring task, that occurrence
 * or a later one); answers the simulated flush time of each (and, in `delivered`, beside the
 * occurrence it was owed for), or a problem.
 */
export function checkDue(
  due: readonly DueAtFault[],
  facts: TranscriptFacts,
  skip: ReadonlySet<string>,
): { problems: string[]; deliveredAt: number[]; delivered: Array<{ occurrence: number; at: number }> } {
  const problems: string[] = [];
  const deliveredAt: number[] = [];
  const delivered: Array<{ occurrence: number; at: number }> = [];
  for (const task of due) {
    if (skip.has(task.id)) continue;
    const oneShot = task.kind === 'after' || task.kind === 'at';
    const found = (facts.byTask.get(task.id) ?? []).filter((d) =>
      oneShot ? d.occurrence === task.occurrence : d.occurrence >= task.occurrence,
    );
    if (found.length === 0)
      problems.push(`${task.id} (${task.kind}) was due at ${new Date(task.occurrence).toISOString()} and never delivered`);
    else {
      const at = Math.min(...found.map((d) => d.at));
      deliveredAt.push(at);
      delivered.push({ occurrence: task.occurrence, at });
    }
  }
  return { problems, deliveredAt, delivered };
}

/** The audit's view of deliveries: which commits recorded which reminder, and the terms of each shard's owners. */
export interface DeliveryAudit {
  /** `taskId@occurrence` → the commits that recorded it as the task's last delivery. */
  readonly recorded: Map<string, Array<{ host: string; epoch: number; at: number }>>;
  /** Shard → its ownership changes in order. */
  readonly terms: Map<number, Array<{ owner: string | null; epoch: number; at: number }>>;
}

export async function readDeliveryAudit(pool: SqlPool, schema: string): Promise<DeliveryAudit> {
  const audit: DeliveryAudit = { recorded: new Map(), terms: new Map() };
  const commits = await run(
    pool,
    `select task_id, last_delivery, committed_by, committed_epoch::text as epoch, at from "${schema}".audit_commits where last_delivery is not null order by id`,
  );
  for (const r of commits.rows) {
    const key = `${String(r.task_id)}@${new Date(String(r.last_delivery)).toISOString()}`;
    const list = audit.recorded.get(key) ?? [];
    list.push({ host: String(r.committed_by), epoch: Number(r.epoch), at: new Date(r.at as Date).getTime() });
    audit.recorded.set(key, list);
  }
  const leases = await run(pool, `select shard, owner, epoch::text as epoch, at from "${schema}".audit_leases order by id`);
  for (const r of leases.rows) {
    const list = audit.terms.get(Number(r.shard)) ?? [];
    list.push({ owner: r.owner === null ? null : String(r.owner), epoch: Number(r.epoch), at: new Date(r.at as Date).getTime() });
    audit.terms.set(Number(r.shard), list);
  }
  return audit;
}

/** Slack for the wall clocks of a Host process and the database (one machine). */
const CLOCK_SLACK_MS = 50;

/**
 * Followups of one reminder seen more than once. A redelivery is allowed when the earlier
 * delivery's commit had not landed (the flush→commit window was cut: a kill, a stop, a lost
 * lease) or when the Host redelivering no longer owned the shard (its commit is refused); it is a
 * problem when the Host owned the shard and the reminder had been recorded before its term began,
 * or within its term by itself. A followup of a Host that held the shard in an earlier term
 * ending less than `staleWindowMs` before it may be that term's attempt in flight (a Host stopped
 * mid-attempt finishes its flush when it runs again, before it closes that term's service; the
 * commit is refused): allowed too. Answers the redeliveries and how many the Sessions dropped
 * (answered with the message already holding the reminder).
 */
export function checkRedeliveries(
  followups: readonly FollowupSeen[],
  facts: TranscriptFacts,
  audit: DeliveryAudit,
  retaken: ReadonlyMap<string, ReadonlyArray<{ shard: number; epoch: number; at: number }>> = new Map(),
  staleWindowMs = 0,
): { problems: string[]; redeliveries: number; dropped: number } {
  const out = { problems: [] as string[], redeliveries: 0, dropped: 0 };
  const first = new Set<string>();
  const answered = new Set<string>();
  for (const seen of [...followups].sort((a, b) => a.at - b.at)) {
    const message = `${seen.sessionId} ${seen.messageId}`;
    const held = facts.messages.get(message);
    const holdsAll = held !== undefined && seen.keys.every((key) => held.includes(key));
    if (holdsAll && answered.has(message)) out.dropped++;
    if (holdsAll) answered.add(message);
    for (const key of seen.keys) {
      const sessionKey = `${seen.sessionId} ${key}`;
      if (!first.has(sessionKey)) {
        first.add(sessionKey);
        continue;
      }
      out.redeliveries++;
      const terms = audit.terms.get(shardOf(seen.sessionId)) ?? [];
      const term = terms.filter((t) => t.at <= seen.at + CLOCK_SLACK_MS).at(-1);
      if (term === undefined || term.owner !== seen.hostId) continue;
      // An earlier term of this Host on the shard that ended just before: its attempt in flight.
      const ended = terms.some(
        (t, i) => t.owner === seen.hostId && t.epoch < term.epoch && (terms[i + 1]?.at ?? 0) > seen.at - staleWindowMs,
      );
      if (ended) continue;
      const before = (audit.recorded.get(key) ?? []).filter((c) => c.at < seen.at - CLOCK_SLACK_MS);
      const stale = before.find((c) => c.at < term.at - CLOCK_SLACK_MS || (c.host === seen.hostId && c.epoch === term.epoch));
      if (stale === undefined) continue;
      const shard = shardOf(seen.sessionId);
      const back = (retaken.get(seen.hostId) ?? []).find((r) => r.shard === shard && r.epoch === term.epoch && r.at <= seen.at + 1000);
      const why =
        back === undefined
          ? ''
          : ` (it had given shard ${shard} up and held it again at epoch ${term.epoch} at ${new Date(back.at).toISOString()})`;
      out.problems.push(
        `${key} in ${seen.sessionId} was delivered again by ${seen.hostId} (owner at epoch ${term.epoch} since ${new Date(term.at).toISOString()}) at ${new Date(seen.at).toISOString()}, though ${stale.host} had recorded it at epoch ${stale.epoch} at ${new Date(stale.at).toISOString()}${why}`,
      );
    }
  }
  return out;
}

/** Shards per owner among unexpired leases, and the problems: a shard not held by a live Host, a Host above its share. */
export async function checkBalance(
  pool: SqlPool,
  schema: string,
  live: readonly string[],
): Promise<{ perHost: Record<string, number>; problems: string[] }> {
  const result = await run(
    pool,
    `select owner, count(*)::int as n from "${schema}".shard_leases where owner is not null and expires_at > now() group by owner`,
  );
  const perHost: Record<string, number> = Object.fromEntries(live.map((h) => [h, 0]));
  let owned = 0;
  const problems: string[] = [];
  for (const r of result.rows) {
    const owner = String(r.owner);
    owned += Number(r.n);
    if (!live.includes(owner)) problems.push(`${owner}, not a live Host, holds ${r.n} shards`);
    perHost[owner] = Number(r.n);
  }
  if (owned !== 256) problems.push(`${256 - owned} shards have no unexpired lease`);
  const share = fairShare(live.length);
  for (const host of live)
    if ((perHost[host] ?? 0) > share) problems.push(`${host} holds ${perHost[host]} shards, above its share ${share}`);
  return { perHost, problems };
}
