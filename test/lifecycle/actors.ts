// The actors of a PodOpsLifecycle world, each acting the way its real counterpart does, all writing
// through one FakePodServer (mutation + validation on every write).

import type { Pod, Service } from '../../src/api/kube.ts';
import { SERVICE_READY_GATE, type TransitionStage } from '../../src/api/protocol.ts';
import { applyReconcilePlan, reconcilePod } from '../../src/lifecycle/reconcile.ts';
import { findCondition } from '../../src/lifecycle/pod.ts';
import { podWrite } from '../../src/lifecycle/pod-write.ts';
import {
  addFinalizer,
  expectedFinalizerKey,
  lifecycleReady,
  protectionFinalizer,
  removeFinalizer,
  setExpectedFinalizers,
} from '../../src/sdk/cooperation.ts';
import { allowOps, begin, finish, hasLifecycle, OperationTypeConflictError, undo, type LifecycleAdapter } from '../../src/sdk/operation.ts';
import type { PodChange } from '../../src/sdk/pod-change.ts';
import type { FakePodServer } from '../support/fake-pod-server.ts';

export const NAMESPACE = 'default';
export const POD_NAME = 'subject';

export class World {
  readonly server: FakePodServer;
  readonly ops: LifecycleAdapter[];
  readonly coops: string[];
  /** IDs undone by their controller, checked right after the write. */
  readonly undone: string[] = [];
  /** The server history index of each undo write -> the ID it undid: the one write allowed to drop that ID at any phase. */
  readonly undoWrites = new Map<number, string>();

  constructor(server: FakePodServer, ops: LifecycleAdapter[], coops: string[]) {
    this.server = server;
    this.ops = ops;
    this.coops = coops;
  }

  current(): Pod {
    return this.server.peek(NAMESPACE, POD_NAME);
  }

  async #write(change: PodChange): Promise<boolean> {
    if (!change.changed) return false;
    await this.server.update(change.pod);
    return true;
  }

  /** An operation controller begins when its ID has no lifecycle; a type clash keeps it idle. */
  async begin(op: LifecycleAdapter): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    if (hasLifecycle(op.id, pod)) return false;
    try {
      return await this.#write(begin(op, pod, this.server.now()));
    } catch (err) {
      if (err instanceof OperationTypeConflictError) return false;
      throw err;
    }
  }

  /** Operates (nothing to simulate) and finishes once AllowOps says so. */
  async operate(op: LifecycleAdapter): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    if (!allowOps(op, 0, pod, this.server.now()).allowed) return false;
    return this.#write(finish(op, pod, this.server.now()));
  }

  async undo(op: LifecycleAdapter): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    if (!hasLifecycle(op.id, pod)) return false;
    await this.#write(undo(op, pod));
    this.undoWrites.set(this.server.history.length - 1, op.id);
    this.undone.push(op.id);
    return true;
  }

  /** BeginWithCleaningOld: undo the running lifecycle of this ID, then begin again. */
  async restart(op: LifecycleAdapter): Promise<boolean> {
    if (!(await this.undo(op))) return false;
    await this.begin(op);
    return true;
  }

  /**
   * A ResourceConsist-style cooperation controller: while the pod is lifecycle-ready it keeps the pod
   * registered (expected-finalizer entry + protection finalizer); otherwise it deregisters it and drops
   * its finalizer.
   */
  async cooperate(name: string): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    const finalizer = protectionFinalizer(name);
    if (!lifecycleReady(pod)) return this.#write(removeFinalizer(pod, finalizer));
    const declared = setExpectedFinalizers(pod, { [expectedFinalizerKey('Service', NAMESPACE, name)]: finalizer });
    const held = addFinalizer(declared.pod, finalizer);
    return this.#write({ pod: held.pod, changed: declared.changed || held.changed });
  }

  /** The lifecycle controller, with the PodTransitionRule verdicts given. */
  async reconcile(verdicts: Record<TransitionStage, boolean>): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    const now = this.server.now();
    const plan = reconcilePod({
      pod,
      now,
      transition: (stage) => ({ passed: verdicts[stage] }),
      service: (namespace, name): Service | undefined =>
        this.coops.includes(name) ? { metadata: { namespace, name }, spec: { selector: {} } } : undefined,
    });
    if (!plan) return false;
    // Exactly the request the controller sends.
    const write = podWrite(pod, applyReconcilePlan(pod, plan, now));
    if (!write) throw new Error(`the plan ${JSON.stringify(plan)} changes nothing`);
    await this.server.patch(NAMESPACE, POD_NAME, write);
    return true;
  }

  /** The kubelet rule: Ready iff the containers are ready and every readiness-gate condition is True. */
  async kubelet(containersReady: boolean): Promise<boolean> {
    const pod = await this.server.get(NAMESPACE, POD_NAME);
    const gatesTrue = (pod.spec?.readinessGates ?? []).every((g) => findCondition(pod, g.conditionType)?.status === 'True');
    const ready = containersReady && gatesTrue ? 'True' : 'False';
    if (findCondition(pod, 'Ready')?.status === ready) return false;
    const others = (pod.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
    await this.server.updateStatus({ ...pod, status: { ...pod.status, conditions: [...others, { type: 'Ready', status: ready }] } });
    return true;
  }
}

export const serviceReadyStatus = (pod: Pod): string | undefined => findCondition(pod, SERVICE_READY_GATE)?.status;
