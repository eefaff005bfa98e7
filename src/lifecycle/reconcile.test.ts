// Upstream podopslifecycle_controller_test scenarios as pure decisions, plus the divergences.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Service } from '../api/kube.ts';
import {
  AVAILABLE_CONDITIONS_ANNOTATION,
  POD_CREATING_LABEL,
  SERVICE_AVAILABLE_LABEL,
  SERVICE_READY_GATE,
  STAY_OFFLINE_LABEL,
  type TransitionStage,
} from '../api/protocol.ts';
import { L, NOW, PERM, STAMP, pod, service, type PodOptions } from '../../test/support/pods.ts';
import { applyReconcilePlan, reconcilePod, transitionStages, type TransitionVerdict } from './reconcile.ts';

const pass = (): TransitionVerdict => ({ passed: true });
const block = (): TransitionVerdict => ({ passed: false, message: 'blocked' });

function plan(options: PodOptions, extra: { transition?: (s: TransitionStage) => TransitionVerdict; services?: Service[] } = {}) {
  const services = extra.services ?? [];
  return reconcilePod({
    pod: pod(options),
    now: NOW,
    transition: extra.transition ?? pass,
    service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  });
}

const preparing = { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('pre-checked', 'a')]: '1', [PERM('upgrade')]: '1', [L('preparing', 'a')]: '1' };
const completing = { [L('operated', 'b')]: '1', [L('done-operation-type', 'b')]: 'restart', [L('post-checked', 'b')]: '1', [L('completing', 'b')]: '1' };

describe('reconcilePod: service-ready condition', () => {
  test('a new controlled pod with the gate gets the condition True', () => {
    assert.deepEqual(plan({ ready: false }), {
      reason: 'ServiceReady',
      serviceReady: { status: 'True', event: 'append service readiness gate to: True' },
    });
  });

  test('a pod in preparing gets False', () => {
    assert.deepEqual(plan({ labels: preparing, serviceReady: 'True' })?.serviceReady, {
      status: 'False',
      event: 'update service readiness gate to: False',
    });
  });

  test('a pod in completing gets True', () => {
    assert.equal(plan({ labels: completing, serviceReady: 'False' })?.serviceReady?.status, 'True');
  });

  test('preparing on one ID and completing on another: False', () => {
    assert.equal(plan({ labels: { ...preparing, ...completing }, serviceReady: 'True' })?.serviceReady?.status, 'False');
  });

  test('no gate in the spec: the condition is never written', () => {
    assert.equal(plan({ labels: preparing, gate: false }), undefined);
  });

  test('the written condition has the upstream message, no reason, and the transition time from now', () => {
    const p = plan({ labels: preparing, serviceReady: 'True', ready: true })!;
    const written = applyReconcilePlan(pod({ labels: preparing, serviceReady: 'True', ready: true }), p, NOW);
    const condition = written.status?.conditions?.find((c) => c.type === SERVICE_READY_GATE);
    assert.deepEqual(condition, {
      type: SERVICE_READY_GATE,
      status: 'False',
      lastTransitionTime: '2024-06-04T12:58:05Z',
      message: 'updated by PodOpsLifecycle',
    });
    assert.equal(written.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  });

  test('divergence (kuperator#248): one ID completing while another is still post-checking keeps False', () => {
    const postCheck = { [L('operated', 'a')]: '1', [L('done-operation-type', 'a')]: 'upgrade', [L('post-check', 'a')]: '1' };
    assert.equal(plan({ labels: { ...postCheck, ...completing }, serviceReady: 'False' }, { transition: block }), undefined);
  });
});

describe('reconcilePod: transition stages', () => {
  const twoInPreCheck = {
    [L('operating', 'a')]: '1',
    [L('operation-type', 'a')]: 'upgrade',
    [L('pre-check', 'a')]: '1',
    [L('operating', 'b')]: '1',
    [L('operation-type', 'b')]: 'restart',
    [L('pre-check', 'b')]: '1',
  };

  test('PreCheck passed with two IDs: two permissions and two pre-checked, and (folded) the gate False, in one write', () => {
    assert.deepEqual(plan({ labels: twoInPreCheck, serviceReady: 'True' }), {
      reason: 'PreChecked',
      labels: {
        set: { [PERM('upgrade')]: STAMP, [L('pre-checked', 'a')]: STAMP, [PERM('restart')]: STAMP, [L('pre-checked', 'b')]: STAMP },
        remove: [],
      },
      serviceReady: { status: 'False', event: 'update service readiness gate to: False' },
    });
  });

  test('PreCheck not passed: nothing is written', () => {
    assert.equal(plan({ labels: twoInPreCheck, serviceReady: 'True' }, { transition: block }), undefined);
  });

  test('PostCheck passed with two IDs: two post-checked', () => {
    const labels = {
      [L('operated', 'a')]: '1',
      [L('done-operation-type', 'a')]: 'upgrade',
      [L('post-check', 'a')]: '1',
      [L('operated', 'b')]: '1',
      [L('done-operation-type', 'b')]: 'restart',
      [L('post-check', 'b')]: '1',
    };
    const p = plan({ labels, serviceReady: 'False' });
    assert.deepEqual(p?.labels, {
      set: { [L('post-checked', 'a')]: STAMP, [L('post-checked', 'b')]: STAMP },
      remove: [],
    });
    assert.deepEqual(p?.serviceReady, { status: 'True', event: 'update service readiness gate to: True' }, 'folded: completing wants traffic back');
  });

  test('a pod in both stages: each stage is judged on its own and post-checked goes only to post-check IDs', () => {
    const labels = {
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('pre-check', 'a')]: '1',
      [L('operated', 'b')]: '1',
      [L('done-operation-type', 'b')]: 'restart',
      [L('post-check', 'b')]: '1',
    };
    const onlyPost = (stage: TransitionStage) => (stage === 'PostCheck' ? pass() : block());
    assert.deepEqual(transitionStages(pod({ labels })), ['PreCheck', 'PostCheck']);
    assert.deepEqual(plan({ labels, serviceReady: 'False' }, { transition: onlyPost })?.labels?.set, { [L('post-checked', 'b')]: STAMP });
  });
});

describe('reconcilePod: service-available', () => {
  test('a Ready pod with no lifecycle gets service-available and loses the creating label', () => {
    assert.deepEqual(plan({ ready: true, serviceReady: 'True', labels: { [POD_CREATING_LABEL]: '1' } }), {
      reason: 'ServiceAvailable',
      labels: { set: { [SERVICE_AVAILABLE_LABEL]: STAMP }, remove: [POD_CREATING_LABEL] },
    });
  });

  test('a pod that is not Ready gets no service-available', () => {
    assert.equal(plan({ ready: false, serviceReady: 'True' }), undefined);
  });

  test('stay-offline: no label and no condition', () => {
    assert.equal(plan({ ready: true, labels: { [STAY_OFFLINE_LABEL]: 'true' } }), undefined);
  });

  test('service-available is removed whenever the pod is not Ready (kuperator#283)', () => {
    assert.deepEqual(plan({ ready: false, serviceReady: 'True', labels: { [SERVICE_AVAILABLE_LABEL]: '1' } }), {
      reason: 'NotReady',
      labels: { set: {}, remove: [SERVICE_AVAILABLE_LABEL] },
    });
  });

  const expecting = (finalizer: string, key = 'Service/default/web') => ({
    [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: { [key]: finalizer } }),
  });

  test('a missing expected finalizer of a Service that still selects the pod blocks service-available', () => {
    const options = { ready: true, serviceReady: 'True' as const, labels: { app: 'web' }, annotations: expecting('prot.podopslifecycle.kusionstack.io/x') };
    assert.equal(plan(options, { services: [service('web', { app: 'web' })] }), undefined);
  });

  test('dirty check: a Service whose selector no longer matches is dropped from the annotation', () => {
    const options = { ready: true, serviceReady: 'True' as const, labels: { app: 'web' }, annotations: expecting('prot.podopslifecycle.kusionstack.io/x') };
    const p = plan(options, { services: [service('web', { app: 'other' })] });
    assert.deepEqual(p, { reason: 'DirtyExpectedFinalizers', dropExpectedFinalizers: ['Service/default/web'] });
    const written = applyReconcilePlan(pod(options), p!, NOW);
    assert.equal(written.metadata.annotations?.[AVAILABLE_CONDITIONS_ANNOTATION], '{"expectedFinalizers":{}}');
  });

  test('dirty check: a Service that no longer exists is dirty; a non-Service key is never judged', () => {
    const gone = { ready: true, serviceReady: 'True' as const, annotations: expecting('prot.x') };
    assert.deepEqual(plan(gone)?.dropExpectedFinalizers, ['Service/default/web']);
    const custom = { ready: true, serviceReady: 'True' as const, annotations: expecting('prot.x', 'LoadBalancer/default/lb') };
    assert.equal(plan(custom), undefined);
  });

  test('a pod being deleted is left alone', () => {
    const deleting = pod({ ready: false });
    deleting.metadata.deletionTimestamp = '2024-06-04T12:58:05Z';
    assert.equal(reconcilePod({ pod: deleting, now: NOW, transition: pass, service: () => undefined }), undefined);
  });
});
