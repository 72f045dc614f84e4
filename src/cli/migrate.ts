// `agent-schedule migrate --url postgres://…`: brings a PostgreSQL database's schedule schema up
// to the version this package knows, under the same advisory lock a storage takes at open (so it
// is safe while Hosts start). Prints what it did; a schema newer than this package is refused.
import { parseArgs } from 'node:util';
import { DEFAULT_SCHEMA } from '../adapters/postgres/postgresStorage.ts';
import { type CliIo, type Command, UsageError } from './command.ts';

const HELP = `Usage: agent-schedule migrate --url <postgres://…> [--schema <name>] [--json]

Creates or upgrades the tables of the PostgreSQL storage (agent-schedule/postgres) in a
database. Safe to run while Hosts start: migrations run once, under an advisory lock. A
database whose schema is newer than this agent-schedule is refused (exit 1).

Options:
  --url <url>        the database, e.g. postgres://user@127.0.0.1:5432/db (default: $DATABASE_URL)
  --schema <name>    the schema holding the tables (default ${DEFAULT_SCHEMA})
  --json             print one JSON object: schema, from, to, applied
  -h, --help         this help`;

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let values: { url?: string | undefined; schema?: string | undefined; json?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { url: { type: 'string' }, schema: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  const url = values.url ?? process.env.DATABASE_URL;
  if (url === undefined || url === '') throw new UsageError('migrate needs --url <postgres://…> (or DATABASE_URL).');
  const schema = values.schema ?? DEFAULT_SCHEMA;
  const { migrateDatabase } = await import('../adapters/postgres/pgPool.ts');
  const result = await migrateDatabase(url, schema);
  if (values.json === true) io.out(JSON.stringify({ schema, ...result }));
  else if (result.applied.length === 0) io.out(`schema ${schema} is at version ${result.to}; nothing to do`);
  else io.out(`schema ${schema}: version ${result.from} -> ${result.to} (applied ${result.applied.join(', ')})`);
  return 0;
}

/** The `migrate` subcommand. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'create or upgrade the PostgreSQL storage schema of a database (--url)',
  help: HELP,
  run,
};
