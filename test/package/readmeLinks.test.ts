// The links of the shipped Markdown (README.md, CHANGELOG.md, docs/*.md) resolve wherever the
// package is read — in an installed copy and on the registry page: a relative link names a file
// that package.json `files` ships (docs/*.md is shipped), and an anchor names a heading of its page;
// anything else is an absolute URL, and one into this repository names a file the repository has.
// Read from the working tree, without packing; `npm run test:package` checks the packed file list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  files: string[];
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
};

/** The repository's web address, from package.json `repository`. */
const REPOSITORY = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
/** Absolute links into the repository's files: `<repo>/blob/<ref>/<path>` and raw file URLs. */
const REPOSITORY_FILE = new RegExp(
  `^(?:${REPOSITORY}/(?:blob|tree)/[^/]+|${REPOSITORY.replace('https://github.com', 'https://raw.githubusercontent.com')}/[^/]+)/(.+)$`,
);

/** npm packs these whatever `files` says. */
const ALWAYS_PACKED = ['package.json', 'README.md', 'LICENSE'];

function shipped(path: string): boolean {
  if (ALWAYS_PACKED.includes(path)) return true;
  return manifest.files.some((entry) => {
    const clean = entry.replace(/^\.\//, '').replace(/\/$/, '');
    // `folder/*.ext`: the files of that extension directly in the folder.
    const glob = /^(.+)\/\*(\.\w+)$/.exec(clean);
    if (glob !== null) return posix.dirname(path) === glob[1] && path.endsWith(glob[2] ?? '\0');
    return path === clean || path.startsWith(`${clean}/`);
  });
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
const prose = (markdown: string): string => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/** Link and image targets: `[text](target)`, `![alt](target "title")`, and `href`/`src` attributes. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  const html = [...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1] ?? '');
  return [...inline, ...html];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, (c) => (c === '_' ? '_' : ''))
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings' slugs, a repeated one numbered as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The shipped Markdown pages, as repository paths. */
const pages = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** What is wrong with one link of `page`, or undefined when it resolves. */
function problemOf(page: string, link: string): string | undefined {
  if (/^[a-z][a-z\d+.-]*:/i.test(link)) {
    const file = REPOSITORY_FILE.exec(link)?.[1];
    if (file === undefined) return undefined;
    const path = decodeURIComponent(file.split('#')[0] ?? '');
    return existsSync(join(root, path)) ? undefined : `${link}: the repository has no ${path}`;
  }
  const [target = '', anchor] = link.split('#', 2);
  const path = target === '' ? page : posix.normalize(posix.join(dirname(page), decodeURIComponent(target)));
  if (path.startsWith('..')) return `${link}: outside the package`;
  if (!existsSync(join(root, path))) return `${link}: no file ${path}`;
  if (!shipped(path)) return `${link}: ${path} is not in package.json "files"; ship it or link the repository absolutely`;
  if (anchor !== undefined && anchor !== '' && path.endsWith('.md') && !anchorsOf(read(path)).has(anchor))
    return `${link}: ${path} has no heading #${anchor}`;
  return undefined;
}

describe('links of the shipped Markdown', () => {
  it('package.json names the repository, its home page and where to report bugs', () => {
    expect(REPOSITORY).toBe('https://github.com/agent-schedule/agent-schedule');
    expect(manifest.homepage).toBe(`${REPOSITORY}#readme`);
    expect(manifest.bugs.url).toBe(`${REPOSITORY}/issues`);
  });

  it('ships every page checked here', () => {
    expect(pages.filter((page) => !shipped(page))).toEqual([]);
    expect(pages).toContain('docs/api.md');
  });

  it.each(pages)('every link of %s resolves from the package or is absolute', (page) => {
    const links = linksOf(read(page));
    const problems = links.map((link) => problemOf(page, link)).filter((p) => p !== undefined);
    expect(problems).toEqual([]);
  });

  it('finds the README’s links, relative and absolute', () => {
    const links = linksOf(read('README.md'));
    expect(links).toContain('docs/delivery.md');
    expect(links).toContain('CHANGELOG.md');
    expect(links.some((l) => REPOSITORY_FILE.test(l))).toBe(true);
  });
});
