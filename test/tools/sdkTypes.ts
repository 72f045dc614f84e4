// Compile-time check, run by `npm run typecheck` (and so by `npm test`): the generated tool
// definitions are what the official SDKs' own types accept — Anthropic's `Tool` and Messages
// request, OpenAI's Responses `FunctionTool` and request, Chat `ChatCompletionTool` and request,
// and MCP's `Tool`. A mismatch is a type error here. Nothing in this file runs.
import type { Tool as AnthropicTool, MessageCreateParamsNonStreaming, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseCreateParamsNonStreaming, Tool as ResponsesTool } from 'openai/resources/responses/responses';
import { toolDefinitionsFor } from '../../src/index.ts';

// Anthropic Messages API
export const anthropicTools: AnthropicTool[] = toolDefinitionsFor('anthropic');
export const anthropicUnion: ToolUnion[] = toolDefinitionsFor('anthropic');
export const anthropicRequest: MessageCreateParamsNonStreaming = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Remind me in ten minutes to check the build.' }],
  tools: toolDefinitionsFor('anthropic'),
};

// OpenAI Responses API, plain and strict
export const responsesTools: FunctionTool[] = toolDefinitionsFor('openai');
export const strictTools: FunctionTool[] = toolDefinitionsFor('openai-strict');
export const responsesUnion: ResponsesTool[] = [...toolDefinitionsFor('openai'), ...toolDefinitionsFor('openai-strict')];
export const responsesRequest: ResponseCreateParamsNonStreaming = {
  model: 'gpt-5',
  input: 'Remind me every weekday at 09:00 Shanghai time to review the queue.',
  tools: toolDefinitionsFor('openai-strict'),
};

// OpenAI Chat Completions API
export const chatTools: ChatCompletionFunctionTool[] = toolDefinitionsFor('openai-chat');
export const chatUnion: ChatCompletionTool[] = toolDefinitionsFor('openai-chat');
export const chatRequest: ChatCompletionCreateParamsNonStreaming = {
  model: 'gpt-4.1',
  messages: [{ role: 'user', content: 'List my reminders.' }],
  tools: toolDefinitionsFor('openai-chat'),
};

// MCP tools/list
export const mcpTools: McpTool[] = toolDefinitionsFor('mcp');

// The check has teeth: a format is not another API's shape.
// @ts-expect-error MCP's inputSchema is not Anthropic's input_schema
export const notAnthropic: AnthropicTool[] = toolDefinitionsFor('mcp');
// @ts-expect-error Chat's function wrapper is not a Responses function tool
export const notResponses: FunctionTool[] = toolDefinitionsFor('openai-chat');
// @ts-expect-error a Responses function tool is not a Chat tool
export const notChat: ChatCompletionFunctionTool[] = toolDefinitionsFor('openai');
