// Typed answers: `callTool` is typed per tool name and the remote namespace per method, and
// `'code' in result` tells a refusal from a success — no casts. Type-checked by `npm run
// typecheck` and, against the installed package under strict consumer settings, compiled and run
// by `npm run test:package`.
import { createScheduleService, memoryStorage, type ScheduleView, type ToolFailure } from 'agent-schedule';
import { createFakeSessions, createManualClock } from 'agent-schedule/testing';

const clock = createManualClock('2030-01-07T08:00:00Z');
const service = await createScheduleService({ sessions: createFakeSessions(), storage: memoryStorage(), clock });

const created = await service.callTool('demo', 'schedule_create', {
  title: 'Standup',
  prompt: 'Post the standup notes.',
  daily: { time: '09:30:00', time_zone: 'Europe/Berlin' },
});
if ('code' in created) throw new Error(`${created.code}: ${created.message}`);
// `created` is a ScheduleView now; its `kind` narrows it further.
if (created.kind === 'daily') console.log(`${created.id} daily at ${created.time} ${created.timeZone}, next ${created.scheduledAt}`);

const listed = await service.callTool('demo', 'schedule_list', {});
const views: ScheduleView[] = 'code' in listed ? [] : listed;
console.log(`listed ${views.length}: ${views.map((view) => `${view.title} (${view.state})`).join(', ')}`);

const refused = await service.callTool('demo', 'schedule_create', { title: 'No timing', prompt: 'p' });
const failure: ToolFailure | undefined = 'code' in refused ? refused : undefined;
console.log(`refused: ${failure?.code}`);

const entry = await service.remote.get({ sessionId: 'demo', id: created.id });
if ('code' in entry) throw new Error(entry.message);
const updated = await service.remote.update({ sessionId: 'demo', id: created.id, expected: entry.record, title: 'Daily standup' });
console.log('code' in updated ? `update refused: ${updated.code}` : `renamed to ${updated.title}`);

const page = await service.remote.history({ sessionId: 'demo', id: created.id, limit: 20 });
if (!('code' in page)) console.log(`history: ${page.records.length} deliveries, keeps ${page.retention.records}`);

const removed = await service.callTool('demo', 'schedule_delete', { id: created.id });
console.log('code' in removed ? `not deleted: ${removed.code}` : `deleted ${removed.id}`);
const again = await service.remote.delete({ sessionId: 'demo', id: created.id });
console.log(again.deleted ? 'deleted twice?' : `second delete: ${again.code}`);

await service.close();
