// Benchmark: the shape of the actor tree under many Sessions and under one large Session, with
// memory storage, the manual clock and fake Sessions. (1) N Sessions with one task each, all
// created in one burst (every call queued before the first runs), then 200 Sessions stopped; the
// figure that must stay flat is the time per create. (2) One Session with k tasks: the time per
// create, which must stay flat too, and the time to stop the Session, which must grow about
// linearly. Both hold because no actor has many children (Session groups, task groups): XState
// copies an actor's children map on every spawn and stop.
import { MemoryStorage } from '../src/adapters/memoryStorage.ts';
import { createScheduleService, type ScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { fmt } from './support/domains.ts';

async function service(): Promise<ScheduleService> {
  return createScheduleService({
    sessions: createFakeSessions(),
    storage: new MemoryStorage(),
    clock: createManualClock('2030-01-01T08:00:00.000Z'),
    logger: { warn() {}, error() {} },
  });
}

/** Creates `count` tasks, `sessionOf(i)` naming the Session of the i-th; returns the wall time. */
async function burst(svc: ScheduleService, count: number, sessionOf: (i: number) => string): Promise<number> {
  const t0 = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    calls.push(svc.callTool(sessionOf(i), 'schedule_create', { prompt: `check ${i}`, title: `task ${i}`, every_seconds: 3600 }));
  }
  await Promise.all(calls);
  return performance.now() - t0;
}

console.log('Many Sessions, one task each: one burst of creates, then 200 Sessions stopped one after another');
console.log('');
console.log('| Sessions | burst of creates | per create | 200 sessionStop calls |');
console.log('|---:|---:|---:|---:|');
for (const sessions of [1_000, 10_000, 50_000]) {
  const svc = await service();
  const ms = await burst(svc, sessions, (i) => `session-${i}`);
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) await svc.archive.sessionStop(`session-${i}`);
  const stopMs = performance.now() - t0;
  await svc.close();
  console.log(`| ${sessions.toLocaleString('en')} | ${fmt(ms, 0)} ms | ${fmt((ms / sessions) * 1000, 0)} µs | ${fmt(stopMs, 0)} ms |`);
}
console.log('');
console.log('One Session with k tasks: one burst of creates, then the Session stopped');
console.log('');
console.log('| tasks in the Session | burst of creates | per create | sessionStop |');
console.log('|---:|---:|---:|---:|');
for (const tasks of [100, 1_000, 4_000, 16_000]) {
  const svc = await service();
  const ms = await burst(svc, tasks, () => 'big');
  const t0 = performance.now();
  await svc.archive.sessionStop('big');
  const stopMs = performance.now() - t0;
  await svc.close();
  console.log(`| ${tasks.toLocaleString('en')} | ${fmt(ms, 0)} ms | ${fmt((ms / tasks) * 1000, 0)} µs | ${fmt(stopMs, 0)} ms |`);
}
