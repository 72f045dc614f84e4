// The parent's side of a child process that speaks one JSON event per line on stdout (the crash
// trials' children): each complete line parsed and handed on, a line that is not JSON reported.
import type { Readable } from 'node:stream';

/** Calls `onEvent` for each JSON line `stream` yields and `onBad` for each line that is not JSON. */
export function readJsonLines<E>(stream: Readable, onEvent: (event: E) => void, onBad: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      let event: E;
      try {
        event = JSON.parse(line) as E;
      } catch {
        onBad(line);
        continue;
      }
      onEvent(event);
    }
  });
}
