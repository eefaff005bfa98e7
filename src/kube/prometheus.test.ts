import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as promClient from 'prom-client';
import { collectProcessMetrics, Registry } from './prometheus.ts';

const metricNames = async (registry: promClient.Registry): Promise<string[]> => (await registry.getMetricsAsJSON()).map((m) => m.name).sort();

describe('process metrics without prom-client’s entry point', () => {
  test('the same metrics as prom-client’s collectDefaultMetrics, under the same names', async () => {
    const ours = new Registry();
    collectProcessMetrics(ours);
    const upstream = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: upstream });
    assert.deepEqual(await metricNames(ours), await metricNames(upstream));
  });

  test('the CPU counters count the process’s CPU time, user plus system in the total, in one scrape', async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    const value = async (name: string): Promise<number> => ((await registry.getSingleMetric(name)?.get())?.values[0]?.value as number) ?? NaN;
    await registry.metrics();
    const before = await value('process_cpu_seconds_total');
    for (const end = process.cpuUsage().user + 50_000; process.cpuUsage().user < end; ) JSON.stringify({ burn: 'cpu' });
    const text = await registry.metrics();
    const scraped = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(scraped('process_cpu_seconds_total') - before >= 0.05, `${before} -> ${scraped('process_cpu_seconds_total')}`);
    assert.ok(Math.abs(scraped('process_cpu_seconds_total') - scraped('process_cpu_user_seconds_total') - scraped('process_cpu_system_seconds_total')) < 1e-9);
  });

  test('loading it does not load @opentelemetry/api', () => {
    const module = fileURLToPath(new URL('./metrics.ts', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const { RuntimeMetrics } = await import(${JSON.stringify(module)});
      await new RuntimeMetrics().registry.metrics();
      console.log(Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('@opentelemetry')).length);`;
    assert.equal(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('.', import.meta.url)) }).trim(), '0');
  });
});
