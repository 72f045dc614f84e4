// An agent loop on the Vercel AI SDK with its mock language model and no network: a scripted
// model calls schedule_create with each of the six timings, schedule_list, schedule_update and
// schedule_delete through the SDK's own tool-calling path — `tool()` with `jsonSchema()` and a
// validator compiled from the tool's schema, so the SDK refuses input the schema refuses before it
// reaches the service. The tools run against a real service (memory storage, manual clock); the
// one-shot reminder falls due and is delivered into the Session; the transcript is checked. The
// tools are examples/models/aiSdk.ts, exactly as docs/models.md shows it.

import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { scheduleTools } from '../../examples/models/aiSdk.ts';
import { toolDefinitionsFor } from '../../src/index.ts';
import { closeServices, openService, T0 } from './support.ts';

afterEach(closeServices);

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type Prompt = CallOptions['prompt'];

/** The JSON outputs of the tool results in the prompt so far, oldest first. */
function toolResults(prompt: Prompt): Array<{ toolName: string; value: unknown; error: boolean }> {
  const out: Array<{ toolName: string; value: unknown; error: boolean }> = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'json' || output.type === 'error-json')
        out.push({ toolName: part.toolName, value: output.value, error: output.type === 'error-json' });
      else if (output.type === 'text' || output.type === 'error-text')
        out.push({ toolName: part.toolName, value: output.value, error: output.type === 'error-text' });
    }
  }
  return out;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

let callCount = 0;
const call = (toolName: string, input: unknown): GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: `call-${++callCount}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string): GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: undefined },
  usage,
  warnings: [],
});

type View = { id: string; kind: string; title: string; scheduledAt: string };
const lastList = (prompt: Prompt): View[] => {
  const lists = toolResults(prompt).filter((r) => r.toolName === 'schedule_list');
  return lists.at(-1)?.value as View[];
};

/** What the scripted model does at each step, given the prompt so far. */
const SCRIPT: Array<(prompt: Prompt) => GenerateResult> = [
  () => call('schedule_create', { prompt: 'Take the tea out', title: 'Tea', after_seconds: 120 }),
  () => call('schedule_create', { prompt: 'Join the call', title: 'Call', at: '2030-01-08T09:00:00+08:00' }),
  () => call('schedule_create', { prompt: 'Stretch', title: 'Stretch', every_seconds: 1800 }),
  () => call('schedule_create', { prompt: 'Plan the day', title: 'Plan', daily: { time: '08:30:00', time_zone: 'Europe/Berlin' } }),
  () =>
    call('schedule_create', {
      prompt: 'Review the queue',
      title: 'Queue',
      weekly: { time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [1, 3, 5] },
    }),
  () => call('schedule_create', { prompt: 'Check the build', title: 'Build', cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'UTC' } }),
  // Refused by the SDK's schema validation: the service never sees it.
  () => call('schedule_create', { prompt: 'Too often', title: 'Spam', every_seconds: 5 }),
  // Valid under the schema (it cannot say "exactly one"), refused by the tool.
  () => call('schedule_create', { prompt: 'Two', title: 'Two', after_seconds: 60, every_seconds: 60 }),
  () => call('schedule_list', {}),
  (prompt) => {
    const every = lastList(prompt).find((v) => v.kind === 'every')!;
    return call('schedule_update', {
      id: every.id,
      title: 'Stretch (daily)',
      change: { kind: 'daily', time: '10:00:00', time_zone: 'UTC' },
    });
  },
  (prompt) => call('schedule_delete', { id: lastList(prompt).find((v) => v.kind === 'cron')!.id }),
  () => call('schedule_list', {}),
  (prompt) => say(`You have ${lastList(prompt).length} reminders.`),
];

describe('an AI SDK agent loop with the schedule tools', () => {
  it('creates with each timing, lists, updates and deletes through the SDK, and the reminder is delivered', async () => {
    const { service, clock, sessions } = await openService(T0);
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const step = SCRIPT[model.doGenerateCalls.length - 1];
        if (step === undefined) throw new Error('the script ran out');
        return step(options.prompt);
      },
    });

    const result = await generateText({
      model,
      tools: scheduleTools(service, 'conv-1'),
      prompt: 'Set up my reminders.',
      stopWhen: stepCountIs(SCRIPT.length + 1),
    });

    // The model was offered the four tools with their JSON Schemas, unchanged.
    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered.map((t) => ('inputSchema' in t ? [t.name, t.inputSchema] : [t.name]))).toEqual(
      toolDefinitionsFor('mcp').map((t) => [t.name, t.inputSchema]),
    );

    // The transcript: one step per scripted turn, each tool call answered.
    expect(result.steps).toHaveLength(SCRIPT.length);
    const transcript: Array<[name: string, kind: 'result' | 'error', output: unknown]> = [];
    for (const step of result.steps) {
      for (const part of step.content) {
        if (part.type === 'tool-result') transcript.push([part.toolName, 'result', part.output]);
        if (part.type === 'tool-error') transcript.push([part.toolName, 'error', String(part.error)]);
      }
    }
    expect(transcript.map(([name, kind]) => `${name}:${kind}`)).toEqual([
      ...Array(6).fill('schedule_create:result'),
      'schedule_create:error',
      'schedule_create:result',
      'schedule_list:result',
      'schedule_update:result',
      'schedule_delete:result',
      'schedule_list:result',
    ]);
    const outputs = transcript.map(([, , output]) => output as Record<string, unknown>);
    expect(outputs.slice(0, 6).map((v) => v.kind)).toEqual(['after', 'at', 'every', 'daily', 'weekly', 'cron']);
    expect(outputs[0]).toMatchObject({ id: 'sch_1', title: 'Tea', scheduledAt: '2030-01-07T08:02:00.000Z', state: 'scheduled' });
    expect(outputs[1]).toMatchObject({ kind: 'at', scheduledAt: '2030-01-08T01:00:00.000Z' });
    expect(outputs[5]).toMatchObject({ kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'UTC' });
    expect(String(outputs[6])).toMatch(/Invalid input for tool schedule_create[\s\S]*every_seconds must be >= 60/);
    expect(outputs[7]).toMatchObject({ code: 'invalid_selector' });
    // The model saw the SDK's refusal as a tool error on its next turn.
    const afterRefusal = toolResults(model.doGenerateCalls[7]!.prompt).at(-1);
    expect(afterRefusal).toMatchObject({ toolName: 'schedule_create', error: true });
    expect(outputs[8] as unknown as View[]).toHaveLength(6);
    expect(outputs[9]).toMatchObject({ id: 'sch_3', kind: 'daily', title: 'Stretch (daily)', time: '10:00:00', timeZone: 'UTC' });
    expect(outputs[10]).toEqual({ id: 'sch_6', deleted: true });
    expect((outputs[11] as unknown as View[]).map((v) => v.title)).toEqual(['Tea', 'Stretch (daily)', 'Call', 'Plan', 'Queue']);
    expect(result.text).toBe('You have 5 reminders.');

    // The refused calls wrote nothing: six creates, one deleted.
    expect((await service.remote.catalog()).map((e) => e.record.id)).toEqual(['sch_1', 'sch_2', 'sch_3', 'sch_4', 'sch_5']);

    // Two minutes later the tea reminder comes back into the conversation.
    await clock.advance(120_000);
    await service.whenIdle();
    const delivered = sessions.messages('conv-1');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.text).toBe(
      [
        '[SCHEDULE REMINDER]',
        'This is a scheduled message from the user',
        'schedule_id_json: "sch_1"',
        'occurrence_at: 2030-01-07T08:02:00.000Z',
        'reminder_prompt_json: "Take the tea out"',
      ].join('\n'),
    );
    expect(await service.callTool('conv-1', 'schedule_list', {})).toHaveLength(4);
  });
});
