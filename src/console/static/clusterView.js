// The Inspector tab's cluster view (a Host on PostgreSQL): the live Hosts sharing the schedule,
// each with how many of the 256 shards it holds and their ranges, this replica marked, and the
// shards no live lease holds. Read from `GET /api/cluster`, again whenever the schedule changes
// and every few seconds (leases move without a change to the schedule). On files there is no
// cluster and the view is not shown.
import { api } from './api.js';
import { html, useEffect, useState } from './html.js';

/** How often the view is read again while shown, in ms. */
const REFRESH_MS = 5000;

/** `GET /api/cluster`'s report, null while loading or on files; read again when `version` changes. */
export function useCluster(version) {
  const [report, setReport] = useState(null);
  useEffect(() => {
    let live = true;
    let timer;
    const load = () =>
      api('GET', '/api/cluster').then(
        (value) => {
          // On files there is no cluster to follow.
          if (!value.clustered) clearInterval(timer);
          if (live) setReport(value.clustered ? value : null);
        },
        () => live && setReport(null),
      );
    load();
    timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [version]);
  return report;
}

/** The Hosts and their shards, as a card; nothing on files. */
export function ClusterView({ report }) {
  if (!report) return null;
  return html`<section class="card cluster" aria-labelledby="cluster-heading" data-testid="cluster-view">
    <h2 id="cluster-heading">Cluster <span class="count">${report.hosts.length} Host${report.hosts.length === 1 ? '' : 's'} · 256 shards</span></h2>
    <table aria-label="Hosts and their shards">
      <thead>
        <tr>
          <th scope="col">Host</th>
          <th scope="col">Shards</th>
          <th scope="col">Ranges</th>
          <th scope="col">Member since</th>
        </tr>
      </thead>
      <tbody>
        ${report.hosts.map(
          (host) => html`<tr key=${host.hostId} class=${host.self ? 'self' : ''} aria-current=${host.self ? 'true' : undefined}>
            <td><code>${host.hostId}</code>${host.self && html` <span class="badge self">this replica</span>`}</td>
            <td class="num">${host.shards}</td>
            <td class="ranges">${host.ranges.length === 0 ? html`<span class="muted">none yet</span>` : host.ranges.join(', ')}</td>
            <td class="muted">${new Date(host.startedAt).toLocaleTimeString()}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${report.unowned > 0 && html`<p class="muted">${report.unowned} shard(s) held by no live Host (being taken over).</p>`}
    <${ShardStrip} report=${report} />
  </section>`;
}

/** The 256 shards as a strip of cells, coloured by owner (this replica's darkest). */
function ShardStrip({ report }) {
  const order = report.hosts.map((host) => host.hostId);
  return html`<div class="shard-strip" role="img" aria-label=${`Shard owners: ${report.hosts.map((h) => `${h.hostId} ${h.shards}`).join(', ')}`}>
    ${report.shards.map((shard) => {
      const index = shard.owner === null ? -1 : order.indexOf(shard.owner);
      const self = shard.owner === report.hostId;
      return html`<span
        key=${shard.shard}
        class=${`shard owner-${index < 0 ? 'none' : index % 6} ${self ? 'self' : ''}`}
        title=${`shard ${shard.shard}: ${shard.owner ?? 'no owner'} (epoch ${shard.epoch})`}
      ></span>`;
    })}
  </div>`;
}
