// How PodTransitionRule results reach the lifecycle controller (Kuperator's behaviour, docs/podtransitionrule.md): a pod passes a
// stage when every rule of its namespace that lists it in status.targets reports that stage as passed.

import type { Pod } from '../api/kube.ts';
import type { PodTransitionDetail, PodTransitionRule } from '../api/podtransitionrule.ts';
import type { TransitionStage } from '../api/protocol.ts';
import type { TransitionVerdict } from '../lifecycle/reconcile.ts';
import { wantsEviction } from '../lifecycle/eviction.ts';
import { markedForDeletion } from '../lifecycle/scale-down.ts';
import { labelSelectorMatches } from '../api/selector.ts';

export const NO_RULES_MESSAGE = 'No podTransitionRules found';

function selects(rule: PodTransitionRule, pod: Pod): boolean {
  try {
    return rule.spec?.selector != null && labelSelectorMatches(rule.spec.selector, pod.metadata.labels ?? {});
  } catch {
    // An invalid selector selects nothing (validation rejects it at admission).
    return false;
  }
}

/**
 * The verdict for `pod` in `stage`, from the PodTransitionRules of the pod's namespace (others are
 * ignored: upstream's lookup is cluster-wide by pod name). A rule listing or selecting the pod blocks until its
 * status holds a detail for the pod in this stage; a detail that did not pass blocks with its reject reasons.
 * Messages are upstream's, rules in name order.
 */
export function transitionVerdict(rules: readonly PodTransitionRule[], pod: Pod, stage: TransitionStage): TransitionVerdict {
  const name = pod.metadata.name ?? '';
  const namespace = pod.metadata.namespace ?? '';
  // A rule whose selector matches the pod counts even before its status lists the pod: upstream lets a pod
  // through a rule created moments earlier, before the rule's controller has seen it.
  const listing = rules
    .filter((r) => (r.metadata.namespace ?? '') === namespace && ((r.status?.targets ?? []).includes(name) || selects(r, pod)))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  if (listing.length === 0) return { passed: true, message: NO_RULES_MESSAGE };
  let passed = true;
  let message = '';
  for (const rule of listing) {
    const ruleName = rule.metadata.name ?? '';
    const detail = rule.status?.details?.find((d) => d.name === name && d.stage === stage);
    if (detail === undefined) {
      passed = false;
      message += `[waiting for podtransitionrule ${ruleName} processing. ]`;
    } else if (!detail.passed) {
      passed = false;
      const reasons = (detail.rejectInfo ?? []).map((r) => `${r.ruleName ?? ''}:${r.reason ?? ''}`).join(', ');
      message += `[PodTransitionRule: ${ruleName}, RejectInfo: ${reasons}] `;
    }
  }
  return passed ? { passed } : { passed, message };
}

/**
 * The value of the pod's `detail.podtransitionrule.kusionstack.io/<ptr>` annotation: `{stage, passed,
 * rejectInfo}` of its detail, `{"stage":"Unknown","passed":true}` when it is in no stage. A pod in both
 * stages gets its first stage, passed only if both passed, and both rejections.
 */
export function detailAnnotationValue(ptr: PodTransitionRule, podName: string): string {
  return detailAnnotationValues(ptr, [podName]).get(podName) as string;
}

/** detailAnnotationValue for many pods at once, reading the status once (a rule may list thousands). */
export function detailAnnotationValues(ptr: PodTransitionRule, podNames: readonly string[]): Map<string, string> {
  const byPod = new Map<string, PodTransitionDetail[]>();
  for (const detail of ptr.status?.details ?? []) {
    const name = detail.name ?? '';
    const list = byPod.get(name);
    if (list) list.push(detail);
    else byPod.set(name, [detail]);
  }
  return new Map(podNames.map((name) => [name, mergedDetail(byPod.get(name) ?? [])]));
}

const NO_STAGE = JSON.stringify({ stage: 'Unknown', passed: true });

const rejects = (value: string | null): boolean => value !== null && value.includes('"passed":false');

/**
 * The detail annotations to write, as [pod, value] (null removes it): each pod whose annotation differs from
 * `desired`, but not a pod being deleted, nor the no-stage value on a pod that carries no annotation of this rule
 * (its absence says the same), and on a pod marked to leave (for a deletion or an eviction) only a rejection or
 * the end of one (not a new wording of the rejection): what holds it is worth a write, its passing is not. A write of a pod wakes its workload's
 * controller, which, for a pod GraceDelete holds, retries every delete it was refused. Upstream writes every
 * value to every pod the rule selects.
 */
export function detailAnnotationWrites(annotation: string, desired: ReadonlyMap<string, string | null>, podNamed: (name: string) => Pod | undefined): [string, string | null][] {
  return [...desired].filter(([name, value]) => {
    const pod = podNamed(name);
    if (!pod || pod.metadata.deletionTimestamp) return false;
    const current = pod.metadata.annotations?.[annotation] ?? null;
    if (current === value || (current === null && value === NO_STAGE)) return false;
    if (!(markedForDeletion(pod) || wantsEviction(pod)) || value === null) return true;
    // Leaving: the verdict, not the counts its message quotes, which change with every pod of the rollout.
    return rejects(value) !== rejects(current);
  });
}

function mergedDetail(details: readonly PodTransitionDetail[]): string {
  const first = details[0];
  if (first === undefined) return NO_STAGE;
  const rejectInfo = details.flatMap((d) => d.rejectInfo ?? []);
  const merged: PodTransitionDetail = {
    ...(first.stage ? { stage: first.stage } : {}),
    passed: details.every((d) => d.passed),
    ...(rejectInfo.length > 0 ? { rejectInfo } : {}),
  };
  return JSON.stringify(merged);
}
