// DATABASE_URL and DATABASE_SCHEMA as `npm start` reads them: without DATABASE_URL the Host keeps
// its files; with it the schedule and transcripts go to PostgreSQL, a URL without a user gets the
// operating-system user (as psql does) when neither PGUSER nor USER is set, a malformed URL or
// schema is refused naming the variable, and the log shows the URL without its password.
import { userInfo } from 'node:os';
import { parseDatabaseUrl, redactDatabaseUrl, withDefaultUser } from '../../host/database.ts';
import { hostOptionsFromEnv } from '../../host/env.ts';

describe('DATABASE_URL', () => {
  it('is optional: without it (or empty) the Host keeps its data folder', () => {
    expect(hostOptionsFromEnv({ DATA_DIR: '/tmp/x' })).not.toHaveProperty('database');
    expect(hostOptionsFromEnv({ DATA_DIR: '/tmp/x', DATABASE_URL: ' ' })).not.toHaveProperty('database');
  });

  it('names the database and, with DATABASE_SCHEMA, the schema', () => {
    expect(hostOptionsFromEnv({ DATABASE_URL: 'postgres://app@db:5432/prod', USER: 'me' }).database).toEqual({
      url: 'postgres://app@db:5432/prod',
    });
    expect(hostOptionsFromEnv({ DATABASE_URL: 'postgresql://app@db/prod', DATABASE_SCHEMA: 'host_a', USER: 'me' }).database).toEqual({
      url: 'postgresql://app@db/prod',
      schema: 'host_a',
    });
  });

  it('gets the operating-system user when it names none and neither PGUSER nor USER is set', () => {
    const user = encodeURIComponent(userInfo().username);
    expect(withDefaultUser('postgres://127.0.0.1/test', {})).toBe(`postgres://${user}@127.0.0.1/test`);
    expect(withDefaultUser('postgres://127.0.0.1/test', { USER: 'me' })).toBe('postgres://127.0.0.1/test');
    expect(withDefaultUser('postgres://127.0.0.1/test', { PGUSER: 'me' })).toBe('postgres://127.0.0.1/test');
    expect(withDefaultUser('postgres://postgres@127.0.0.1/test', {})).toBe('postgres://postgres@127.0.0.1/test');
  });

  it('refuses anything but a PostgreSQL URL, and a schema that is not a plain identifier, naming the variable', () => {
    expect(() => hostOptionsFromEnv({ DATABASE_URL: 'mysql://db/x' })).toThrow(/^DATABASE_URL must be a PostgreSQL URL/);
    expect(() => hostOptionsFromEnv({ DATABASE_URL: 'postgres://[bad' })).toThrow(/^DATABASE_URL must be a PostgreSQL URL/);
    expect(() => parseDatabaseUrl('db.example/x')).toThrow(/DATABASE_URL/);
    expect(() => hostOptionsFromEnv({ DATABASE_URL: 'postgres://db/x', DATABASE_SCHEMA: 'a-b' })).toThrow(
      /^DATABASE_SCHEMA must be a plain identifier/,
    );
  });

  it('is logged without its password', () => {
    expect(redactDatabaseUrl('postgres://app:s3cret@db:5432/prod')).toBe('postgres://app:***@db:5432/prod');
    expect(redactDatabaseUrl('postgres://app@db/prod')).toBe('postgres://app@db/prod');
    expect(() => hostOptionsFromEnv({ DATABASE_URL: 'mysql://app:s3cret@db/x' })).toThrow(/app:\*\*\*@/);
  });
});
