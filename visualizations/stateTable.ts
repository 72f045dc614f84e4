// The table that accompanies each diagram in the README: one row per state node with its type,
// entry actions, invoked actors and description — what an edge label cannot show. Read from the
// machine definition like the diagram itself.
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { actionText } from './mermaid.ts';

const cell = (text: string): string => (text.length === 0 ? '—' : text.replace(/\|/g, '\\|'));

interface Row {
  readonly name: string;
  readonly type: string;
  readonly entry: string;
  readonly invokes: string;
  readonly description: string;
}

function rows(node: AnyStateNode): Row[] {
  const out: Row[] = [];
  for (const child of Object.values(node.states)) {
    out.push({
      name: `\`${child.path.join('.')}\``,
      type: child.type,
      entry: child.entry.map(actionText).join(', '),
      invokes: child.invoke.map((i) => (typeof i.src === 'string' ? i.src : i.id)).join(', '),
      description: typeof child.description === 'string' ? child.description : '',
    });
    out.push(...rows(child));
  }
  return out;
}

/** A Markdown table of the machine's states (nested states as `parent.child`); the description column only when some state has one. */
export function stateTable(machine: AnyStateMachine): string {
  const all = rows(machine.root);
  const described = all.some((r) => r.description.length > 0);
  const head = described ? ['State', 'Type', 'Entry', 'Invokes', 'Description'] : ['State', 'Type', 'Entry', 'Invokes'];
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const body = all.map((r) => line([r.name, r.type, cell(r.entry), cell(r.invokes), ...(described ? [cell(r.description)] : [])]));
  return [line(head), line(head.map(() => '---')), ...body].join('\n');
}
