// AdmissionReview bodies as the API server sends them, for tests and benches that talk to a webhook server
// directly (or forge what the API server would send).

/** An AdmissionReview v1 body; the request is a pod's in `default` unless `request` says otherwise. */
export function reviewBody(request: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'b0b1-uid',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      ...request,
    },
  });
}
