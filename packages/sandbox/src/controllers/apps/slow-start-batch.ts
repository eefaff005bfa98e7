// slowStartBatch: calls `fn` `count` times in batches of 1, 2, 4, … running each batch in parallel and
// stopping after the first batch with an error, so a failing create (a quota, a webhook) costs one
// call rather than hundreds. Answers how many calls succeeded, and the first error.

export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failures.length;
    if (failures.length) return { successes, error: failures[0]?.reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}

/** controller.SlowStartInitialBatchSize */
export const slowStartInitialBatchSize = 1;
