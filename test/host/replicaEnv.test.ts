// HOST_ID and LEASE_MS as `npm start` reads them in database mode: HOST_ID names the replica
// (checked), LEASE_MS sets its shard leases (a whole number of ms from 3000 to a day); without
// HOST_ID each start makes up a unique id.
import { generatedHostId } from '../../host/database.ts';
import { hostOptionsFromEnv } from '../../host/env.ts';

const base = { DATABASE_URL: 'postgres://app@db/prod', USER: 'me' };

describe('HOST_ID and LEASE_MS', () => {
  it('name the replica and its lease length', () => {
    expect(hostOptionsFromEnv({ ...base, HOST_ID: 'replica-a', LEASE_MS: '6000' }).database).toEqual({
      url: 'postgres://app@db/prod',
      hostId: 'replica-a',
      leaseMs: 6000,
    });
  });

  it('refuse a malformed value, naming the variable', () => {
    expect(() => hostOptionsFromEnv({ ...base, HOST_ID: 'a b' })).toThrow(/^HOST_ID must be/);
    expect(() => hostOptionsFromEnv({ ...base, LEASE_MS: '100' })).toThrow(/^LEASE_MS must be/);
    expect(() => hostOptionsFromEnv({ ...base, LEASE_MS: '5s' })).toThrow(/^LEASE_MS must be/);
  });

  it('default to a Host id made up at start, different each time', () => {
    const [one, two] = [generatedHostId(), generatedHostId()];
    expect(one).toMatch(new RegExp(`-${process.pid}-[0-9a-f]{6}$`));
    expect(one).not.toBe(two);
  });
});
