// `npm run docs`: writes the generated pages of docs/ (today the error catalog, docs/errors.md)
// when their content changed, and prints one line per file it wrote.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildErrorsDoc, ERRORS_DOC_PATH } from './errorsDoc.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

for (const [path, content] of [[ERRORS_DOC_PATH, buildErrorsDoc()]] as const) {
  const file = `${root}${path}`;
  if (existsSync(file) && readFileSync(file, 'utf8') === content) continue;
  writeFileSync(file, content);
  console.log(`wrote ${path}`);
}
