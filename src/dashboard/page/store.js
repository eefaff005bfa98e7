// The page's copy of the dashboard's view, kept by the server's stream (/api/stream): a snapshot on every
// (re)connection, then updates. Renders are asked for at most once a frame, however many updates arrive.

/**
 * @param {() => void} onChange called (once per animation frame at most) after the state changed
 */
export function connect(onChange) {
  const state = {
    /** Whether the stream is open: false while the dashboard server cannot be reached. */
    connected: false,
    /** Whether a snapshot ever arrived. */
    loaded: false,
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
    /** Bumped on every change of the rows: views derived from them are cached by it. */
    version: 0,
  };
  let frame = 0;
  const changed = () => {
    state.version++;
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
    state.loaded = true;
    state.connected = true;
    state.disconnected = false;
    state.namespace = snapshot.namespace;
    state.server = snapshot.server;
    state.rows = new Map(snapshot.pods.map((row) => [row.key, row]));
    lists(snapshot);
    changed();
  });
  source.addEventListener('update', (event) => {
    const update = JSON.parse(event.data);
    for (const key of update.remove) state.rows.delete(key);
    for (const row of update.upsert) state.rows.set(row.key, row);
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
