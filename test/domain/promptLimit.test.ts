// The prompt's maximum length: 16,384 characters after trimming. Input longer than that is refused
// with `invalid_prompt` and one message at every entry point — the model tools, the remote update,
// the Host's HTTP routes and the CLI — while a stored row written with a longer prompt (by an older
// version) still opens, is delivered with its whole prompt, and keeps it through a title edit.
import { main } from '../../src/cli/main.ts';
import { normalizePrompt } from '../../src/domain/args/fields.ts';
import { parseCreateArgs } from '../../src/domain/args/selectors.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { memoryStorage } from '../../src/index.ts';
import { startTestHost } from '../host/support.ts';
import { closeAll, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const LIMIT = 16_384;
const T0 = '2030-01-01T08:00:00.000Z';
const ok = 'p'.repeat(LIMIT);
const tooLong = 'p'.repeat(LIMIT + 1);

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return { code: (error as ScheduleError).code, message: (error as ScheduleError).message };
  }
  throw new Error('expected a refusal');
}

describe('prompt length', () => {
  it('accepts exactly the maximum after trimming and refuses one character more with invalid_prompt', () => {
    expect(normalizePrompt(`  ${ok}\n`)).toBe(ok);
    const refused = refusal(() => normalizePrompt(tooLong));
    expect(refused.code).toBe('invalid_prompt');
    expect(refused.message).toContain(`${LIMIT + 1} characters`);
    expect(refused.message).toContain(`at most ${LIMIT}`);
    // schedule_create validates the prompt through the same rule
    expect(refusal(() => parseCreateArgs({ prompt: tooLong, title: 't', after_seconds: 60 }, Date.parse(T0)))).toEqual(refused);
  });

  it('refuses a too-long prompt with the same code and message at every entry point of the service', async () => {
    const expected = refusal(() => normalizePrompt(tooLong));
    const h = await harness({ start: T0 });
    const created = await h.svc.callTool('s1', 'schedule_create', { prompt: tooLong, title: 't', after_seconds: 60 });
    expect(created).toEqual(expected);
    const task = (await h.svc.callTool('s1', 'schedule_create', { prompt: ok, title: 't', after_seconds: 60 })) as { id: string };
    expect(task.id).toBe('sch_1');
    expect(await h.svc.callTool('s1', 'schedule_update', { id: task.id, prompt: tooLong })).toEqual(expected);
    const [entry] = await h.svc.remote.catalog();
    expect(await h.svc.remote.update({ sessionId: 's1', id: task.id, expected: entry?.record, prompt: tooLong })).toEqual(expected);
    expect((await h.svc.remote.catalog())[0]?.record.prompt).toBe(ok);
  });

  it('refuses it through the Host HTTP routes and the CLI with the same message', async () => {
    const expected = refusal(() => normalizePrompt(tooLong));
    const t = await startTestHost();
    try {
      const created = await t.create('demo', { prompt: tooLong, title: 't', after_seconds: 60 });
      expect(created).toEqual({ status: 400, body: expected });
      const task = await t.create('demo', { prompt: 'short', title: 't', after_seconds: 60 });
      expect(task.status).toBe(200);
      const record = (await t.get<{ record: unknown }>(`/api/sessions/demo/tasks/${task.body.id}`)).body.record;
      const patched = await t.send('PATCH', `/api/sessions/demo/tasks/${task.body.id}`, { expected: record, prompt: tooLong });
      expect(patched).toEqual({ status: 400, body: expected });
      const out: string[] = [];
      const code = await main(
        ['create', '--session', 'demo', '--title', 't', '--prompt', tooLong, '--after', '60', '--url', t.url, '--json'],
        { out: (line) => out.push(line), err: () => undefined },
      );
      expect(code).toBe(1);
      expect(JSON.parse(out.join('\n'))).toEqual(expected);
    } finally {
      await t.close();
    }
  });

  it('a stored row with a longer prompt (an older version wrote it) still opens, delivers it whole and keeps it on a title edit', async () => {
    const long = 'q'.repeat(60_000);
    const receipt = { scheduledAt: '2029-12-31T08:00:00.000Z', deliveredAt: '2029-12-31T08:00:00.250Z', messageId: 'old-1', prompt: long };
    const storage = memoryStorage({
      version: 1,
      nextTaskNumber: 2,
      tasks: [
        {
          sessionId: 's1',
          status: 'active',
          record: { id: 'sch_1', kind: 'every', title: 'Legacy', prompt: long, scheduledAt: '2030-01-01T08:01:00.000Z', everySeconds: 60 },
          lastDelivery: receipt,
          deliveryHistory: { records: [receipt], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
        },
      ],
    });
    const h = await harness({ start: T0, storage });
    expect((await h.svc.remote.catalog())[0]?.record.prompt).toBe(long);
    const edited = await h.svc.callTool('s1', 'schedule_update', { id: 'sch_1', title: 'Renamed' });
    expect(edited).toMatchObject({ id: 'sch_1', title: 'Renamed', prompt: long });
    await tick(h, MINUTE);
    const [message] = h.sessions.messages('s1');
    expect(message?.text).toContain(JSON.stringify(long));
    const page = (await h.svc.remote.history({ sessionId: 's1', id: 'sch_1', limit: 5 })) as {
      records: ReadonlyArray<{ prompt?: string }>;
    };
    expect(page.records.map((r) => r.prompt)).toEqual([long, long]);
  });
});
