// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NOT_SANDBOX = { group: ['**/sandbox/*'], message: 'Only the commands that run the sandbox import it (and tests).' };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // The house's architecture, checked: which folder may import which. A later block replaces the rule of an
  // earlier one for the files it matches, so each block lists every pattern its files must avoid.
  {
    files: ['src/**/*.ts', 'examples/**/*.ts'],
    ignores: ['src/sandbox/**', 'src/cli/local-stack.ts', 'src/cli/commands/sandbox.ts', 'src/cli/commands/sandbox.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_SANDBOX] }] },
  },
  {
    files: ['src/webhook/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [NOT_SANDBOX, { group: ['**/controllers/*', '**/operator/*', '**/cli/*'], message: 'Webhooks are drivers of the pure core; they do not reach into the controllers.' }] },
      ],
    },
  },
  {
    files: ['src/lifecycle/**/*.ts', 'src/transition/*.ts', 'src/rollout/**/*.ts', 'src/api/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test-support.ts', 'src/transition/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/kube/*', '**/controllers/*', '**/webhook/*', '**/operator/*', '**/cli/*', '**/sdk/*', '**/sandbox/*', '**/dashboard/*', '**/conformance/*'],
              message: 'The pure core (lifecycle, transition evaluation, rollout, api) imports only itself: time and state are parameters.',
            },
            { group: ['node:fs', 'node:fs/*', 'node:net', 'node:http', 'node:https', 'node:tls', 'node:dns', 'node:child_process', 'node:os', 'node:timers', 'node:timers/*'], message: 'The pure core does no I/O.' },
          ],
        },
      ],
    },
  },
  // The examples are written as a user of the published package would write them: only its entry points.
  {
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NOT_SANDBOX,
            { regex: '^\\.\\./\\.\\./src/(?!(sdk|kube|api|lifecycle)/index\\.ts$)', message: 'Examples import only what the package exports: podops/sdk, podops/runtime, podops/api, podops/lifecycle (src/*/index.ts).' },
          ],
        },
      ],
    },
  },
  // The sandbox imports nothing from the rest of src/: no relative import climbs out of src/sandbox.
  ...[1, 2, 3].map((depth) => ({
    files: [`src/sandbox/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: `^(\\.\\./){${depth}}`, message: 'The sandbox is a world of its own: it imports nothing from the rest of podops.' }] }],
    },
  })),
);
