// Stored documents mutated from valid ones. A valid domain (fast-check) is encoded as
// schedule.json — and, for some cases, split into a document and a journal — then damaged: bit
// flips, truncation, a dropped member, a member of another type, an unknown or `__proto__` member,
// duplicate task or message ids, a lowered id counter. Opening it must give either exactly the
// domain the files describe (every task row, none missing — never a partial catalog) or
// `corrupt_schedule_log` with every file byte-for-byte unchanged. Every fourth case also opens a
// whole service on the files: it starts with the whole catalog or refuses to start.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor } from '../../src/adapters/loadDomain.ts';
import { type DomainSnapshot, encodeBatch, encodeDocument, encodeRowObject } from '../../src/domain/codec/index.ts';
import { isScheduleError } from '../../src/domain/errors.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import type { StoredDomain } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { domainArb } from '../storage/fixtures.ts';
import { filesIn } from '../storage/tempFiles.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

/** A damage done to the text or the parsed value of one file. */
type Mutation =
  | { kind: 'bitFlips'; positions: number[] }
  | { kind: 'truncate'; at: number }
  | { kind: 'dropMember'; pick: number }
  | { kind: 'swapType'; pick: number; value: Json }
  | { kind: 'addMember'; pick: number; key: string }
  | { kind: 'duplicateId'; pick: number }
  | { kind: 'duplicateMessageId'; pick: number }
  | { kind: 'lowerCounter' };

const OTHER_TYPES: Json[] = ['1', 1, -1, 1.5, true, null, [], {}, '', 'x'.repeat(300), '2030-01-01T00:00:00Z', [1, 2]];

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.array(fc.nat(), { minLength: 1, maxLength: 4 }).map((positions) => ({ kind: 'bitFlips' as const, positions })),
  fc.nat().map((at) => ({ kind: 'truncate' as const, at })),
  fc.nat().map((pick) => ({ kind: 'dropMember' as const, pick })),
  fc.tuple(fc.nat(), fc.constantFrom(...OTHER_TYPES)).map(([pick, value]) => ({ kind: 'swapType' as const, pick, value })),
  fc
    .tuple(fc.nat(), fc.constantFrom('extra', '__proto__', 'constructor', 'prototype', 'status', 'prompt', 'id'))
    .map(([pick, key]) => ({ kind: 'addMember' as const, pick, key })),
  fc.nat().map((pick) => ({ kind: 'duplicateId' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'duplicateMessageId' as const, pick })),
  fc.constant({ kind: 'lowerCounter' as const }),
);

/** Every (container, key) pair of a parsed value, depth first. */
function slots(root: Json): Array<[Container, string | number]> {
  const out: Array<[Container, string | number]> = [];
  const walk = (node: Json) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push([node, i]);
        walk(child);
      });
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        out.push([node, key]);
        walk(node[key] as Json);
      }
    }
  };
  walk(root);
  return out;
}

const objectsIn = (root: Json): Array<{ [key: string]: Json }> =>
  slots(root)
    .map(([parent, key]) => (parent as Record<string | number, Json>)[key] as Json)
    .filter((v): v is { [key: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v));

function pickFrom<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}

/** Applies a mutation to a parsed value (in place); false when it found nothing to change. */
function mutateValue(doc: Json, m: Mutation): boolean {
  const tasks = (doc as { tasks?: Json }).tasks;
  const rows = Array.isArray(tasks) ? (tasks.filter((t) => t !== null && typeof t === 'object') as Array<{ [k: string]: Json }>) : [];
  switch (m.kind) {
    case 'dropMember': {
      const slot = pickFrom(
        slots(doc).filter(([p]) => !Array.isArray(p)),
        m.pick,
      );
      if (slot === undefined) return false;
      delete (slot[0] as Record<string, Json>)[slot[1]];
      return true;
    }
    case 'swapType': {
      const slot = pickFrom(slots(doc), m.pick);
      if (slot === undefined) return false;
      (slot[0] as Record<string | number, Json>)[slot[1]] = structuredClone(m.value);
      return true;
    }
    case 'addMember': {
      const target = pickFrom([doc as { [key: string]: Json }, ...objectsIn(doc)], m.pick);
      if (target === undefined) return false;
      Object.defineProperty(target, m.key, { value: 'x', enumerable: true, writable: true, configurable: true });
      return true;
    }
    case 'duplicateId': {
      const a = pickFrom(rows, m.pick);
      if (a === undefined || !Array.isArray(tasks)) return false;
      const b = rows.find((r) => r !== a);
      if (b === undefined) tasks.push(structuredClone(a));
      else (b.record as { [k: string]: Json }).id = (a.record as { [k: string]: Json }).id ?? null;
      return true;
    }
    case 'duplicateMessageId': {
      const histories = rows
        .map((r) => (r.deliveryHistory as { records?: Json } | undefined)?.records)
        .filter((r): r is Json[] => Array.isArray(r) && r.length >= 2);
      const records = pickFrom(histories, m.pick) as Array<{ [k: string]: Json }> | undefined;
      if (records?.[0] === undefined || records[1] === undefined) return false;
      records[1].messageId = records[0].messageId ?? null;
      return true;
    }
    case 'lowerCounter': {
      const d = doc as { nextTaskNumber?: Json };
      if (typeof d.nextTaskNumber !== 'number' || d.nextTaskNumber <= 1) return false;
      d.nextTaskNumber = 1;
      return true;
    }
    default:
      return false;
  }
}

/** The damaged bytes of `text`, or undefined when the mutation found nothing to change. */
function mutate(text: string, m: Mutation): Buffer | undefined {
  const bytes = Buffer.from(text, 'utf8');
  if (m.kind === 'bitFlips') {
    for (const p of m.positions) {
      const i = p % (bytes.length * 8);
      bytes[i >> 3] = (bytes[i >> 3] ?? 0) ^ (1 << (i & 7));
    }
    return bytes;
  }
  if (m.kind === 'truncate') return bytes.subarray(0, m.at % bytes.length);
  const doc = JSON.parse(text) as Json;
  return mutateValue(doc, m) ? Buffer.from(JSON.stringify(doc), 'utf8') : undefined;
}

/** Damages one journal: bytes anywhere, or the JSON of one of its lines. */
function mutateJournal(text: string, m: Mutation): Buffer | undefined {
  if (m.kind === 'bitFlips' || m.kind === 'truncate') return mutate(text, m);
  const lines = text.split('\n');
  const index = ('pick' in m ? m.pick : 0) % Math.max(1, lines.length - 1);
  const line = lines[index];
  if (line === undefined || line === '') return undefined;
  const damaged = mutate(line, m);
  if (damaged === undefined) return undefined;
  lines[index] = damaged.toString('utf8');
  return Buffer.from(lines.join('\n'), 'utf8');
}

/** The row as the file states it, with the default status filled in. */
const statedRow = (row: unknown): unknown => {
  const r = row as Record<string, unknown>;
  return Object.hasOwn(r, 'status') ? r : { ...r, status: 'active' };
};

/**
 * Throws unless `opened` holds exactly the rows the files state: the document's rows in order,
 * each journal row replacing the row with its id or appended after them. A journal may only
 * raise the id counter.
 */
function checkWhole(opened: StoredDomain, bytes: Buffer, journalRows: readonly TaskRow[]): void {
  const doc = JSON.parse(bytes.toString('utf8')) as { tasks: unknown[]; nextTaskNumber?: number };
  const stated = new Map<unknown, unknown>();
  for (const row of doc.tasks) stated.set((row as { record: { id: unknown } }).record.id, statedRow(row));
  for (const row of journalRows) stated.set(row.record.id, encodeRowObject(row));
  const expected = [...stated.values()];
  if (opened.tasks.length !== expected.length) throw new Error(`opened ${opened.tasks.length} of ${expected.length} stored tasks`);
  opened.tasks.forEach((row, i) => {
    if (!isDeepStrictEqual(encodeRowObject(row), expected[i])) throw new Error(`task ${i} opened differently from the files`);
  });
  const counter = doc.nextTaskNumber;
  const journal = journalRows.length > 0;
  if (counter !== undefined && (journal ? opened.nextTaskNumber < counter : opened.nextTaskNumber !== counter)) {
    throw new Error('the id counter differs from the file');
  }
}

export interface DocumentFuzzFigures {
  cases: number;
  opened: number;
  refused: number;
  serviceChecks: number;
}

interface Case {
  readonly domain: DomainSnapshot;
  readonly mutation: Mutation;
  /** How many rows go to the journal instead of the document (0: document only). */
  readonly journalRows: number;
  readonly damageJournal: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc
  .tuple(domainArb(6), mutationArb, fc.nat({ max: 3 }), fc.boolean())
  .map(([domain, mutation, journalRows, damageJournal]) => ({
    domain,
    mutation,
    journalRows: Math.min(journalRows, domain.tasks.length),
    damageJournal,
  }));

/** The states a replay of a torn journal may stop at: the document plus each proper prefix of its lines. */
function prefixStates(doc: DomainSnapshot, lines: readonly DomainSnapshot['tasks'][number][]): string[] {
  return lines.map((_, k) => encodeDocument({ tasks: [...doc.tasks, ...lines.slice(0, k)], nextTaskNumber: doc.nextTaskNumber }));
}

async function openOnce(dir: string, c: Case, serviceCheck: boolean, figures: DocumentFuzzFigures): Promise<void> {
  const path = join(dir, 'schedule.json');
  const split = c.domain.tasks.length - c.journalRows;
  const docPart: DomainSnapshot = { tasks: c.domain.tasks.slice(0, split), nextTaskNumber: c.domain.nextTaskNumber };
  const lines = c.domain.tasks.slice(split);
  const docText = encodeDocument(docPart);
  const journalText = lines.map((row) => `${encodeBatch({ puts: [row], deletes: [] })}\n`).join('');
  const journalDamaged = c.journalRows > 0 && c.damageJournal;
  const damaged = journalDamaged ? mutateJournal(journalText, c.mutation) : mutate(docText, c.mutation);
  if (damaged === undefined) return;
  figures.cases++;
  const writeFiles = () => {
    writeFileSync(path, journalDamaged ? docText : damaged);
    if (c.journalRows > 0) writeFileSync(journalPathFor(path), journalDamaged ? damaged : journalText);
  };
  writeFiles();
  const before = filesIn(dir);
  const storage = jsonFileStorage({ path });
  let opened: StoredDomain | undefined;
  try {
    opened = await storage.open();
  } catch (error) {
    if (!isScheduleError(error) || error.code !== 'corrupt_schedule_log') throw new Error(`open failed with ${String(error)}`);
    if (!isDeepStrictEqual(filesIn(dir), before)) throw new Error('a refused open changed the files');
    figures.refused++;
  }
  if (opened !== undefined) {
    figures.opened++;
    await storage.close();
    if (c.journalRows === 0) checkWhole(opened, damaged, []);
    else if (journalDamaged && c.mutation.kind === 'truncate') {
      const text = encodeDocument(opened);
      if (!prefixStates(docPart, lines).includes(text)) throw new Error('a torn journal opened as no prefix of its lines');
    } else if (!journalDamaged) checkWhole(opened, damaged, lines);
  }
  if (serviceCheck) {
    figures.serviceChecks++;
    writeFiles();
    const service = await createScheduleService({
      sessions: createFakeSessions(),
      storage: jsonFileStorage({ path }),
      clock: createManualClock('2030-01-01T00:00:00.000Z'),
      config: { maxWaitMs: 2 ** 31 - 1 },
      logger: { warn: () => undefined, error: () => undefined },
    }).catch((error: unknown) => {
      if (!isScheduleError(error) || error.code !== 'corrupt_schedule_log')
        throw new Error(`the service failed to start with ${String(error)}`);
      return undefined;
    });
    if ((service === undefined) !== (opened === undefined)) throw new Error('the service and the storage disagree about the files');
    if (service !== undefined && opened !== undefined) {
      const catalog = await service.remote.catalog();
      await service.close();
      if (catalog.length !== opened.tasks.length) throw new Error(`the catalog lists ${catalog.length} of ${opened.tasks.length} tasks`);
    }
  }
}

/** Runs `runs` damaged-file cases in `dir` (reused; its files are replaced each case). */
export async function fuzzDocuments(dir: string, options: { runs: number; seed: number; path?: string }): Promise<DocumentFuzzFigures> {
  const figures: DocumentFuzzFigures = { cases: 0, opened: 0, refused: 0, serviceChecks: 0 };
  let n = 0;
  await fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      const sub = join(dir, `case-${n++ % 2}`);
      rmSync(sub, { recursive: true, force: true });
      mkdirSync(sub);
      await openOnce(sub, c, n % 4 === 0, figures);
    }),
    { numRuns: options.runs, seed: options.seed, ...(options.path === undefined ? {} : { path: options.path }) },
  );
  return figures;
}
