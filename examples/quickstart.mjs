// The scheduler in plain JavaScript, with nothing else to set up: memory storage, and a manual
// clock and fake Sessions from `agent-schedule/testing`. It creates a one-minute reminder, moves
// the clock past it and prints the message the Session received. Shown in the README; run with
// plain `node` against the installed package by `npm run test:package`.
import { createScheduleService, memoryStorage } from 'agent-schedule';
import { createFakeSessions, createManualClock } from 'agent-schedule/testing';

const clock = createManualClock('2030-01-01T09:00:00Z');
const sessions = createFakeSessions();
const service = await createScheduleService({ sessions, storage: memoryStorage(), clock });

const created = await service.callTool('demo', 'schedule_create', {
  title: 'Stretch',
  prompt: 'Stand up and stretch.',
  after_seconds: 60,
});
if ('code' in created) throw new Error(`${created.code}: ${created.message}`);

await clock.advance(60_000); // the reminder falls due
await service.whenIdle(); // and is delivered
for (const message of sessions.messages('demo')) console.log(message.text);
await service.close();
