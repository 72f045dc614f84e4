// `npm run visualize`: writes the diagrams built from machines/ into visualizations/ and removes
// diagrams of machines that no longer exist. Prints one line per file it changed.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildVisualizations } from './build.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = buildVisualizations();
const generated = new Set(files.map((f) => f.path));

for (const file of files) {
  const path = `${dir}${file.path}`;
  if (existsSync(path) && readFileSync(path, 'utf8') === file.content) continue;
  writeFileSync(path, file.content);
  console.log(`wrote visualizations/${file.path}`);
}
for (const name of readdirSync(dir)) {
  if (/\.(mmd|svg)$/.test(name) && !generated.has(name)) {
    rmSync(`${dir}${name}`);
    console.log(`removed visualizations/${name}`);
  }
}
