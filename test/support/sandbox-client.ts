// A sandbox and a KubeClient to it for the tests of one describe block: started before them, stopped after.

import { after, before } from 'node:test';
import { KubeClient } from '../../src/kube/client.ts';
import { startSandbox, type Sandbox } from '@podops/sandbox';

export interface SandboxClient {
  readonly sandbox: Sandbox;
  readonly client: KubeClient;
}

export function useSandboxClient(): SandboxClient {
  const state: { sandbox?: Sandbox; client?: KubeClient } = {};
  before(async () => {
    state.sandbox = await startSandbox();
    state.client = KubeClient.fromKubeconfigText(state.sandbox.kubeconfig);
  });
  after(async () => {
    state.client?.close();
    await state.sandbox?.stop();
  });
  return {
    get sandbox() {
      if (!state.sandbox) throw new Error('the sandbox starts in before()');
      return state.sandbox;
    },
    get client() {
      if (!state.client) throw new Error('the client is made in before()');
      return state.client;
    },
  };
}
