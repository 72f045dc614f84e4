// A database blip against a real server (`npm run test:postgres`): one short round of the blip
// trial (postgresBlip.ts) — the storage's backends terminated every 2–20 ms while a Host process
// creates without pause. The Host must live through it, serve again, and lose nothing it
// acknowledged. `npm run stress` runs three long rounds.
import { blipRound } from './postgresBlip.ts';

describe('postgresStorage on the server: a database blip', () => {
  it('backends terminated every 2-20 ms for 5 s: the Host process lives, serves again, and loses no acknowledged create', async () => {
    const figures = await blipRound(5_000, 35);
    console.log(`[blip] ${JSON.stringify(figures)}`);
    expect(figures.crash).toBeUndefined();
    expect(figures.killed).toBeGreaterThan(0);
    expect(figures.acknowledged).toBeGreaterThan(0);
    expect(figures.recoveryMs).toBeDefined();
    expect(figures.lost).toBe(0);
  }, 120_000);
});
