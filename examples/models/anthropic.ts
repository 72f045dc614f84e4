// Claude through Anthropic's Messages API: offer the tools in Anthropic's shape and run each
// tool_use block in the calling Session, under the block's id: a turn that is sent again after a
// timeout repeats its calls, and a repeated call answers its first answer instead of acting twice.
// (Compiled by the typecheck; shown in docs/models.md.)
import Anthropic from '@anthropic-ai/sdk';
import { type ScheduleService, toolDefinitionsFor } from 'agent-schedule';

const client = new Anthropic();
const tools = toolDefinitionsFor('anthropic');

/** One user turn: calls the model until it stops asking for tools; `messages` grows in place. */
export async function turn(service: ScheduleService, sessionId: string, messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
  for (;;) {
    const response = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, tools, messages });
    messages.push({ role: 'assistant', content: response.content });
    const calls = response.content.filter((block) => block.type === 'tool_use');
    if (calls.length === 0) return response;
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of calls) {
      const value = await service.callTool(sessionId, call.name, call.input, { callId: call.id });
      results.push({ type: 'tool_result', tool_use_id: call.id, content: JSON.stringify(value) });
    }
    messages.push({ role: 'user', content: results });
  }
}
