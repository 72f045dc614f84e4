// visualizations/ is generated from machines/: the committed files must be exactly what
// `npm run visualize` produces now, and the diagrams must show every state and transition.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnyStateNode } from 'xstate';
import { taskMachine } from '../machines/taskMachine.ts';
import { buildVisualizations, DIAGRAMS } from '../visualizations/build.ts';
import { guardText, machineToMermaid, mermaidId } from '../visualizations/mermaid.ts';

const dir = fileURLToPath(new URL('../visualizations/', import.meta.url));
const files = buildVisualizations();

describe('committed visualizations', () => {
  for (const file of files) {
    it(`visualizations/${file.path} is up to date (run \`npm run visualize\` after changing machines/)`, () => {
      const path = `${dir}${file.path}`;
      expect(existsSync(path), `visualizations/${file.path} is missing`).toBe(true);
      expect(readFileSync(path, 'utf8') === file.content, `visualizations/${file.path} is stale`).toBe(true);
    });
  }

  it('holds no diagram of a machine that is gone', () => {
    const generated = new Set(files.map((f) => f.path));
    const stale = readdirSync(dir).filter((name) => /\.(mmd|svg)$/.test(name) && !generated.has(name));
    expect(stale).toEqual([]);
  });

  it('every statechart the README and docs/ embed is the current one', () => {
    const root = new URL('../', import.meta.url);
    const docs = readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md'));
    const pages = ['README.md', ...docs.map((name) => `docs/${name}`)];
    const current = new Set(files.filter((f) => f.path.endsWith('.mmd')).map((f) => f.content));
    for (const page of pages) {
      const text = readFileSync(fileURLToPath(new URL(page, root)), 'utf8');
      for (const [, chart = ''] of text.matchAll(/```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/g)) {
        expect(current.has(chart), `${page} embeds a stale diagram:\n${chart}`).toBe(true);
      }
    }
  });

  it('generation is deterministic', () => {
    expect(buildVisualizations()).toEqual(files);
  });
});

/** Every state node below the root. */
const allStates = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states).flatMap((child) => [child, ...allStates(child)]);

describe('diagrams from the machine definitions', () => {
  for (const { name, machine } of DIAGRAMS) {
    it(`the ${name} diagram declares every state and draws every transition`, () => {
      const text = machineToMermaid(machine, 'LR');
      expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
      for (const node of allStates(machine.root)) {
        expect(text).toContain(`state "${node.key}" as ${mermaidId(node)}`);
        if (node.type === 'final') expect(text).toContain(`${mermaidId(node)} --> [*]`);
        for (const transitions of [...node.transitions.values(), node.always ?? []]) {
          for (const t of transitions) {
            const target = t.target?.[0] ?? node;
            const edge = new RegExp(`^\\s*${mermaidId(node)} --> ${mermaidId(target)} : .*`, 'm');
            expect(text).toMatch(edge);
            if (t.guard !== undefined) expect(text).toContain(`[${guardText(t.guard)}]`);
          }
        }
      }
      const initial = machine.root.initial?.target[0];
      expect(initial).toBeDefined();
      if (initial !== undefined) expect(text).toContain(`[*] --> ${mermaidId(initial)}`);
    });
  }

  it('the task diagram reads as the lifecycle: guards and events on the edges, inactive final', () => {
    const text = machineToMermaid(taskMachine, 'LR');
    expect(text).toContain('[*] --> scheduled');
    expect(text).toContain('scheduled --> overdue : clock.tick [isDue]<br/>task.updated [rowIsDue] / storeRow');
    expect(text).toContain('overdue --> delivering : delivery.start');
    expect(text).toContain('overdue --> scheduled : clock.tick [notDue]');
    expect(text).toContain('delivering --> inactive : delivery.committed [rowEnded] / storeDelivered');
    expect(text).toContain('delivering --> retrying : delivery.failed [receiptFailed] / recordFailure');
    expect(text).toContain('inactive --> [*]');
  });

  it('invoked actors appear as done(…) and error(…) edges', () => {
    const supervisor = DIAGRAMS.find((d) => d.name === 'supervisor');
    const text = supervisor === undefined ? '' : machineToMermaid(supervisor.machine, 'LR');
    expect(text).toMatch(/opening --> running : done\(openDomain\)/);
    expect(text).toMatch(/opening --> failed : error\(openDomain\)/);
  });
});
