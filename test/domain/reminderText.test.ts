// Reminder framing (docs/delivery.md): the exact one-shot and batch texts, batch ordering, and the
// idempotency key of each reminder.
import { batchText, idempotencyKey, oneShotText, orderBatch } from '../../src/domain/tasks/reminderText.ts';

describe('oneShotText', () => {
  it('frames id, occurrence and prompt exactly, JSON-encoding id and prompt, no trailing newline', () => {
    expect(oneShotText('t-1', '2030-01-01T08:10:00.000Z', 'Check the build')).toBe(
      [
        '[SCHEDULE REMINDER]',
        'This is a scheduled message from the user',
        'schedule_id_json: "t-1"',
        'occurrence_at: 2030-01-01T08:10:00.000Z',
        'reminder_prompt_json: "Check the build"',
      ].join('\n'),
    );
  });

  it('escapes quotes, newlines and backslashes in the prompt so the frame stays five lines', () => {
    const text = oneShotText('t-2', '2030-01-01T08:10:00.000Z', 'Say "hi"\nthen run C:\\build');
    expect(text.split('\n')).toHaveLength(5);
    expect(text.endsWith('reminder_prompt_json: "Say \\"hi\\"\\nthen run C:\\\\build"')).toBe(true);
  });
});

describe('batchText', () => {
  it('a recurring task due alone still gets the batch framing', () => {
    expect(batchText([{ id: 'a', occurrenceAt: '2030-01-01T08:01:00.000Z', prompt: 'Ping' }])).toBe(
      [
        '[SCHEDULE REMINDER BATCH]',
        'This is a scheduled message from the user',
        'reminders_json: [{"schedule_id":"a","occurrence_at":"2030-01-01T08:01:00.000Z","reminder_prompt":"Ping"}]',
      ].join('\n'),
    );
  });

  it('lists entries as orderBatch orders them: by occurrence, then by id with plain string comparison', () => {
    const entries = [
      { id: 'b', occurrenceAt: '2030-01-01T08:02:00.000Z', prompt: 'two' },
      { id: 'a', occurrenceAt: '2030-01-01T08:02:00.000Z', prompt: 'one' },
      { id: 'Z', occurrenceAt: '2030-01-01T08:03:00.000Z', prompt: 'three' },
      { id: 'z', occurrenceAt: '2030-01-01T08:01:00.000Z', prompt: 'zero' },
      { id: 'B', occurrenceAt: '2030-01-01T08:02:00.000Z', prompt: 'upper' },
    ];
    const line = batchText(orderBatch(entries)).split('\n')[2] ?? '';
    expect(line.startsWith('reminders_json: ')).toBe(true);
    const parsed = JSON.parse(line.slice('reminders_json: '.length)) as Array<Record<string, string>>;
    expect(parsed.map((e) => e.schedule_id)).toEqual(['z', 'B', 'a', 'b', 'Z']);
    expect(Object.keys(parsed[0] ?? {})).toEqual(['schedule_id', 'occurrence_at', 'reminder_prompt']);
    expect(orderBatch(entries).map((e) => e.prompt)).toEqual(['zero', 'upper', 'one', 'two', 'three']);
    expect(entries[0]?.id).toBe('b'); // the input is not reordered in place
  });

  it('prompts with newlines stay inside the one JSON line', () => {
    const text = batchText([{ id: 'a', occurrenceAt: '2030-01-01T08:01:00.000Z', prompt: 'line 1\nline 2' }]);
    expect(text.split('\n')).toHaveLength(3);
  });
});

describe('idempotencyKey', () => {
  it('is <taskId>@<occurrence>', () => {
    expect(idempotencyKey('t-1', '2030-01-01T08:10:00.000Z')).toBe('t-1@2030-01-01T08:10:00.000Z');
  });
});
