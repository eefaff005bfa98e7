// The timeline: controlled pods grouped by workload (groups fold), one row each with its phase, time in phase and
// what it waits for, and its lifecycles as bars over a window that ends now. Only the rows in view (and a few
// around) are in the DOM, so thousands of pods scroll as smoothly as ten.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clock, duration } from './format.js';
import { html } from './html.js';
import { isBusy } from './store.js';

export const ROW_HEIGHT = 26;
/** Rows rendered beyond each edge of the view, so a quick scroll shows no gap. */
const OVERSCAN = 8;

/** Names in natural order (web-2 before web-10); one collator, as making one per comparison is slow. */
const byName = new Intl.Collator(undefined, { numeric: true });

/**
 * Groups of rows by namespace and workload, sorted; a folded group keeps only its header. Items name rows by key:
 * the rows themselves are read when drawn, so a row's new phase needs no new grouping.
 */
export function groupRows(rows, { filter, busyOnly, folded }) {
  const groups = new Map();
  const needle = filter.trim().toLowerCase();
  for (const row of rows) {
    if (needle && !row.name.toLowerCase().includes(needle) && !row.workload.toLowerCase().includes(needle)) continue;
    if (busyOnly && !isBusy(row)) continue;
    const key = `${row.namespace}/${row.workload}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, namespace: row.namespace, workload: row.workload, rows: [] }));
    group.rows.push(row);
  }
  const items = [];
  for (const group of [...groups.values()].sort((a, b) => a.key.localeCompare(b.key))) {
    const { rows: members, ...named } = group;
    const keys = members.sort((a, b) => Number(a.gone !== undefined) - Number(b.gone !== undefined) || byName.compare(a.name, b.name)).map((row) => row.key);
    items.push({ kind: 'group', key: `group ${group.key}`, group: { ...named, keys } });
    if (!folded.has(group.key)) for (const key of keys) items.push({ kind: 'pod', key });
  }
  return items;
}

function Axis({ start, span }) {
  const seconds = span <= 60_000;
  const step = seconds ? 15_000 : span <= 5 * 60_000 ? 60_000 : span <= 15 * 60_000 ? 3 * 60_000 : 10 * 60_000;
  // A label is centred on its tick: one too near an edge would spill over it (hh:mm:ss labels are wider).
  const edge = seconds ? 0.1 : 0.06;
  const ticks = [];
  for (let at = Math.ceil(start / step) * step; at <= start + span; at += step) if (Math.abs((at - start) / span - 0.5) < 0.5 - edge) ticks.push(at);
  return html`<div class="axis">
    ${ticks.map((at) => html`<span class="tick" key=${at} style=${{ left: `${((at - start) / span) * 100}%` }}>${seconds ? clock(at) : clock(at).slice(0, 5)}</span>`)}
  </div>`;
}

function Bars({ row, start, span, now }) {
  const at = (ms) => `${((ms - start) / span) * 100}%`;
  const end = row.gone ?? now;
  const segments = [];
  for (const bar of row.bars) {
    for (const segment of bar.segments) {
      const from = Math.max(segment.from, start);
      const to = Math.min(segment.to ?? end, now);
      if (to < start || from > now) continue;
      const title = `${bar.id} (${bar.type ?? '?'}): ${segment.phase} ${clock(segment.from)} – ${segment.to === undefined ? 'now' : clock(segment.to)} (${duration((segment.to ?? end) - segment.from)})`;
      segments.push(html`<span
        class=${`segment phase-${segment.phase}`}
        key=${`${bar.id} ${segment.phase} ${segment.from}`}
        data-lifecycle=${bar.id}
        data-phase=${segment.phase}
        title=${title}
        style=${{ left: at(from), width: `max(3px, ${((to - from) / span) * 100}%)` }}
      ></span>`);
    }
  }
  const moments = row.traffic
    .filter((m) => m.at >= start && m.at <= now)
    .map(
      (m) =>
        html`<span
          class=${`traffic traffic-${m.kind}`}
          key=${`${m.kind} ${m.at}`}
          title=${`${m.kind === 'left' ? 'left traffic' : 'back in traffic'} at ${clock(m.at)}`}
          style=${{ left: at(m.at) }}
        ></span>`,
    );
  const serving = row.phase === 'ServiceAvailable' && row.gone === undefined && row.since !== undefined && row.since < now;
  return html`<div class="bars">
    ${serving && html`<span class="serving" title=${`in service since ${clock(row.since)}`} style=${{ left: at(Math.max(row.since, start)) }}></span>`}
    ${segments}${moments}
  </div>`;
}

function PodLine({ row, start, span, now, selected, onSelect }) {
  const inPhase = row.since === undefined ? '' : duration(now - row.since);
  const waits = row.gone === undefined ? row.waitingFor.join('; ') : `gone at ${clock(row.gone)}: deleted, or no longer labelled kusionstack.io/control=true`;
  return html`<div
    class=${`pod${selected ? ' selected' : ''}${row.gone !== undefined ? ' gone' : ''}`}
    data-key=${row.key}
    onClick=${() => onSelect(row.key)}
  >
    <span class="name" title=${row.key}>${row.name}</span>
    <span class=${`phase phase-text-${row.phase}`} data-phase=${row.phase}>${row.gone !== undefined ? 'gone' : row.deleting ? `${row.phase} (deleting)` : row.phase}</span>
    <span class="since">${inPhase}</span>
    <span class="waits">${waits ? html`<span class="waits-text">${waits}</span>` : '—'}</span>
    <${Bars} row=${row} start=${start} span=${span} now=${now} />
  </div>`;
}

function GroupLine({ group, rows, folded, onToggle }) {
  const counts = new Map();
  for (const row of rows) {
    const phase = row.gone === undefined ? row.phase : 'gone';
    counts.set(phase, (counts.get(phase) ?? 0) + 1);
  }
  const out = rows.filter((row) => row.gone === undefined && row.outOfTraffic).length;
  return html`<div class="group" data-group=${group.key} onClick=${() => onToggle(group.key)}>
    <span class="fold">${folded ? '▸' : '▾'}</span>
    <span class="group-name">${group.workload}</span>
    <span class="group-namespace">${group.namespace}</span>
    <span class="group-count">${rows.length} pod${rows.length === 1 ? '' : 's'}${out > 0 ? `, ${out} out of traffic` : ''}</span>
    ${[...counts].map(([phase, n]) => html`<span class=${`chip phase-${phase}`} key=${phase}>${n} ${phase}</span>`)}
  </div>`;
}

/** A list of fixed-height items of which only those in view are rendered. */
function VirtualList({ items, render }) {
  const ref = useRef(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    const element = ref.current;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  return html`<div class="list" ref=${ref} onScroll=${(event) => setScrollTop(event.currentTarget.scrollTop)}>
    <div class="list-inner" style=${{ height: `${items.length * ROW_HEIGHT}px` }}>
      ${items.slice(first, last).map(
        (item, i) => html`<div class="item" key=${item.key} style=${{ top: `${(first + i) * ROW_HEIGHT}px` }}>${render(item)}</div>`,
      )}
    </div>
  </div>`;
}

export function Timeline({ state, now, span, selected, onSelect }) {
  const [filter, setFilter] = useState('');
  const [busyOnly, setBusyOnly] = useState(false);
  const [folded, setFolded] = useState(() => new Set());
  const items = useMemo(() => groupRows(state.rows.values(), { filter, busyOnly, folded }), [state.layout, filter, busyOnly, folded]);
  const toggle = (key) => {
    const next = new Set(folded);
    if (!next.delete(key)) next.add(key);
    setFolded(next);
  };
  const rowsOf = (group) => group.keys.map((key) => state.rows.get(key));
  const start = now - span;
  const shown = items.filter((item) => item.kind === 'pod').length;
  return html`<section class="timeline">
    <div class="toolbar">
      <input type="search" placeholder="filter pods or workloads" value=${filter} onInput=${(event) => setFilter(event.currentTarget.value)} />
      <label><input type="checkbox" checked=${busyOnly} onChange=${(event) => setBusyOnly(event.currentTarget.checked)} /> only pods in a lifecycle</label>
      <span class="shown">${shown} of ${state.rows.size} pods</span>
    </div>
    <div class="head">
      <span>pod</span><span>phase</span><span>in phase</span><span>waiting for</span>
      <${Axis} start=${start} span=${span} />
    </div>
    ${state.synced || state.rows.size > 0
      ? items.length === 0
        ? html`<p class="note">No pods under PodOpsLifecycle${state.rows.size > 0 ? ' match the filter' : ' (label kusionstack.io/control=true)'}.</p>`
        : html`<${VirtualList}
            items=${items}
            render=${(item) =>
              item.kind === 'group'
                ? html`<${GroupLine} group=${item.group} rows=${rowsOf(item.group)} folded=${folded.has(item.group.key)} onToggle=${toggle} />`
                : html`<${PodLine} row=${state.rows.get(item.key)} start=${start} span=${span} now=${now} selected=${item.key === selected} onSelect=${onSelect} />`}
          />`
      : html`<p class="note">Waiting for the first list of pods from the API server…</p>`}
  </section>`;
}
