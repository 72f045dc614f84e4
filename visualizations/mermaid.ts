// Draws a machine as a Mermaid `stateDiagram-v2` by walking its state nodes (`machine.root`):
// every state (compound states as composite blocks), every initial state, every transition — with
// its event, guard and actions on the edge — and the final states (`--> [*]`). Transitions that
// change nothing but run actions are drawn as self-loops; those defined on the machine's root
// loop on a box named after the machine. Output depends only on the machine definition, in
// definition order, so the same machine always gives the same text.
import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** One arrow: source and target Mermaid ids and the label. */
interface Edge {
  readonly from: string;
  readonly to: string;
  readonly label: string;
}

type Bag = Readonly<Record<string, unknown>>;
const isBag = (value: unknown): value is Bag => (typeof value === 'object' && value !== null) || typeof value === 'function';

/** The Mermaid id of a state node: its path joined with `_` (the root is the machine id). */
export const mermaidId = (node: AnyStateNode): string => (node.path.length === 0 ? node.machine.id : node.path.join('_'));

/** A guard as text: a named guard, `!g` for `not(g)`, `a && b` / `a || b` for `and` / `or`. */
export function guardText(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (!isBag(guard)) return 'guard';
  const inner = Array.isArray(guard.guards) ? guard.guards.map(guardText) : [];
  const name = typeof guard.type === 'string' ? guard.type : typeof guard.name === 'string' ? guard.name : '';
  if (name === 'not' && inner.length === 1) return `!${inner[0]}`;
  if ((name === 'and' || name === 'or') && inner.length > 0) return inner.join(name === 'and' ? ' && ' : ' || ');
  return name.length > 0 ? name : 'guard';
}

/** An action as text: its name, or a built-in's name without the `xstate.` prefix. */
export function actionText(action: unknown): string {
  const name = typeof action === 'string' ? action : isBag(action) && typeof action.type === 'string' ? action.type : 'action';
  return name.replace(/^xstate\./, '');
}

/** The event part of a label: the event type, `always` for eventless, `done(actor)` / `error(actor)` for an invoked actor's result. */
function eventText(node: AnyStateNode, eventType: string): string {
  for (const invoke of node.invoke) {
    const src = typeof invoke.src === 'string' ? invoke.src : invoke.id;
    if (eventType === `xstate.done.actor.${invoke.id}`) return `done(${src})`;
    if (eventType === `xstate.error.actor.${invoke.id}`) return `error(${src})`;
  }
  return eventType;
}

/** An edge label: `event [guard] / action, action`. */
function labelOf(event: string, guard: unknown, actions: readonly unknown[]): string {
  const parts = [event];
  if (guard !== undefined) parts.push(`[${guardText(guard)}]`);
  if (actions.length > 0) parts.push(`/ ${actions.map(actionText).join(', ')}`);
  return parts.join(' ');
}

/** The node's transitions as edges; transitions between the same two states share one edge, one label line each. */
function edgesOf(node: AnyStateNode): Edge[] {
  const byTarget = new Map<string, string[]>();
  const add = (
    event: string,
    transition: { target?: readonly AnyStateNode[] | undefined; guard?: unknown; actions: readonly unknown[] },
  ) => {
    for (const target of transition.target ?? [node]) {
      const to = mermaidId(target);
      const labels = byTarget.get(to) ?? [];
      labels.push(labelOf(event, transition.guard, transition.actions));
      byTarget.set(to, labels);
    }
  };
  for (const [eventType, transitions] of node.transitions) {
    for (const transition of transitions) add(eventText(node, eventType), transition);
  }
  for (const transition of node.always ?? []) add('always', transition);
  return [...byTarget].map(([to, labels]) => ({ from: mermaidId(node), to, label: labels.join('<br/>') }));
}

const childrenOf = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states);

/** Lines for the children of `parent`, indented; edges between siblings stay inside, the others are collected. */
function block(parent: AnyStateNode, indent: string, outer: Edge[]): string[] {
  const lines: string[] = [];
  const children = childrenOf(parent);
  const siblings = new Set(children.map(mermaidId));
  for (const child of children) {
    const id = mermaidId(child);
    if (child.type === 'compound' || child.type === 'parallel') {
      lines.push(`${indent}state "${child.key}" as ${id} {`, ...block(child, `${indent}  `, outer), `${indent}}`);
    } else {
      lines.push(`${indent}state "${child.key}" as ${id}`);
    }
  }
  const initial = parent.initial?.target[0];
  if (initial !== undefined) lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
  for (const child of children) {
    for (const edge of edgesOf(child)) {
      if (siblings.has(edge.to)) lines.push(`${indent}${edge.from} --> ${edge.to} : ${edge.label}`);
      else outer.push(edge);
    }
    if (child.type === 'final') lines.push(`${indent}${mermaidId(child)} --> [*]`);
  }
  return lines;
}

/** The machine as Mermaid `stateDiagram-v2` text (ends with a newline). */
export function machineToMermaid(machine: AnyStateMachine, direction: 'LR' | 'TB' = 'TB'): string {
  const root = machine.root;
  const outer: Edge[] = [];
  const rootEdges = edgesOf(root);
  const body = block(root, rootEdges.length > 0 ? '    ' : '  ', outer);
  const lines = ['stateDiagram-v2', `  direction ${direction}`];
  if (rootEdges.length > 0) lines.push(`  state "${machine.id}" as ${mermaidId(root)} {`, ...body, '  }');
  else lines.push(...body);
  for (const edge of [...outer, ...rootEdges]) lines.push(`  ${edge.from} --> ${edge.to} : ${edge.label}`);
  return `${lines.join('\n')}\n`;
}
