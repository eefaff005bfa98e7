// The dashboard page: a header with the scope and the window, what is wrong (the API server unreachable, a missing
// permission, the dashboard server gone), the timeline, and a side panel of one pod, rules, rollouts and events.

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { PHASES } from './format.js';
import { html } from './html.js';
import { InspectPanel } from './inspect.js';
import { EventsPanel, RolloutsPanel, RulesPanel } from './panels.js';
import { connect } from './store.js';
import { Timeline } from './timeline.js';

const WINDOWS = [
  ['1m', 60_000],
  ['5m', 5 * 60_000],
  ['15m', 15 * 60_000],
  ['1h', 60 * 60_000],
];

const PROBLEM_TITLES = {
  forbidden: 'Missing permission',
  unauthorized: 'Credentials refused',
  unreachable: 'API server unreachable',
  'not-served': 'Not served',
  failed: 'Failed',
};

const ROLLOUTS = 'rolloutlifecycles.apps.kusionstack.io';

function Problems({ state }) {
  // An unreachable API server fails every resource alike: said once.
  const unreachable = state.problems.find((p) => p.kind === 'unreachable');
  const shown = unreachable
    ? [{ ...unreachable, verb: undefined }]
    : state.problems.filter((p) => !(p.kind === 'not-served' && p.resource === ROLLOUTS));
  if (state.disconnected) {
    shown.unshift({ resource: 'dashboard', kind: 'disconnected', message: 'Lost the connection to the dashboard server (is podops dashboard still running?); reconnecting…' });
  }
  if (shown.length === 0) return null;
  return html`<div class="problems" role="alert">
    ${shown.map(
      (p) => html`<p key=${`${p.resource} ${p.verb}`} data-problem=${p.kind}>
        <b>${PROBLEM_TITLES[p.kind] ?? 'Disconnected'}</b>${p.verb ? ` (${p.verb} ${p.resource})` : ''}: ${p.message}
      </p>`,
    )}
  </div>`;
}

function Legend() {
  return html`<span class="legend">
    ${PHASES.map((phase) => html`<span class=${`chip phase-${phase}`} key=${phase}>${phase}</span>`)}
    <span class="traffic-key"><span class="traffic traffic-left"></span> left traffic</span>
    <span class="traffic-key"><span class="traffic traffic-entered"></span> back in traffic</span>
  </span>`;
}

function App({ state }) {
  const [span, setSpan] = useState(WINDOWS[1][1]);
  const [tab, setTab] = useState('pod');
  const [selected, setSelected] = useState(undefined);
  // Redrawn every second: the window moves with time, and times in phase grow.
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  const now = Date.now() + state.skew;
  const select = (key) => {
    setSelected(key);
    setTab('pod');
  };
  const blocked = state.rules.reduce((n, rule) => n + rule.blocked.length, 0);
  const tabs = [
    ['pod', 'Pod'],
    ['rules', `Rules ${state.rules.length}${blocked > 0 ? ` (${blocked} blocked)` : ''}`],
    ['rollouts', `Rollouts ${state.rollouts.length}`],
    ['events', `Events ${state.events.length}`],
  ];
  return html`<header>
      <h1>podops</h1>
      <span class="scope">${state.namespace === undefined ? 'all namespaces' : `namespace ${state.namespace}`} · ${state.server}</span>
      <span class=${`live ${state.connected ? 'on' : 'off'}`}>${state.connected ? 'live' : 'offline'}</span>
      <${Legend} />
      <span class="windows">
        ${WINDOWS.map(([label, ms]) => html`<button key=${label} class=${ms === span ? 'active' : ''} onClick=${() => setSpan(ms)}>${label}</button>`)}
      </span>
    </header>
    <${Problems} state=${state} />
    <main>
      <${Timeline} state=${state} now=${now} span=${span} selected=${selected} onSelect=${select} />
      <aside>
        <nav>${tabs.map(([id, label]) => html`<button key=${id} class=${id === tab ? 'active' : ''} data-tab=${id} onClick=${() => setTab(id)}>${label}</button>`)}</nav>
        <div class="panel">
          ${tab === 'pod' && html`<${InspectPanel} podKey=${selected} row=${selected && state.rows.get(selected)} />`}
          ${tab === 'rules' && html`<${RulesPanel} rules=${state.rules} />`}
          ${tab === 'rollouts' &&
          html`<${RolloutsPanel} rollouts=${state.rollouts} now=${now} notInstalled=${state.problems.some((p) => p.kind === 'not-served' && p.resource === ROLLOUTS)} />`}
          ${tab === 'events' && html`<${EventsPanel} events=${state.events} />`}
        </div>
      </aside>
    </main>`;
}

const root = document.getElementById('app');
root.textContent = '';
const draw = () => render(html`<${App} state=${state} />`, root);
const state = connect(draw);
draw();
