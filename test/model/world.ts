// The system under test for the model-based tests: the real schedule service on a manual clock,
// held fake Sessions, the live inspector, and memory or JSON file storage (in a temp folder)
// behind a wrapper that can make the next write fail. It can be closed and opened again on the
// same storage, as a Host restart would, and reads back what the storage holds.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { ScheduleConfig } from '../../src/domain/serviceOptions.ts';
import { createScheduleInspector, type ScheduleInspector } from '../../src/inspector/index.ts';
import type { CommitBatch, ScheduleStorage, StoredDomain } from '../../src/ports.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createManualClock, type ManualClock } from '../../src/testing.ts';
import { createHeldSessions, type HeldSessions } from './heldSessions.ts';

export type StorageKind = 'memory' | 'json';

export const T0 = '2030-01-01T08:00:00.000Z';
export const SESSION = 's1';
/** A Session no model task belongs to. */
export const OTHER_SESSION = 's2';
/** The retry backoff: long, so a failed task waits until the test moves the clock on purpose. */
export const RETRY_MS = 3_600_000;

const CONFIG: ScheduleConfig = { retry: { initialMs: RETRY_MS, maxMs: RETRY_MS }, maxWaitMs: 2 ** 31 - 1, passivationHorizonMs: null };

/** Storage that forwards to a real one, except that the next commit can be made to fail unwritten. */
class FaultyStorage implements ScheduleStorage {
  private failNext = false;
  constructor(public inner: ScheduleStorage) {}
  open(): Promise<StoredDomain> {
    return this.inner.open();
  }
  commit(batch: CommitBatch): Promise<void> {
    if (!this.failNext) return this.inner.commit(batch);
    this.failNext = false;
    return Promise.reject(new ScheduleError('persistence_uncertain', 'injected storage failure'));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  failNextCommit(): void {
    this.failNext = true;
  }
}

/** The parts of the stored document the tests read. */
export interface StoredDocument {
  readonly version: number;
  readonly tasks: ReadonlyArray<
    { readonly sessionId: string; readonly status?: string; readonly record: { readonly id: string } } & Record<string, unknown>
  >;
}

const EMPTY_DOCUMENT = '{"version":1,"tasks":[]}';

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class World {
  readonly clock: ManualClock = createManualClock(T0);
  readonly sessions: HeldSessions = createHeldSessions();
  readonly inspector: ScheduleInspector;
  readonly logs: string[] = [];
  private readonly storage: FaultyStorage;
  private readonly dir: string | undefined;
  private current: ScheduleService | undefined;

  private constructor(
    readonly kind: StorageKind,
    private readonly config: ScheduleConfig,
  ) {
    this.inspector = createScheduleInspector({ capacity: 2000, now: this.clock.now });
    this.dir = kind === 'json' ? mkdtempSync(join(tmpdir(), 'agent-schedule-model-')) : undefined;
    this.storage = new FaultyStorage(this.freshStorage());
  }

  /** `retry`: the backoff's one delay (`RETRY_MS` by default), or false to park failed tasks. */
  static async open(kind: StorageKind, options: { readonly retry?: number | false } = {}): Promise<World> {
    const { retry } = options;
    const world = new World(
      kind,
      retry === undefined ? CONFIG : { ...CONFIG, retry: retry === false ? false : { initialMs: retry, maxMs: retry } },
    );
    await world.start();
    return world;
  }

  get svc(): ScheduleService {
    if (this.current === undefined) throw new Error('the service is closed');
    return this.current;
  }

  private get path(): string {
    return join(this.dir ?? '', 'schedule.json');
  }

  private freshStorage(): ScheduleStorage {
    return this.kind === 'json' ? jsonFileStorage({ path: this.path }) : new MemoryStorage();
  }

  private async start(): Promise<void> {
    this.current = await createScheduleService({
      sessions: this.sessions,
      storage: this.storage,
      clock: this.clock,
      config: this.config,
      inspect: this.inspector.inspect,
      logger: { warn: (msg) => this.logs.push(msg), error: (msg) => this.logs.push(msg) },
    });
  }

  /** Lets the work the last action caused finish: until the service is idle or an attempt is held. */
  async settle(): Promise<void> {
    await macrotask();
    await Promise.race([this.svc.whenIdle(), this.sessions.whenHeld()]);
    await macrotask();
  }

  /** Lets time pass up to `iso`, firing every timer due on the way at its own time. */
  async advanceTo(iso: string): Promise<void> {
    const ms = Date.parse(iso) - this.clock.now();
    if (ms < 0) throw new Error(`advanceTo: ${iso} is in the past`);
    await this.clock.advance(ms);
  }

  /** Makes the next storage write fail without writing anything. */
  failNextCommit(): void {
    this.storage.failNextCommit();
  }

  /**
   * Closes the service and opens a new one on the same storage (a Host restart); returns the
   * document the storage held while the service was closed (for the file storage, schedule.json).
   */
  async reopen(): Promise<StoredDocument> {
    await this.svc.close();
    this.current = undefined;
    this.inspector.reset();
    const inner = this.storage.inner;
    // A file storage that never committed anything has no schedule.json: an absent file is an empty domain.
    const text =
      inner instanceof MemoryStorage ? inner.documentText() : existsSync(this.path) ? readFileSync(this.path, 'utf8') : EMPTY_DOCUMENT;
    const stored = JSON.parse(text) as StoredDocument;
    if (this.kind === 'json') this.storage.inner = this.freshStorage();
    await this.start();
    return stored;
  }

  /** Ends held attempts, closes the service and removes the temp folder. */
  async dispose(): Promise<void> {
    for (let i = 0; i < 10 && this.current !== undefined && this.sessions.held.length > 0; i++) {
      this.sessions.release('ok');
      await this.settle();
    }
    await this.current?.close().catch(() => undefined);
    this.current = undefined;
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
  }
}
