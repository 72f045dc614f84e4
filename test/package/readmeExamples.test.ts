// The README shows the examples whole: each file appears in README.md verbatim, in a fenced block
// of its language, and so does what quickstart prints — so the README cannot drift from what the
// typecheck and `npm run test:package` compile and run.
import { readFileSync } from 'node:fs';
import { REMINDER_TEXT } from './expected.ts';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('the README and examples/', () => {
  it.each([
    ['examples/quickstart.mjs', 'js'],
    ['examples/typed-results.ts', 'ts'],
    ['examples/embed.ts', 'ts'],
  ])('%s appears whole in README.md', (file, language) => {
    expect(readme).toContain(`\`\`\`${language}\n${read(file)}\`\`\``);
  });

  it('README.md shows the exact reminder text examples/quickstart.mjs prints', () => {
    expect(readme).toContain(`\`\`\`\n${REMINDER_TEXT}\n\`\`\``);
  });
});
