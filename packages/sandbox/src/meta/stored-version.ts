// The version each built-in kind is stored in, and so defaulted and validated in: v1, except
// HorizontalPodAutoscalers, stored as autoscaling/v2 (autoscaling/v1 objects are converted to it).

export const storedVersion = (group: string, kind: string): string => (group === 'autoscaling' && kind === 'HorizontalPodAutoscaler' ? 'v2' : 'v1');
