// GPT through OpenAI's Responses API with strict function tools: every member is required, so the
// model sends null for the unused ones, and `format: 'openai-strict'` reads those as absent. For
// strict: false, offer toolDefinitionsFor('openai') and leave the option out; for Chat
// Completions, toolDefinitionsFor('openai-chat'). Each call runs under its `call_id`, so a call the
// model sends again answers its first answer. (Compiled by the typecheck; shown in docs/models.md.)

import { type ScheduleService, toolDefinitionsFor } from 'agent-schedule';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

const client = new OpenAI();
const tools = toolDefinitionsFor('openai-strict');

/** One user turn: calls the model until it stops asking for tools; `input` grows in place. */
export async function turn(service: ScheduleService, sessionId: string, input: ResponseInputItem[]): Promise<string> {
  for (;;) {
    const response = await client.responses.create({ model: 'gpt-5', tools, input });
    input.push(...response.output);
    const calls = response.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) return response.output_text;
    for (const call of calls) {
      const value = await service.callTool(sessionId, call.name, JSON.parse(call.arguments), {
        format: 'openai-strict',
        callId: call.call_id,
      });
      input.push({ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(value) });
    }
  }
}
