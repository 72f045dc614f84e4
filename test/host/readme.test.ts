// The README's Sessions contract shows examples/embed.ts, the file the typecheck compiles, character
// for character; the README starts with the two commands and stays short enough to read in one
// sitting (the rest lives in docs/).
import { readFile } from 'node:fs/promises';

const readme = () => readFile(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows examples/embed.ts as the example of its Sessions contract', async () => {
    const text = await readme();
    const example = await readFile(new URL('../../examples/embed.ts', import.meta.url), 'utf8');
    const start = text.indexOf('## The Sessions contract');
    expect(start).toBeGreaterThan(0);
    const section = text.slice(start, text.indexOf('\n## ', start + 1));
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(example);
  });

  it('starts with the two commands', async () => {
    const first = /```sh\n([\s\S]*?)```/.exec(await readme())?.[1] ?? '';
    expect(first.split('\n').map((line) => line.split('#')[0]?.trim())).toEqual(['npm ci && npm start', 'npm test', '']);
  });

  it('holds at most 300 lines', async () => {
    expect((await readme()).trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });
});
