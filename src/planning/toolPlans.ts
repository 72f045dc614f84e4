// The model tools' plans: each checks the shape of its arguments (unknown members are refused,
// naming them), then plans one mailbox slot bound to the calling Session. A tool never reaches
// another Session's task: lookups are by (Session, id).
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../domain/args/argShape.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { ToolResult } from '../domain/reads/replies.ts';
import { TOOL_NAMES } from '../tools/definitions.ts';
import { activeViews, planCreate, planDelete, planUpdate, type SlotContext } from './mutations.ts';
import { answer, type SlotPlan } from './slotPlan.ts';

const UPDATE_ARGUMENTS = ['id', 'title', 'prompt', 'change', 'paused'];

/** Checks a tool's arguments are an object with only `allowed` members. */
function objectArgs(tool: string, args: unknown, allowed: readonly string[]): Readonly<Record<string, unknown>> {
  if (args === undefined || args === null) args = {};
  if (!isPlainObject(args)) {
    throw new ScheduleError('invalid_selector', `${tool} arguments must be a JSON object; got ${describeValue(args)}.`);
  }
  const extra = unknownKeys(args, allowed);
  if (extra.length > 0) {
    const accepted = allowed.length === 0 ? 'it takes no arguments' : `accepted: ${listWords(allowed)}`;
    throw new ScheduleError('invalid_selector', `${tool} does not accept ${describeKeys(extra)}; ${accepted}.`);
  }
  return args;
}

function taskIdArg(tool: string, args: Readonly<Record<string, unknown>>): string {
  const id = ownValue(args, 'id');
  if (typeof id !== 'string' || id.length === 0) {
    throw new ScheduleError(
      'invalid_selector',
      `${tool} needs id: the string id of one of this Session's tasks (see schedule_list); got ${describeValue(id)}.`,
    );
  }
  return id;
}

/** Plans one tool call of `sessionId`, answering any tool's result. Throws a ScheduleError for a refused call. */
export function planToolCall(ctx: SlotContext, sessionId: string, name: string, args: unknown): SlotPlan<ToolResult> {
  switch (name) {
    case 'schedule_create':
      return planCreate(ctx, sessionId, args);
    case 'schedule_list':
      objectArgs(name, args, []);
      return answer(activeViews(ctx, sessionId));
    case 'schedule_update': {
      const a = objectArgs(name, args, UPDATE_ARGUMENTS);
      const id = taskIdArg(name, a);
      const edits = {
        title: ownValue(a, 'title'),
        prompt: ownValue(a, 'prompt'),
        change: ownValue(a, 'change'),
        paused: ownValue(a, 'paused'),
      };
      return planUpdate(ctx, sessionId, id, edits);
    }
    case 'schedule_delete': {
      const a = objectArgs(name, args, ['id']);
      return planDelete(ctx, sessionId, taskIdArg(name, a));
    }
    default:
      throw new ScheduleError('unknown_tool', `There is no tool ${describeValue(name)}; the schedule tools are ${listWords(TOOL_NAMES)}.`);
  }
}
