// The console is built on the library's public API alone, as any Host's code would be: outside its
// own folder its files import only the package's entry (src/index.ts), the inspector's entry, and
// types of the PostgreSQL entry — never the runtime or the other internals. Read from the source
// text, static and dynamic imports alike.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const consoleDir = join(root, 'src', 'console');

/** Every import of a source text: its specifier and whether the statement imports types only. */
function importsOf(text: string): Array<{ spec: string; typeOnly: boolean }> {
  const found: Array<{ spec: string; typeOnly: boolean }> = [];
  for (const match of text.matchAll(/\b(import|export)\s+(type\s+)?[^'";]*?\bfrom\s+['"]([^'"]+)['"]/g))
    found.push({ spec: match[3] ?? '', typeOnly: match[2] !== undefined });
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ spec: match[1] ?? '', typeOnly: false });
  return found;
}

describe('src/console', () => {
  it('imports only the public API of the library', () => {
    const files = readdirSync(consoleDir).filter((name) => name.endsWith('.ts'));
    expect(files).toContain('index.ts');
    const outside: string[] = [];
    for (const file of files) {
      for (const { spec, typeOnly } of importsOf(readFileSync(join(consoleDir, file), 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, join(dirname(join(consoleDir, file)), spec))
          .split('\\')
          .join('/');
        if (target.startsWith('src/console/')) continue;
        const allowed =
          target === 'src/index.ts' || target === 'src/inspector/index.ts' || (typeOnly && target === 'src/entries/postgres.ts');
        if (!allowed) outside.push(`${file} → ${target}${typeOnly ? ' (types)' : ''}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
