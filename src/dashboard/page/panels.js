// The side lists: PodTransitionRules (targets, passed and blocked pods with the reasons), RolloutLifecycles (points,
// hooks and their Jobs) and podops' recent events.

import { clock, duration } from './format.js';
import { html } from './html.js';

export function RulesPanel({ rules }) {
  if (rules.length === 0) return html`<p class="note">No PodTransitionRules.</p>`;
  return rules.map(
    (rule) => html`<article class="card" key=${rule.key} data-rule=${rule.key}>
      <h3>${rule.name} <small>${rule.namespace}</small></h3>
      <p class="summary">
        ${rule.summary.targets} targets · ${rule.summary.checking} checking · <span class="ok">${rule.summary.passed} passed</span> ·
        <span class=${rule.summary.blocked > 0 ? 'bad' : ''}>${rule.summary.blocked} blocked</span>
      </p>
      <ul class="plain">
        ${rule.rules.map((r) => html`<li key=${r.name}><b>${r.name}</b> ${r.kind}, ${r.stage}${r.disabled ? ' (disabled)' : ''}</li>`)}
      </ul>
      ${rule.blocked.map(
        (b) => html`<div class="blocked" key=${`${b.pod} ${b.stage}`} data-blocked=${b.pod}>
          <b>${b.pod}</b> blocked in ${b.stage}
          <ul class="plain">${b.reasons.length > 0 ? b.reasons.map((reason, i) => html`<li key=${i}>${reason}</li>`) : html`<li>not passed</li>`}</ul>
        </div>`,
      )}
      ${rule.passed.length > 0 && html`<p class="muted">passed: ${rule.passed.map((p) => `${p.pod} (${p.stage})`).join(', ')}</p>`}
      <details><summary>targets (${rule.targets.length})</summary><p class="muted">${rule.targets.join(', ') || 'none'}</p></details>
    </article>`,
  );
}

export function RolloutsPanel({ rollouts, notInstalled, now }) {
  if (notInstalled) return html`<p class="note">The API server does not serve RolloutLifecycles: the CRD is not installed.</p>`;
  if (rollouts.length === 0) return html`<p class="note">No RolloutLifecycles.</p>`;
  return rollouts.map((rl) => {
    const r = rl.rollout;
    return html`<article class="card" key=${rl.key} data-rollout=${rl.key}>
      <h3>${rl.target} <small>${rl.namespace} · RolloutLifecycle ${rl.name}</small></h3>
      ${r
        ? html`<p class=${`summary rollout-${r.phase}`}>
              <b>${r.type} ${r.phase}</b>, points ${r.pointReached}${r.message ? `: ${r.message}` : ''}
            </p>
            <p class="muted">
              ${r.fromRevision ?? '?'} → ${r.toRevision ?? '(not created yet)'} · ${r.newAvailable}/${r.replicas} new available
              ${r.startTime !== undefined ? ` · started ${duration(now - r.startTime)} ago` : ''}
            </p>
            <ol class="points">
              ${r.points.map(
                (p) => html`<li key=${p.progressPoint} class=${p.reached ? 'reached' : ''}>
                  ${p.reached ? '✔' : '○'} ${p.progressPoint} (${p.count} new available) · ${p.hooks.join(', ') || 'no hooks'}
                  ${p.reachedTime !== undefined ? html` <span class="muted">at ${clock(p.reachedTime)}</span>` : ''}
                </li>`,
              )}
            </ol>`
        : html`<p class="muted">No rollout since it was created.</p>`}
      ${rl.hooks.length > 0 &&
      html`<table class="hooks">
        <tr><th>hook</th><th>phase</th><th>Job</th><th>took</th></tr>
        ${rl.hooks.map(
          (h) => html`<tr key=${`${h.name} ${h.job}`}>
            <td>${h.name}</td>
            <td class=${`hook-${h.phase}`}>${h.phase}${h.attempt > 1 ? ` (attempt ${h.attempt})` : ''}</td>
            <td class="mono">${h.job}</td>
            <td>${h.startTime === undefined ? '' : duration((h.completionTime ?? now) - h.startTime)}</td>
          </tr>
          ${h.message && html`<tr class="muted" key=${`${h.name} message`}><td></td><td colspan="3">${h.message}</td></tr>`}`,
        )}
      </table>`}
      ${rl.failed && html`<p class="bad">Failed: ${rl.failed}</p>`}
    </article>`;
  });
}

export function EventsPanel({ events }) {
  if (events.length === 0) return html`<p class="note">No recent events from podops.</p>`;
  return html`<ul class="events">
    ${events.map(
      (e) => html`<li key=${e.key} class=${e.type === 'Warning' ? 'warning' : ''}>
        <span class="muted">${e.last === undefined ? '' : clock(e.last)}</span> <b>${e.reason}</b> ${e.object}
        <span class="muted">${e.namespace}${e.count > 1 ? ` ×${e.count}` : ''}</span>
        <div>${e.message}</div>
      </li>`,
    )}
  </ul>`;
}
