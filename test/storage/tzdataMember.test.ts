// The domain's `tzdata` member through every storage: written by a commit that carries it, kept
// by later commits that do not, read back at open (from the document, from a journal line, from
// PostgreSQL's domain_meta table), and refused when it is not a version string.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import type { ScheduleStorage } from '../../src/ports.ts';
import { row } from './fixtures.ts';
import { dropSchemas, newPglite, pglitePool, randomSchema, run } from './postgresHarness.ts';
import { removeTempDirs, tempDir } from './tempFiles.ts';

let db: PGlite;
let pool: SqlPool;
const schemas: string[] = [];

beforeAll(async () => {
  db = await newPglite();
  pool = pglitePool(db);
});
afterEach(removeTempDirs);
afterAll(async () => {
  await dropSchemas(pool, schemas);
  await db.close();
});

async function roundTrip(make: () => ScheduleStorage): Promise<void> {
  const first = make();
  expect((await first.open()).tzdata).toBeUndefined();
  await first.commit({ puts: [row(1, 'daily')], deletes: [], nextTaskNumber: 2, tzdata: '2025c' });
  await first.commit({ puts: [row(2, 'cron')], deletes: [], nextTaskNumber: 3 });
  await first.close();
  const second = make();
  const domain = await second.open();
  expect(domain.tzdata).toBe('2025c');
  expect(domain.tasks).toHaveLength(2);
  await second.commit({ puts: [], deletes: [], tzdata: '2026b' });
  await second.close();
  const third = make();
  expect((await third.open()).tzdata).toBe('2026b');
  await third.close();
}

describe('the tzdata member', () => {
  it('survives close and open in the memory storage', async () => {
    const storage = memoryStorage();
    await roundTrip(() => storage);
    expect(storage.document()).toMatchObject({ tzdata: '2026b' });
  });

  it('survives close and open in the JSON file storage, as a top-level member of schedule.json', async () => {
    const path = join(tempDir(), 'schedule.json');
    await roundTrip(() => jsonFileStorage({ path }));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, tzdata: '2026b' });
  });

  it('replays from a journal line before compaction', async () => {
    const path = join(tempDir(), 'schedule.json');
    const storage = jsonFileStorage({ path });
    await storage.open();
    await storage.commit({ puts: [row(1, 'daily')], deletes: [], nextTaskNumber: 2 });
    await storage.commit({ puts: [], deletes: [], tzdata: '2025c' });
    const journal = readFileSync(`${path}.journal`, 'utf8');
    expect(journal).toContain('"tzdata":"2025c"');
    // Copy the files as they are (a crash before compaction) and open the copy.
    const copy = join(tempDir(), 'schedule.json');
    copyFileSync(path, copy);
    copyFileSync(`${path}.journal`, `${copy}.journal`);
    await storage.close();
    const reopened = jsonFileStorage({ path: copy });
    expect((await reopened.open()).tzdata).toBe('2025c');
    await reopened.close();
  });

  it('survives close and open in the PostgreSQL storage (domain_meta)', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    await roundTrip(() => postgresStorage({ pool, schema }));
    const stored = await run(pool, `select key, value from "${schema}".domain_meta`);
    expect(stored.rows).toEqual([{ key: 'tzdata', value: '2026b' }]);
  });

  it('an empty tzdata in domain_meta does not open, and a commit with a bad one is refused', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const storage = postgresStorage({ pool, schema });
    await storage.open();
    await expect(storage.commit({ puts: [], deletes: [], tzdata: '' })).rejects.toMatchObject({ code: 'internal_error' });
    await storage.close();
    await run(pool, `insert into "${schema}".domain_meta (key, value) values ('tzdata', '')`);
    const again = postgresStorage({ pool, schema });
    await expect(again.open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
  });
});
