// The live actor tree, kept flat: one small record per live actor, keyed by XState's actor key,
// with a link to its parent. Records hold only what the inspector lists (strings shared with the
// task rows, no actor references, no contexts), so a tree of 100k tasks stays compact. Map order is
// creation order, so a parent always comes before its children.
import type { StateValue } from 'xstate';
import type { ActorIdentity } from './actorInfo.ts';
import type { InspectedActor, InspectedActorKind, InspectedActorStatus } from './types.ts';

/** The mutable record behind one {@link InspectedActor}; every field is declared up front. */
export class ActorRecord {
  readonly key: string;
  readonly id: string;
  readonly kind: InspectedActorKind;
  readonly parent: string | undefined;
  readonly src: string | undefined;
  /** Creation order in the tree: a parent's is lower than its children's. */
  readonly order: number;
  session: string | undefined;
  state: StateValue | undefined = undefined;
  status: InspectedActorStatus = 'active';
  lastEvent: string | undefined = undefined;
  target: string | undefined = undefined;
  title: string | undefined = undefined;
  /** {@link searchText}'s value and the title and Session it was made from. */
  private search: { readonly text: string; readonly title: string | undefined; readonly session: string | undefined } | undefined =
    undefined;

  constructor(identity: ActorIdentity, session: string | undefined, order: number) {
    this.key = identity.key;
    this.order = order;
    this.id = identity.id;
    this.kind = identity.kind;
    this.parent = identity.parent;
    this.src = identity.src;
    this.session = session;
  }

  /**
   * Id, title and Session in lower case, one per line, for a text filter: made again only when
   * the title or Session changed, so filtering 100k tasks does not lower-case 300k strings.
   */
  searchText(): string {
    const { title, session } = this;
    let search = this.search;
    if (search === undefined || search.title !== title || search.session !== session) {
      search = { text: `${this.id}\n${title ?? ''}\n${session ?? ''}`.toLowerCase(), title, session };
      this.search = search;
    }
    return search.text;
  }

  /** The plain view of the record, without absent fields. */
  toJSON(): InspectedActor {
    const out: { -readonly [K in keyof InspectedActor]: InspectedActor[K] } = {
      key: this.key,
      id: this.id,
      kind: this.kind,
      status: this.status,
    };
    if (this.parent !== undefined) out.parent = this.parent;
    if (this.session !== undefined) out.session = this.session;
    if (this.state !== undefined) out.state = this.state;
    if (this.lastEvent !== undefined) out.lastEvent = this.lastEvent;
    if (this.target !== undefined) out.target = this.target;
    if (this.title !== undefined) out.title = this.title;
    if (this.src !== undefined) out.src = this.src;
    return out;
  }
}

const KINDS: readonly InspectedActorKind[] = ['supervisor', 'group', 'session', 'task', 'effect', 'other'];

export class ActorTree {
  private readonly records = new Map<string, ActorRecord>();
  private created = 0;

  get(key: string): ActorRecord | undefined {
    return this.records.get(key);
  }

  /** A record for an actor, not yet in the tree; a child inherits its parent's Session until its own context names one. */
  describe(identity: ActorIdentity): ActorRecord {
    const inherited = identity.parent === undefined ? undefined : this.records.get(identity.parent)?.session;
    return new ActorRecord(identity, identity.session ?? inherited, ++this.created);
  }

  /** Adds a live actor. */
  add(identity: ActorIdentity): ActorRecord {
    const record = this.describe(identity);
    this.records.set(record.key, record);
    return record;
  }

  remove(key: string): void {
    this.records.delete(key);
  }

  /** Drops every descendant of `key` (not `key` itself); returns their keys. */
  removeDescendants(key: string): string[] {
    const doomed = new Set<string>([key]);
    const removed: string[] = [];
    // Parents come before children in map order, so one pass finds every generation.
    for (const record of this.records.values()) {
      if (record.parent !== undefined && doomed.has(record.parent)) {
        doomed.add(record.key);
        removed.push(record.key);
      }
    }
    for (const k of removed) this.records.delete(k);
    return removed;
  }

  /** Live actors in creation order; with a Session, that Session's actors and their ancestors. */
  list(sessionId?: string): InspectedActor[] {
    if (sessionId === undefined) return [...this.records.values()].map((r) => r.toJSON());
    const keep = new Set<string>();
    for (const record of this.records.values()) {
      if (record.session !== sessionId) continue;
      for (
        let r: ActorRecord | undefined = record;
        r !== undefined && !keep.has(r.key);
        r = r.parent === undefined ? undefined : this.records.get(r.parent)
      ) {
        keep.add(r.key);
      }
    }
    const out: InspectedActor[] = [];
    for (const record of this.records.values()) if (keep.has(record.key)) out.push(record.toJSON());
    return out;
  }

  /** The live records, parents before children. */
  values(): IterableIterator<ActorRecord> {
    return this.records.values();
  }

  /** Live actors by kind. */
  counts(): Record<InspectedActorKind, number> {
    const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<InspectedActorKind, number>;
    for (const record of this.records.values()) counts[record.kind]++;
    return counts;
  }

  get size(): number {
    return this.records.size;
  }

  clear(): void {
    this.records.clear();
  }
}
