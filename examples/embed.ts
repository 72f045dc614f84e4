// Embedding the scheduler in your own Host: adapt your Sessions, start the service, offer its
// tools to the model, and close it on shutdown. (Compiled by the typecheck; shown in README.)
import { createScheduleService, jsonFileStorage, type ScheduleAgent } from 'agent-schedule';

/** Your Host's Session, reduced to what the scheduler needs. */
interface MySession {
  appendUserMessage(text: string, meta: { producer: string; dedupeKeys: string[] }): string;
  persist(): Promise<void>;
}
declare function loadSession(sessionId: string): Promise<MySession>; // restores a cold Session

const service = await createScheduleService({
  storage: jsonFileStorage({ path: './data/schedule.json' }),
  sessions: {
    async resolveAgent(sessionId): Promise<ScheduleAgent> {
      const session = await loadSession(sessionId);
      return {
        followup: (message, meta) => ({
          messageId: session.appendUserMessage(message.text, { producer: message.producer, dedupeKeys: meta?.idempotencyKeys ?? [] }),
        }),
        flush: () => session.persist(),
      };
    },
  },
});

// Offer service.toolDefinitions to the model; run its calls in the calling Session.
export const tools = service.toolDefinitions;
export const onToolCall = (sessionId: string, name: string, args: unknown) => service.callTool(sessionId, name, args);
service.subscribe((change) => console.log('schedule/changed', change.sessionId, change.ids));
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
