// The actor library's own cost floor on this machine, measured in this run: one event through one
// transition, one parent-to-child hop, one spawned actor, one promise actor; and the least time the
// delivery burst (10,000 tasks over 1,000 Sessions) can take at the bare per-event cost.
import { loadavg } from 'node:os';
import { DELIVERY_BURST, floorTable, measureFloor } from './support/floor.ts';

const RUNS = 5;
const load = loadavg()[0] ?? Number.NaN;
const floor = await measureFloor({ runs: RUNS });
console.log(
  `xstate alone, ${RUNS} runs after a warm-up run: 100,000 events per run to one actor or through one parent, ` +
    `three events to each of 10,000 actors, 10,000 actors spawned, 10,000 promise actors invoked one after another; ` +
    `load average ${load.toFixed(1)} at the start`,
);
console.log('');
console.log(floorTable(floor, DELIVERY_BURST));
console.log('');
console.log(
  'the floors count only events (at the one-actor cost, or at their cost to one of many actors): no hops, spawns, promise actors, storage or Session I/O',
);
