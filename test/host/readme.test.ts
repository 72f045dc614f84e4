// The README's embedding example is the file the typecheck compiles, character for character.
import { readFile } from 'node:fs/promises';

describe('README', () => {
  it('shows examples/embed.ts as its embedding example', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const example = await readFile(new URL('../../examples/embed.ts', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Embedding the service in your own Host'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(example);
  });

  it('starts with the two commands', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const first = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(first.split('\n').map((line) => line.split('#')[0]?.trim())).toEqual(['npm ci && npm start', 'npm test', '']);
  });
});
