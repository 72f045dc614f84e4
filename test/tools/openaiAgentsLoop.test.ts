// An agent loop on the OpenAI Agents SDK (@openai/agents 0.14, the last line that runs on Node 20
// with openai 6) with strict function tools and a scripted model, no network: the tools are
// `toolDefinitionsFor('openai-strict')` handed to the SDK's `tool()` with `strict: true`; the
// model sends, as a strict-mode model must, every member with null for the unused ones; the tools
// call the service with `{ format: 'openai-strict' }`. A due reminder is then delivered.
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { type ScheduleService, toolDefinitionsFor } from '../../src/index.ts';
import { closeServices, openService, strictForm, T0, validatorFor } from './support.ts';

afterEach(closeServices);
beforeAll(() => setTracingDisabled(true));

/** The schedule tools as strict Agents SDK function tools bound to one Session. */
function strictScheduleTools(service: ScheduleService, sessionId: string) {
  return toolDefinitionsFor('openai-strict').map((def) =>
    tool({
      name: def.name,
      description: def.description,
      parameters: def.parameters,
      strict: true,
      execute: async (args) => JSON.stringify(await service.callTool(sessionId, def.name, args, { format: 'openai-strict' })),
    }),
  );
}

/** The tool outputs in the model's input so far, parsed, oldest first. */
function outputs(input: ModelRequest['input']): Array<{ name: string; value: unknown }> {
  if (typeof input === 'string') return [];
  const out: Array<{ name: string; value: unknown }> = [];
  for (const item of input as AgentInputItem[]) {
    if (item.type !== 'function_call_result') continue;
    const text = typeof item.output === 'string' ? item.output : 'text' in item.output ? item.output.text : '';
    out.push({ name: item.name, value: JSON.parse(text) });
  }
  return out;
}

type View = { id: string; kind: string; title: string };

/** A model that plays a fixed script: each step sees the request and answers output items. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  private calls = 0;
  constructor(private readonly script: Array<(request: ModelRequest) => ModelResponse['output']>) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.script[this.requests.length - 1];
    if (step === undefined) throw new Error('the script ran out');
    return { usage: new Usage(), output: step(request), responseId: `resp-${this.requests.length}` };
  }

  // biome-ignore lint/correctness/useYield: the loop never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }

  /** A strict-mode function call: every member of the tool's strict schema, null where unused. */
  call(name: string, args: Record<string, unknown>): ModelResponse['output'] {
    const strictArgs = strictForm(name, args);
    const check = validatorFor('openai-strict', name);
    if (!check(strictArgs)) throw new Error(`the script sent arguments a strict model cannot: ${JSON.stringify(check.errors)}`);
    return [{ type: 'function_call', callId: `call-${++this.calls}`, name, arguments: JSON.stringify(strictArgs), status: 'completed' }];
  }
}

const say = (text: string): ModelResponse['output'] => [
  { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] },
];
const lastList = (request: ModelRequest): View[] =>
  outputs(request.input)
    .filter((o) => o.name === 'schedule_list')
    .at(-1)?.value as View[];

describe('an OpenAI Agents SDK loop with strict function tools', () => {
  it('creates with each timing, lists, updates and deletes with nulls for the unused members', async () => {
    const { service, clock, sessions } = await openService(T0);
    const model: ScriptedModel = new ScriptedModel([
      () => model.call('schedule_create', { prompt: 'Take the tea out', title: 'Tea', after_seconds: 120 }),
      () =>
        model.call('schedule_create', {
          prompt: 'Join',
          title: 'Call',
          at: { date: '2030-01-08', time: '09:00', time_zone: 'Asia/Tokyo' },
        }),
      () => model.call('schedule_create', { prompt: 'Stretch', title: 'Stretch', every_seconds: 1800 }),
      () => model.call('schedule_create', { prompt: 'Plan', title: 'Plan', daily: { time: '08:30:00', time_zone: 'Europe/Berlin' } }),
      () =>
        model.call('schedule_create', {
          prompt: 'Queue',
          title: 'Queue',
          weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [2, 4] },
        }),
      () =>
        model.call('schedule_create', { prompt: 'Build', title: 'Build', cron: { expression: '0 9 * * 1-5', time_zone: 'Asia/Shanghai' } }),
      () => model.call('schedule_list', {}),
      (request) => model.call('schedule_update', { id: lastList(request).find((v) => v.kind === 'every')!.id, prompt: 'Stretch and walk' }),
      (request) =>
        model.call('schedule_update', {
          id: lastList(request).find((v) => v.kind === 'daily')!.id,
          change: { kind: 'cron', expression: '30 8 * * 1-5', time_zone: 'Europe/Berlin' },
        }),
      (request) => model.call('schedule_delete', { id: lastList(request).find((v) => v.kind === 'weekly')!.id }),
      () => model.call('schedule_update', { id: 'sch_99', title: 'Nope' }),
      () => say('All set.'),
    ]);
    const agent = new Agent({ name: 'Scheduler', instructions: 'Manage reminders.', model, tools: strictScheduleTools(service, 'conv-1') });

    const result = await run(agent, 'Set up my reminders.', { maxTurns: 20 });
    expect(result.finalOutput).toBe('All set.');

    // The SDK offered the strict schemas, unchanged, with strict: true.
    const offered = model.requests[0]!.tools.filter((t) => t.type === 'function');
    expect(offered.map((t) => [t.name, t.strict, t.parameters])).toEqual(
      toolDefinitionsFor('openai-strict').map((t) => [t.name, true, t.parameters]),
    );

    // The transcript the model saw.
    const seen = outputs(model.requests.at(-1)!.input);
    expect(seen.map((o) => o.name)).toEqual([
      ...Array(6).fill('schedule_create'),
      'schedule_list',
      'schedule_update',
      'schedule_update',
      'schedule_delete',
      'schedule_update',
    ]);
    const values = seen.map((o) => o.value as Record<string, unknown>);
    expect(values.slice(0, 6).map((v) => v.kind)).toEqual(['after', 'at', 'every', 'daily', 'weekly', 'cron']);
    expect(values[1]).toMatchObject({ scheduledAt: '2030-01-08T00:00:00.000Z' });
    expect(values[6] as unknown as View[]).toHaveLength(6);
    expect(values[7]).toMatchObject({ id: 'sch_3', kind: 'every', title: 'Stretch', prompt: 'Stretch and walk' });
    expect(values[8]).toMatchObject({ id: 'sch_4', kind: 'cron', title: 'Plan', expression: '30 8 * * 1-5', timeZone: 'Europe/Berlin' });
    expect(values[9]).toEqual({ id: 'sch_5', deleted: true });
    expect(values[10]).toMatchObject({ code: 'schedule_not_found' });

    await clock.advance(120_000);
    await service.whenIdle();
    expect(sessions.messages('conv-1').map((m) => m.text)).toEqual([expect.stringContaining('reminder_prompt_json: "Take the tea out"')]);
  });
});
