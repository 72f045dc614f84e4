// The demo agent of the reference Host: it "reads" each delivered reminder and answers with one
// transcript line per reminder ("reminder received: <prompt>"), so the loop from a tool call to a
// delivered message to the agent's reaction is visible. It understands the two reminder framings
// of docs/delivery.md and ignores any other text.
import type { InboxLine } from './followupDedupe.ts';
import type { TranscriptLine } from './transcript.ts';

const ONE_SHOT_HEADER = '[SCHEDULE REMINDER]';
const BATCH_HEADER = '[SCHEDULE REMINDER BATCH]';

const valueAfter = (lines: readonly string[], prefix: string): string | undefined =>
  lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The prompts a reminder message carries, in message order; empty when it is not a reminder. */
export function reminderPrompts(text: string): string[] {
  const lines = text.split('\n');
  if (lines[0] === ONE_SHOT_HEADER) {
    const prompt = parseJson(valueAfter(lines, 'reminder_prompt_json: '));
    return typeof prompt === 'string' ? [prompt] : [];
  }
  if (lines[0] === BATCH_HEADER) {
    const entries = parseJson(valueAfter(lines, 'reminders_json: '));
    if (!Array.isArray(entries)) return [];
    return entries.map((entry: { reminder_prompt?: unknown }) => entry?.reminder_prompt).filter((p) => typeof p === 'string');
  }
  return [];
}

/** The demo agent's answers to one delivered message. */
export const demoReplies = (text: string): string[] => reminderPrompts(text).map((prompt) => `reminder received: ${prompt}`);

/**
 * The transcript lines one flush writes: each inbox message stamped `at`, followed by the demo
 * agent's answers to it unless `answer` is false.
 */
export function flushLines(inbox: readonly InboxLine[], at: string, answer: boolean): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const message of inbox) {
    lines.push({ ...message, at });
    if (!answer) continue;
    demoReplies(message.text).forEach((text, i) => {
      lines.push({ messageId: `${message.messageId}.r${i + 1}`, role: 'assistant', producer: 'demo-agent', text, at });
    });
  }
  return lines;
}
