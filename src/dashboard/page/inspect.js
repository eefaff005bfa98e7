// One pod in full: the report of `podops inspect` (phase, each lifecycle's timeline and waits), read again from
// the server whenever the pod changes, with its labels, annotations, finalizers and conditions.

import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';

function Table({ entries }) {
  return html`<table class="kv">
    ${entries.map(([key, value]) => html`<tr key=${key}><td class="mono">${key}</td><td class="mono">${value}</td></tr>`)}
  </table>`;
}

/** `row` is the pod's current row: a new one (the pod changed) reads the report again. */
export function InspectPanel({ podKey, row }) {
  const [answer, setAnswer] = useState(undefined);
  useEffect(() => {
    if (!podKey) return undefined;
    const [namespace, name] = podKey.split('/');
    const abort = new AbortController();
    fetch(`/api/pod?${new URLSearchParams({ namespace, name })}`, { signal: abort.signal })
      .then(async (response) => setAnswer(response.ok ? { pod: await response.json() } : { error: await response.text() }))
      .catch((error) => abort.signal.aborted || setAnswer({ error: `could not read the pod: ${error.message}` }));
    return () => abort.abort();
  }, [podKey, row]);
  if (!podKey) return html`<p class="note">Click a pod for its full report.</p>`;
  if (!answer) return html`<p class="note">Reading ${podKey}…</p>`;
  if (answer.error) return html`<p class="note">${answer.error}</p>`;
  const pod = answer.pod;
  return html`<div class="inspect" data-inspect=${podKey}>
    <h3>${pod.name} <small>${pod.namespace}${pod.node ? ` · node ${pod.node}` : ''}${pod.podPhase ? ` · ${pod.podPhase}` : ''}</small></h3>
    <pre class="report">${pod.text}</pre>
    <h4>Conditions</h4>
    <${Table} entries=${pod.conditions.map((c) => [c.type, `${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`])} />
    <h4>Finalizers</h4>
    ${pod.finalizers.length > 0 ? html`<ul class="plain mono">${pod.finalizers.map((f) => html`<li key=${f}>${f}</li>`)}</ul>` : html`<p class="muted">none</p>`}
    <h4>Labels</h4>
    <${Table} entries=${Object.entries(pod.labels)} />
    <h4>Annotations</h4>
    <${Table} entries=${Object.entries(pod.annotations)} />
  </div>`;
}
