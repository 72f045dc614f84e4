// Which Host holds a shard, as a load balancer or a client asks to send a Session's calls to its
// owner (the `x-schedule-owner` header of the console's answers). The lease table is read at most
// once per `maxAgeMs` and shared by the callers that ask meanwhile; a shard this Host holds is
// answered from memory. A lease moves at most once per takeover or rebalance, so an answer a
// second old is almost always right, and a wrong one costs only a routed call.
import type { ClusterTopology } from '../ports.ts';

export class ShardOwners {
  private owners: ReadonlyMap<number, string> = new Map();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly hostId: string,
    private readonly heldHere: (shard: number) => boolean,
    private readonly topology: () => Promise<ClusterTopology>,
    private readonly now: () => number = () => performance.now(),
    private readonly maxAgeMs = 1_000,
  ) {}

  /** The Host holding `shard`, or undefined while none does (or the table cannot be read). */
  async ownerOf(shard: number): Promise<string | undefined> {
    if (this.heldHere(shard)) return this.hostId;
    if (this.now() - this.readAt > this.maxAgeMs) await this.refresh();
    const owner = this.owners.get(shard);
    // This Host's own stale entry is wrong by now: it no longer holds the shard.
    return owner === this.hostId ? undefined : owner;
  }

  private refresh(): Promise<void> {
    this.reading ??= this.topology()
      .then(
        (topology) => {
          const owners = new Map<number, string>();
          for (const shard of topology.shards) if (shard.owner !== null) owners.set(shard.shard, shard.owner);
          this.owners = owners;
          this.readAt = this.now();
        },
        () => {
          // Unknown for now; the next question reads again.
          this.owners = new Map();
        },
      )
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}
