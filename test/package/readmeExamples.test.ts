// The README and docs/embedding.md show the examples whole: each file appears verbatim, in a fenced
// block of its language, and so does what quickstart prints — so the pages cannot drift from what
// the typecheck and `npm run test:package` compile and run.
import { readFileSync } from 'node:fs';
import { REMINDER_TEXT } from './expected.ts';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the README, docs/embedding.md and examples/', () => {
  it.each([
    ['examples/quickstart.mjs', 'README.md', 'js'],
    ['examples/embed.ts', 'README.md', 'ts'],
    ['examples/typed-results.ts', 'docs/embedding.md', 'ts'],
  ])('%s appears whole in %s', (file, page, language) => {
    expect(read(page)).toContain(`\`\`\`${language}\n${read(file)}\`\`\``);
  });

  it('README.md shows the exact reminder text examples/quickstart.mjs prints', () => {
    expect(read('README.md')).toContain(`\`\`\`\n${REMINDER_TEXT}\n\`\`\``);
  });
});
