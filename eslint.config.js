// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NOT_SANDBOX = {
  group: ['@podops/sandbox', '@podops/sandbox/*'],
  message: 'Only the commands that run the sandbox load it (podops up, podops sandbox), and tests: a production install has no sandbox.',
};
const SANDBOX_COMMANDS = ['src/cli/local-stack.ts', 'src/cli/commands/sandbox.ts'];
const PACKAGE_BY_NAME = { regex: '(^|/)packages/', message: 'Import a workspace package by its name (@podops/sandbox), as an installed copy is imported.' };

export default tseslint.config(
  { ignores: ['**/dist/', 'node_modules/', 'coverage/'] },
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
  // The dashboard's page runs in the browser.
  {
    files: ['src/dashboard/page/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'window', 'fetch', 'EventSource', 'AbortController', 'URLSearchParams', 'ResizeObserver', 'requestAnimationFrame', 'setInterval', 'clearInterval'].map((name) => [name, 'readonly']),
      ),
    },
  },
  // The house's architecture, checked: which folder may import which. A later block replaces the rule of an
  // earlier one for the files it matches, so each block lists every pattern its files must avoid.
  {
    files: ['**/*.ts'],
    ignores: ['packages/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME] }] },
  },
  {
    files: ['src/**/*.ts', 'examples/**/*.ts'],
    ignores: SANDBOX_COMMANDS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [PACKAGE_BY_NAME, NOT_SANDBOX] }],
      'no-restricted-syntax': ['error', { selector: "ImportExpression[source.value=/^@podops\\/sandbox/]", message: NOT_SANDBOX.message }],
    },
  },
  // The commands that run the sandbox load it when they run, with `await import()`: `podops up --help` needs no
  // sandbox, and where none is installed they say so (sandboxNotInstalled).
  {
    files: SANDBOX_COMMANDS,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@podops/sandbox', allowTypeImports: true, message: "Load the sandbox with `await import('@podops/sandbox').catch(sandboxNotInstalled)` where the command runs it." }] },
      ],
    },
  },
  {
    files: ['src/webhook/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [PACKAGE_BY_NAME, NOT_SANDBOX, { group: ['**/controllers/*', '**/operator/*', '**/cli/*'], message: 'Webhooks are drivers of the pure core; they do not reach into the controllers.' }] },
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
            PACKAGE_BY_NAME,
            {
              group: ['**/kube/*', '**/controllers/*', '**/webhook/*', '**/operator/*', '**/cli/*', '**/sdk/*', '@podops/sandbox', '**/dashboard/*', '**/conformance/*'],
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
            PACKAGE_BY_NAME,
            NOT_SANDBOX,
            { regex: '^\\.\\./\\.\\./src/(?!(sdk|kube|api|lifecycle)/index\\.ts$)', message: 'Examples import only what the package exports: podops/sdk, podops/runtime, podops/api, podops/lifecycle (src/*/index.ts).' },
          ],
        },
      ],
    },
  },
  // The sandbox package imports nothing from podops: no relative import climbs out of packages/sandbox, and
  // podops is not one of its dependencies.
  ...[0, 1, 2, 3].map((depth) => ({
    files: [`packages/sandbox/${'*/'.repeat(depth)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `^(\\.\\./){${depth + 1}}`, message: 'The sandbox is a package of its own: it imports nothing from outside packages/sandbox.' },
            { group: ['podops', 'podops/*'], message: 'The sandbox does not depend on podops: podops depends on it.' },
          ],
        },
      ],
    },
  })),
);
