// The Vercel AI SDK: each tool with its JSON Schema through `jsonSchema()`, validated by Ajv
// before the SDK runs it, executed in the calling Session under the SDK's `toolCallId` (a call
// run again answers its first answer). Works with any provider the SDK supports. (Compiled by the
// typecheck; shown in docs/models.md.)

import { type ScheduleService, toolDefinitionsFor } from 'agent-schedule';
import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import { Ajv2020 } from 'ajv/dist/2020.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });

/** The schedule tools for `generateText({ tools })` / `streamText`, bound to one Session. */
export function scheduleTools(service: ScheduleService, sessionId: string): ToolSet {
  const tools: ToolSet = {};
  for (const def of toolDefinitionsFor('mcp')) {
    const check = ajv.compile(def.inputSchema);
    tools[def.name] = tool({
      description: def.description,
      inputSchema: jsonSchema<Record<string, unknown>>(def.inputSchema as JSONSchema7, {
        validate: (value) =>
          check(value)
            ? { success: true, value: value as Record<string, unknown> }
            : { success: false, error: new Error(ajv.errorsText(check.errors)) },
      }),
      execute: (args, { toolCallId }) => service.callTool(sessionId, def.name, args, { callId: toolCallId }),
    });
  }
  return tools;
}
