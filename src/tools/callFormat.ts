// How a tool call's arguments are read for the format the tools were offered in. A model in
// OpenAI's strict mode must send every member, so it sends `null` for the ones it does not use;
// with `{ format: 'openai-strict' }` those nulls are read as absent, at every level. Every other
// format reads the arguments as they are, where `null` is an ordinary (invalid) value.
import { isPlainObject } from '../domain/args/argShape.ts';
import { isToolFormat, TOOL_FORMATS, type ToolFormat } from './formats.ts';

/** The options of `callTool`. */
export interface ToolCallOptions {
  /** Aborts the call while it waits in the mailbox; nothing is written. */
  readonly signal?: AbortSignal;
  /** The format the tools were offered in (`toolDefinitionsFor`); `'openai-strict'` reads null members as absent. */
  readonly format?: ToolFormat;
  /**
   * The model API's own id of this tool call (Anthropic `tool_use.id`, OpenAI `call_id`, the AI
   * SDK's `toolCallId`): a mutating call repeated with the same id in the same Session answers
   * the first answer and writes nothing (SPEC §15). A string of 1 to 256 characters.
   */
  readonly callId?: string;
}

/** Deeper than any tool's arguments go; below it values are left as they are (and refused by the handler). */
const MAX_DEPTH = 32;

/**
 * `value` with every object member whose value is `null` removed, at every level (inside arrays
 * too; a `null` array element stays, it is a value, not a missing member). Only plain objects are
 * rebuilt; anything else is returned as it is. Pure: `value` is not changed.
 */
export function stripNulls(value: unknown): unknown {
  return strip(value, 0);
}

function strip(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => strip(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const kept: Array<[string, unknown]> = [];
  for (const key of Object.keys(value)) {
    const own = Object.getOwnPropertyDescriptor(value, key);
    // An object with an accessor is left as it is (its getter is never run here): the handler
    // meets it inside its slot and reports it.
    if (own === undefined || !('value' in own)) return value;
    if (own.value !== null) kept.push([key, strip(own.value, depth + 1)]);
  }
  // fromEntries defines own data properties, so a "__proto__" member stays a member.
  return Object.fromEntries(kept);
}

/** The reason a `format` option is refused, or `undefined` when it is absent or known. */
export function callFormatError(format: unknown): TypeError | undefined {
  if (format === undefined || isToolFormat(format)) return undefined;
  return new TypeError(`callTool: unknown format ${JSON.stringify(format)}; the formats are ${TOOL_FORMATS.join(', ')}.`);
}

/**
 * The arguments as the handlers read them for a call made in `format`. Never throws: arguments
 * that cannot be read here (a hostile proxy) are passed on unchanged, and the handler reports them.
 */
export function argumentsForFormat(args: unknown, format: ToolFormat | undefined): unknown {
  if (format !== 'openai-strict') return args;
  try {
    return stripNulls(args);
  } catch {
    return args;
  }
}
