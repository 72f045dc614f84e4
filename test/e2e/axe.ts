// The accessibility check of the browser tests: axe-core (exact pin, a devDependency) injected
// into the page (axe.min.js), run on the whole document; the serious and critical violations are returned as
// short lines (rule, impact, first target) so a failing test names them; `allViolations` returns
// every violation, whatever its impact.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | undefined;

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: readonly unknown[]; readonly failureSummary?: string }>;
}

/** The serious and critical axe violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  return (await violations(page)).filter((v) => v.startsWith('!'));
}

/** Every axe violation of the page as it is now, whatever its impact. */
export async function allViolations(page: Page): Promise<string[]> {
  return (await violations(page)).map((v) => v.replace(/^!/, ''));
}

// Each line starts with "!" when the violation is serious or critical.
async function violations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the page's Content Security Policy forbids inline scripts.
  axeSource ??= readFileSync(AXE_PATH, 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations.map(
    (v) =>
      `${v.impact === 'serious' || v.impact === 'critical' ? '!' : ''}${v.id} (${v.impact}): ${v.help} — ${JSON.stringify(v.nodes[0]?.target ?? [])} (${v.nodes[0]?.failureSummary?.replace(/\s+/g, ' ') ?? ''}) and ${v.nodes.length - 1} more`,
  );
}
