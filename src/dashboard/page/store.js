// The page's copy of the dashboard's view, kept by the server's stream (/api/stream): a snapshot on every
// (re)connection, then updates. Renders are asked for at most once a frame, however many updates arrive.

/** What decides a row's place on the timeline: its group, its name, whether it is gone, whether it is busy. */
const placeOf = (row) => `${row.namespace}/${row.workload}/${row.name}/${row.gone !== undefined}/${isBusy(row)}`;

/** In a lifecycle, or not (yet) back in service: what "only pods in a lifecycle" keeps. */
export const isBusy = (row) => row.lifecycles.length > 0 || row.phase !== 'ServiceAvailable';

/**
 * @param {() => void} onChange called (once per animation frame at most) after the state changed
 */
export function connect(onChange) {
  const state = {
    /** Whether the stream is open: false while the dashboard server cannot be reached. */
    connected: false,
    /** The stream broke and has not come back yet. */
    disconnected: false,
    synced: false,
    namespace: undefined,
    server: '',
    /** Server clock minus this browser's, so times in phase agree with the cluster's timestamps. */
    skew: 0,
    /** @type {Map<string, any>} pod rows by `namespace/name` */
    rows: new Map(),
    rules: [],
    rollouts: [],
    events: [],
    problems: [],
    /**
     * Bumped when the timeline's layout may change: a row comes or goes, or changes what groups, sorts or filters it.
     * Most updates change only a row's phase and bars, and leave the grouping of thousands of rows as it was.
     */
    layout: 0,
  };
  let frame = 0;
  const changed = () => {
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      onChange();
    });
  };
  const lists = (message) => {
    for (const list of ['rules', 'rollouts', 'events', 'problems']) if (message[list] !== undefined) state[list] = message[list];
    if (message.synced !== undefined) state.synced = message.synced;
    state.skew = message.now - Date.now();
  };
  const source = new EventSource('/api/stream');
  source.addEventListener('snapshot', (event) => {
    const snapshot = JSON.parse(event.data);
    state.connected = true;
    state.disconnected = false;
    state.namespace = snapshot.namespace;
    state.server = snapshot.server;
    state.rows = new Map(snapshot.pods.map((row) => [row.key, row]));
    state.layout++;
    lists(snapshot);
    changed();
  });
  source.addEventListener('update', (event) => {
    const update = JSON.parse(event.data);
    if (update.remove.length > 0) state.layout++;
    for (const key of update.remove) state.rows.delete(key);
    for (const row of update.upsert) {
      const before = state.rows.get(row.key);
      if (!before || placeOf(before) !== placeOf(row)) state.layout++;
      state.rows.set(row.key, row);
    }
    lists(update);
    changed();
  });
  source.addEventListener('error', () => {
    state.connected = false;
    state.disconnected = true;
    changed();
  });
  return state;
}
